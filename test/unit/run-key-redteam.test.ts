import * as assert from 'node:assert';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadRunKey, newRunKey, RunKey, RunKeyError, seal, unseal } from '../../src/engine/distributed/run-key';
import { parseSourceRules, sourceProblem } from '../../src/engine/distributed/source-policy';

/* Red-team attacks on the run key (issue 31, part 3) by a helper that did not write it. */

describe('distributed queue: the run key against a guesser and a neighbour (red team)', () => {
  it('a key of the right length that anyone could guess (one character, a short pattern repeated) is refused', () => {
    for (const guessable of ['0'.repeat(64), 'ab'.repeat(32), 'deadbeef'.repeat(8), '0123456789abcdef'.repeat(4), 'A'.repeat(44), 'BwcH'.repeat(11)]) {
      assert.throws(() => new RunKey(guessable), RunKeyError, guessable);
    }
    // What `queue new-key` and `openssl rand` make is taken.
    for (let i = 0; i < 200; i++) {
      assert.ok(new RunKey(newRunKey()).id);
      assert.ok(new RunKey(randomBytes(32).toString('base64')).id);
    }
  });

  it('a key file another user can write is refused (they could put in a key they know); one they can only read is warned about', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-key-rt-'));
    try {
      const file = path.join(dir, 'run.key');
      fs.writeFileSync(file, `${newRunKey()}\n`);
      for (const mode of [0o666, 0o620, 0o602]) {
        fs.chmodSync(file, mode);
        assert.throws(() => loadRunKey(file, {}), /other users can write.*chmod 600/, mode.toString(8));
      }
      // Through a link too (a Kubernetes Secret's files are links): the file it leads to is judged.
      const link = path.join(dir, 'link.key');
      fs.symlinkSync(file, link);
      assert.throws(() => loadRunKey(link, {}), /other users can write/);
      fs.chmodSync(file, 0o644);
      const warned: string[] = [];
      assert.ok(loadRunKey(link, {}, (l) => warned.push(l)).id);
      assert.match(warned.join('\n'), /can be read by other users/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('distributed queue: signed messages and source rules against forms not listed in the issue (red team)', () => {
  const key = new RunKey(newRunKey());
  const at = { kind: 'task-job', queue: 'tasks-go', jobId: 'j' } as const;

  it('a MAC in capitals, cut short or padded is refused; only the signed text is read, __proto__ there is plain data', () => {
    const { message } = seal(key, 2, at, JSON.parse('{"__proto__": {"polluted": 1}, "a": 1}'));
    for (const mac of [message.mac.toUpperCase(), message.mac.slice(0, 63), `${message.mac}0`, ` ${message.mac}`]) {
      const r = unseal(key, { ...message, mac }, at);
      assert.ok('problem' in r, mac);
    }
    // Fields outside the signed text are not read: another format or extra fields change nothing.
    const r = unseal(key, { ...message, format: 99, payload: { evil: 1 }, opts: { delay: 1 } }, at);
    assert.ok('payload' in r && !('evil' in (r.payload as object)));
    assert.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype was changed');
  });

  it('URL forms around a rule: each is refused unless it is the allowed host, scheme and path', () => {
    const git = (url: string) => ({ kind: 'git' as const, url, commit: 'a'.repeat(40) });
    const rules = parseSourceRules(['https://github.com/gorilla']);
    for (const url of [
      'FILE:///home/me/private',
      'git+file:///home/me/private',
      'file:/home/me/private',
      '/home/me/private',
      './private',
      'https://github.com./gorilla/mux',
      'https://xn--gthub-2ua.com/gorilla/mux',
      'https://github.com:443@evil.org/gorilla/mux',
      'https://github.com\\@evil.org/gorilla/mux',
      'HTTPS://github.com:8443/gorilla/mux',
      'https://github.com/gorilla/../other/mux',
      'https://github.com/gorilla/%2e%2e/other',
    ]) {
      assert.notEqual(sourceProblem(git(url), rules), null, url);
    }
    for (const url of ['FILE:///home/me/private', 'git+file:///x', 'file:/home/me', '/abs/path']) assert.notEqual(sourceProblem(git(url), parseSourceRules(undefined)), null, url);
    assert.equal(sourceProblem(git('HTTPS://GitHub.com/gorilla/mux'), rules), null, 'scheme and host in capitals are the same');
  });
});
