import * as assert from 'node:assert';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadRunKey, newRunKey, RunKey, RunKeyError, seal, unseal, type MessageBinding } from '../../src/engine/distributed/run-key';
import { parseSourceRule, parseSourceRules, sourceProblem } from '../../src/engine/distributed/source-policy';

const KEY = new RunKey(newRunKey());
const JOB: MessageBinding = { kind: 'task-job', queue: 'tasks-go', jobId: 'abc' };

describe('distributed queue: the run key and signed messages', () => {
  it('opens what it sealed, and only that', () => {
    const { message, nonce } = seal(KEY, 2, JOB, { task: 1 });
    assert.deepStrictEqual(unseal(KEY, message, JOB), { payload: { task: 1 }, nonce });
    // A copy of the message stored by JSON (as Redis holds it) opens the same.
    assert.deepStrictEqual(unseal(KEY, JSON.parse(JSON.stringify(message)), JOB), { payload: { task: 1 }, nonce });
  });

  it('refuses an unsigned message, another key\'s, an altered body or MAC', () => {
    const { message } = seal(KEY, 2, JOB, { task: 1 });
    const problem = (data: unknown): string => {
      const r = unseal(KEY, data, JOB);
      assert.ok('problem' in r, JSON.stringify(r));
      return r.problem;
    };
    assert.match(problem({ task: 1 }), /not signed with a run key/);
    assert.match(problem(seal(new RunKey(newRunKey()), 2, JOB, { task: 1 }).message), /signed with another run key/);
    assert.match(problem({ ...message, body: message.body.replace('"task":1', '"task":2') }), /does not verify/);
    assert.match(problem({ ...message, mac: message.mac.replace(/^./, (c) => (c === '0' ? '1' : '0')) }), /does not verify/);
    assert.match(problem({ ...message, mac: 'zz' }), /does not verify/);
  });

  it('refuses a valid message in another place: another kind, queue, job, or an answer to another issue', () => {
    const { message } = seal(KEY, 2, JOB, {});
    for (const [expect, what] of [
      [{ ...JOB, kind: 'task-result' }, /another kind/],
      [{ ...JOB, queue: 'tasks-php' }, /another queue/],
      [{ ...JOB, jobId: 'abd' }, /another jobId/],
      [{ ...JOB, reply: 'n1' }, /another issue of the job/],
    ] as const) {
      const r = unseal(KEY, message, expect as MessageBinding);
      assert.ok('problem' in r && what.test(r.problem), JSON.stringify(r));
    }
    const answer = seal(KEY, 2, { kind: 'task-result', queue: 'tasks-go', jobId: 'abc', reply: 'n1' }, {}).message;
    const r = unseal(KEY, answer, { kind: 'task-result', queue: 'tasks-go', jobId: 'abc', reply: 'n2' });
    assert.ok('problem' in r && /another issue/.test(r.problem));
  });

  it('a key is 32 random bytes\' worth of text; none, or a short one, is refused saying how to make one', () => {
    assert.throws(() => new RunKey('hunter2'), RunKeyError);
    assert.throws(() => new RunKey('a'.repeat(42)), /64 hex digits/);
    assert.ok(new RunKey(randomBytes(32).toString('base64')).id);
    assert.throws(() => loadRunKey(undefined, {}), /needs a run key.*queue new-key/);
    const k = newRunKey();
    assert.equal(loadRunKey(undefined, { XREPOTEST_RUN_KEY: `${k}\n` }).id, new RunKey(k).id);
  });

  it('a key file: read, said when others can read it, refused when missing', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-key-'));
    try {
      const file = path.join(dir, 'run.key');
      const k = newRunKey();
      fs.writeFileSync(file, `${k}\n`, { mode: 0o644 });
      fs.chmodSync(file, 0o644);
      const warnings: string[] = [];
      // The file wins over the environment.
      assert.equal(loadRunKey(file, { XREPOTEST_RUN_KEY: newRunKey() }, (l) => warnings.push(l)).id, new RunKey(k).id);
      assert.match(warnings.join('\n'), /can be read by other users.*chmod 600/);
      assert.throws(() => loadRunKey(path.join(dir, 'none'), {}), /no such file.*queue new-key/);
      assert.throws(() => loadRunKey(dir, {}), /not a key file/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('distributed queue: the sources a worker fetches (--allow-source)', () => {
  const git = (url: string) => ({ kind: 'git' as const, url, commit: 'a'.repeat(40) });
  const image = (name: string) => ({ kind: 'image' as const, image: `${name}@sha256:${'b'.repeat(64)}`, repoDir: 'r' });
  const allowed = (rules: string[] | undefined, source: Parameters<typeof sourceProblem>[0]): boolean => sourceProblem(source, parseSourceRules(rules)) === null;

  it('by default: any https:// host and published images; never file://, ssh, git://, http:// or a bare path', () => {
    assert.ok(allowed(undefined, git('https://github.com/gorilla/mux')));
    assert.ok(allowed(undefined, image('xrepotest/go')));
    for (const url of ['file:///home/me/private', 'ssh://git@github.com/me/private', 'git@github.com:me/private.git', 'git://example.org/x', 'http://10.0.0.1/x', '/home/me/private', 'ext::sh -c id', 'fd::3']) {
      assert.ok(!allowed(undefined, git(url)), url);
    }
    assert.match(sourceProblem(git('file:///home/me/private/repo'), parseSourceRules(undefined))!, /--allow-source file:\/\/\/home\/me\/private\//);
  });

  it('a host or a folder allows what is under it by whole segments, not what merely starts with its text', () => {
    const rules = ['https://github.com/gorilla', 'file:///srv/repos/'];
    assert.ok(allowed(rules, git('https://github.com/gorilla/mux')));
    assert.ok(allowed(rules, git('https://GitHub.com/gorilla/mux.git')));
    assert.ok(allowed(rules, git('file:///srv/repos/a.git')));
    for (const url of [
      'https://github.com/gorilla-evil/mux',
      'https://github.com.evil.org/gorilla/mux',
      'https://github.com@evil.org/gorilla/mux',
      'https://github.com:8443/gorilla/mux',
      'file:///srv/repos/../../home/me/private',
      'file:///srv/repos/%2e%2e/%2e%2e/home/me',
      'file:///srv/reposecret/x',
      'file://otherhost/srv/repos/x',
      'https://github.com/gorilla/mux?x=1',
    ]) {
      assert.ok(!allowed(rules, git(url)), url);
    }
    assert.ok(!allowed(rules, image('xrepotest/go')), 'a list given replaces the default');
  });

  it('scp-like addresses are SSH; images are matched by registry and namespace', () => {
    assert.ok(allowed(['ssh://github.com'], git('git@github.com:me/repo.git')));
    assert.ok(!allowed(['ssh://github.com'], git('git@gitlab.com:me/repo.git')));
    assert.ok(allowed(['image:docker.io/xrepotest'], image('xrepotest/go')));
    assert.ok(allowed(['image:registry.example.org:5000/team'], image('registry.example.org:5000/team/go')));
    assert.ok(!allowed(['image:registry.example.org:5000/team'], image('registry.example.org:5000/other/go')));
    assert.ok(!allowed(['image:docker.io/xrepotest'], image('evil.org/xrepotest/go')));
  });

  it('a rule that is no rule is refused at start', () => {
    for (const bad of ['github.com', 'ftp://x', 'file:///srv/../etc', 'https://x/%2e%2e']) assert.throws(() => parseSourceRule(bad), /--allow-source/, bad);
  });
});
