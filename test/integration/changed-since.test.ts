import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLI, fixture } from '../helpers/paths';
import { makeLazyFetching, markerText, plantHostileGitConfig, testGit } from '../helpers/hostile-git';
import { hasTool, skipBecause } from '../helpers/skip';

interface Task {
  task_id: number;
  function_name: string;
  file_path: string;
  function_component: { start_line: number; end_line: number };
}

function cli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  // Bounded, so a git that blocks shows as a failed test instead of a runner that never ends.
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 100_000, killSignal: 'SIGKILL' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr + (r.error ? `\n${r.error.message}` : '') };
}

const git = testGit;

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

  it("a checkout's own git configuration starts no program (filters, textconv, external diff, fsmonitor, hooks, pager, helpers); a ref is never an option", () => {
    const marker = path.join(path.dirname(repo), 'ran');
    const all = extract(repo);
    plantHostileGitConfig(repo, marker);
    const [edited] = all;
    const file = path.join(path.dirname(repo), edited.file_path);
    fs.appendFileSync(file, '\n');
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines.splice(edited.function_component.start_line, 0, '\t// changed');
    fs.writeFileSync(file, lines.join('\n'));
    // Every file's stat data is new to the index too, so git must read (and would filter) them all.
    for (const t of all) fs.utimesSync(path.join(path.dirname(repo), t.file_path), new Date(), new Date(Date.now() + 5000));
    const r = cli(['extract', repo, '--no-progress', '--changed-since', 'HEAD']);
    assert.equal(markerText(marker), '', 'a program named by the repository ran on the host');
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n').map((l) => key(JSON.parse(l) as Task)), [key(edited)]);

    const out = path.join(path.dirname(repo), 'written-by-git');
    for (const ref of [`--output=${out}`, '-p', 'no-such-branch']) {
      const r = cli(['extract', repo, '--no-progress', `--changed-since=${ref}`]);
      assert.notEqual(r.code, 0, ref);
      assert.match(r.stderr, /--changed-since .*(not a git ref|names no commit here)/, r.stderr);
    }
    assert.equal(fs.existsSync(out), false);
  });

  it("a partial clone's missing object is never fetched through the repository's ssh command: a clear refusal", () => {
    const marker = path.join(path.dirname(repo), 'ran');
    const [edited] = extract(repo);
    const file = path.join(path.dirname(repo), edited.file_path);
    const rel = path.relative(repo, file);
    const blob = git(repo, 'rev-parse', `HEAD:${rel}`).trim();
    fs.appendFileSync(file, '\n// a new last line\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'edit');
    plantHostileGitConfig(repo, marker);
    makeLazyFetching(repo, blob);
    // The working file differs from HEAD~1's copy, whose blob is gone: the diff needs it.
    const r = cli(['extract', repo, '--no-progress', '--changed-since', 'HEAD~1']);
    assert.equal(markerText(marker), '', 'the repository\'s ssh command ran on the host');
    assert.notEqual(r.code, 0, r.stdout);
    assert.match(r.stderr, new RegExp(`${blob.slice(0, 7)}|missing|bad object|unable to read`, 'i'), r.stderr);
  });

  it('reads the repository as git would: a linked worktree, a subfolder, sha256 objects', () => {
    const [edited] = extract(repo);
    const rel = path.relative(repo, path.join(path.dirname(repo), edited.file_path));
    const edit = (top: string): void => {
      const file = path.join(top, rel);
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      lines.splice(edited.function_component.start_line, 0, '\t// changed');
      fs.writeFileSync(file, lines.join('\n'));
    };
    const worktree = path.join(path.dirname(repo), 'wt', 'inventory-go');
    git(repo, 'worktree', 'add', '-q', worktree, 'HEAD');
    edit(worktree);
    assert.deepEqual(extract(worktree, '--changed-since', 'HEAD').map((t) => t.function_name), [edited.function_name]);
    // The main checkout is untouched: nothing changed there.
    assert.deepEqual(extract(repo, '--changed-since', 'HEAD'), []);

    const sha256 = path.join(path.dirname(repo), 'sha256', 'inventory-go');
    fs.cpSync(fixture('inventory-go'), sha256, { recursive: true });
    git(sha256, 'init', '-q', '--object-format=sha256');
    git(sha256, 'add', '-A');
    git(sha256, 'commit', '-q', '-m', 'base');
    edit(sha256);
    assert.deepEqual(extract(sha256, '--changed-since', 'HEAD').map((t) => t.function_name), [edited.function_name]);

    // A subfolder of the checkout: paths are the subfolder's own (git diff --relative).
    const sub = path.join(repo, 'sub');
    fs.mkdirSync(sub);
    fs.copyFileSync(path.join(repo, rel), path.join(sub, path.basename(rel)));
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'sub');
    const inSub = path.join(sub, path.basename(rel));
    const lines = fs.readFileSync(inSub, 'utf8').split('\n');
    lines.splice(edited.function_component.start_line, 0, '\t// changed');
    fs.writeFileSync(inSub, lines.join('\n'));
    assert.deepEqual(extract(sub, '--changed-since', 'HEAD').map((t) => `${t.file_path}:${t.function_name}`), [`sub/${path.basename(rel)}:${edited.function_name}`]);
  });

  it("attack: a FIFO in the checkout's .git (packed-refs) does not hang extract", function () {
    if (!hasTool('mkfifo', ['--version'])) skipBecause(this, 'mkfifo is not installed');
    execFileSync('mkfifo', [path.join(repo, '.git', 'packed-refs')]);
    const r = cli(['extract', repo, '--no-progress', '--changed-since', 'HEAD']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), '');
  });

  it("refuses, as git would, a repository that belongs to another user", function () {
    if (process.getuid?.() !== 0) skipBecause(this, 'only root can give the repository to another user here');
    execFileSync('chown', ['-R', '54321:54321', repo]);
    const r = cli(['extract', repo, '--no-progress', '--changed-since', 'HEAD']);
    assert.notEqual(r.code, 0, r.stdout);
    assert.match(r.stderr, /belongs to another user/);
  });
});
