import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLI, fixture } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';

interface Task {
  task_id: number;
  function_name: string;
  file_path: string;
  function_component: { start_line: number; end_line: number };
}

function cli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const git = (dir: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.org', '-C', dir, ...args], { encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } });

/** Tasks `extract` writes for `dir` with these extra arguments. */
function extract(dir: string, ...extra: string[]): Task[] {
  const r = cli(['extract', dir, '--no-progress', ...extra]);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.trim() ? r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Task) : [];
}

const key = (t: Task): string => `${t.file_path}:${t.function_name}`;

describe('extract --changed-since (tests for what changed)', function () {
  this.timeout(120_000);
  let repo: string;

  beforeEach(function () {
    if (!hasTool('git', ['--version'])) skipBecause(this, 'git is not installed');
    repo = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-changed-')), 'inventory-go');
    fs.cpSync(fixture('inventory-go'), repo, { recursive: true });
    git(repo, 'init', '-q');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'base');
  });
  afterEach(() => repo && fs.rmSync(path.dirname(repo), { recursive: true, force: true }));

  it('keeps the functions an edit touches and those of a new file, numbered from 0', () => {
    const all = extract(repo);
    assert.ok(all.length >= 2, 'the fixture has kept functions');
    const [edited] = all;
    const file = path.join(path.dirname(repo), edited.file_path);
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines.splice(edited.function_component.start_line, 0, '\t// changed by the test');
    fs.writeFileSync(file, lines.join('\n'));
    const other = all.find((t) => t.file_path !== edited.file_path)!;
    const copied = path.join(path.dirname(repo), other.file_path.replace(/\.go$/, '_copy.go'));
    fs.copyFileSync(path.join(path.dirname(repo), other.file_path), copied);

    const changed = extract(repo, '--changed-since', 'HEAD');
    const expected = [key(edited), ...all.filter((t) => t.file_path === other.file_path).map((t) => key({ ...t, file_path: t.file_path.replace(/\.go$/, '_copy.go') }))];
    assert.deepEqual(changed.map(key).sort(), expected.sort());
    assert.deepEqual(changed.map((t) => t.task_id), changed.map((_, i) => i));
    // Nothing changed since the commit after it: nothing to test.
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'edit');
    assert.deepEqual(extract(repo, '--changed-since', 'HEAD'), []);
    assert.deepEqual(extract(repo, '--changed-since', 'HEAD~1').map(key).sort(), expected.sort());
  });

  it("a checkout's git configuration starts no program (fsmonitor, external diff, textconv); a ref is never an option", () => {
    const marker = path.join(path.dirname(repo), 'ran');
    const script = path.join(path.dirname(repo), 'evil.sh');
    fs.writeFileSync(script, `#!/bin/sh\necho "$0 $*" >> '${marker}'\nexit 0\n`, { mode: 0o755 });
    git(repo, 'config', 'core.fsmonitor', script);
    git(repo, 'config', 'diff.external', script);
    git(repo, 'config', 'diff.evil.textconv', script);
    git(repo, 'config', 'diff.evil.command', script);
    fs.writeFileSync(path.join(repo, '.gitattributes'), '*.go diff=evil\n');
    const all = extract(repo);
    const [edited] = all;
    const file = path.join(path.dirname(repo), edited.file_path);
    fs.appendFileSync(file, '\n');
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines.splice(edited.function_component.start_line, 0, '\t// changed');
    fs.writeFileSync(file, lines.join('\n'));
    assert.deepEqual(extract(repo, '--changed-since', 'HEAD').map(key), [key(edited)]);
    assert.equal(fs.existsSync(marker), false, fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8') : '');

    const out = path.join(path.dirname(repo), 'written-by-git');
    for (const ref of [`--output=${out}`, '-p', 'no-such-branch']) {
      const r = cli(['extract', repo, '--no-progress', `--changed-since=${ref}`]);
      assert.notEqual(r.code, 0, ref);
      assert.match(r.stderr, /--changed-since .*(not a git ref|names no commit here)/, r.stderr);
    }
    assert.equal(fs.existsSync(out), false);
  });
});
