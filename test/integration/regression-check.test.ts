import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { materializeCommit } from '../../src/engine/execute/base-checkout';
import { CLI, fixture, REPO_ROOT } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';

const git = (dir: string, args: string[], input?: string): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.org', '-C', dir, ...args], {
    encoding: 'utf8',
    ...(input !== undefined ? { input } : {}),
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' },
  }).trim();

interface Result {
  task_id: number;
  function_name: string;
  file_path: string;
  checks: Array<{ tests: boolean }>;
  xrt: { sample: number; regression?: { base: string | null; verdict: string; reason: string } };
}

/*
 * `run --regression-check` (issue 17, tests for what changed): a passing test of a task from `extract
 * --changed-since` is run again at the base commit, in a sandbox of that commit's tree; it is
 * change-revealing when it fails there. The base tree is written from git's objects by the engine,
 * and a crafted tree must not make it write anywhere but its own folder.
 */
describe('regression check: does a passing test reveal the change?', function () {
  this.timeout(300_000);
  let tmp: string;
  before(function () {
    if (!hasTool('git', ['--version'])) skipBecause(this, 'git is not installed');
  });
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-regression-'));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it("attack: a crafted tree (a link and a folder of one name, '..', '.git') is written inside its own folder only", () => {
    const repo = path.join(tmp, 'repo');
    const outside = path.join(tmp, 'outside');
    fs.mkdirSync(outside);
    fs.mkdirSync(repo);
    git(repo, ['init', '-q']);
    const blob = git(repo, ['hash-object', '-w', '--stdin'], 'planted\n');
    const linkTarget = git(repo, ['hash-object', '-w', '--stdin'], outside);
    const inner = git(repo, ['mktree'], `100644 blob ${blob}\tx\n`);
    const hooks = git(repo, ['mktree'], `100755 blob ${blob}\tpost-checkout\n`);
    const top = git(repo, ['mktree'], [`120000 blob ${linkTarget}\tevil`, `040000 tree ${inner}\tevil`, `100644 blob ${blob}\t..`, `040000 tree ${hooks}\t.git`, `100644 blob ${blob}\tok.txt`].join('\n') + '\n');
    const commit = git(repo, ['commit-tree', top, '-m', 'crafted']);
    const base = materializeCommit(repo, commit);
    try {
      assert.deepEqual(fs.readdirSync(outside), [], 'nothing written through the link');
      assert.equal(fs.readFileSync(path.join(base.dir, 'ok.txt'), 'utf8'), 'planted\n');
      assert.ok(fs.lstatSync(path.join(base.dir, 'evil')).isDirectory(), 'the folder, never the link');
      assert.equal(fs.readFileSync(path.join(base.dir, 'evil', 'x'), 'utf8'), 'planted\n');
      assert.ok(!fs.existsSync(path.join(base.dir, '.git')), 'no .git from the tree');
      assert.deepEqual(fs.readdirSync(path.dirname(base.dir)), [path.basename(base.dir)], "nothing beside the checkout's folder ('..')");
      const why = base.skipped.map((s) => s.path).sort();
      assert.deepEqual(why, ['..', '.git/post-checkout', 'evil'].sort());
    } finally {
      base.remove();
    }
    assert.ok(!fs.existsSync(path.dirname(base.dir)), 'removed');
  });

  it('marks a test that fails at the base commit change-revealing, one that passes there not, and a new function absent at base', async function () {
    for (const t of ['php', 'phpunit']) if (!hasTool(t)) skipBecause(this, `${t} is not installed`);
    const repo = path.join(tmp, 'textkit-php');
    fs.cpSync(fixture('textkit-php'), repo, { recursive: true });
    const slugger = path.join(repo, 'src', 'Slugger.php');
    const fixed = fs.readFileSync(slugger, 'utf8');
    assert.match(fixed, /implode\(\$this->separator, \$words\)/);
    // The base commit has a bug the change fixes: words joined with nothing.
    fs.writeFileSync(slugger, fixed.replace('implode($this->separator, $words)', "implode('', $words)"));
    git(repo, ['init', '-q']);
    git(repo, ['add', '-A']);
    git(repo, ['commit', '-q', '-m', 'base']);
    fs.writeFileSync(slugger, fixed);
    // And a class the change adds.
    fs.writeFileSync(path.join(repo, 'src', 'SluggerTwo.php'), fixed.replace(/final class Slugger\b/, 'final class SluggerTwo'));
    git(repo, ['add', '-A']);
    git(repo, ['commit', '-q', '-m', 'fix and add']);

    const tasksFile = path.join(tmp, 'tasks.jsonl');
    const ex = spawnSync(process.execPath, [CLI, 'extract', repo, '--changed-since', 'HEAD~1', '--out', tasksFile, '--no-progress'], { encoding: 'utf8' });
    assert.equal(ex.status, 0, ex.stderr);
    const tasks = fs.readFileSync(tasksFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { task_id: number; function_name: string; file_path: string; changed_since?: { ref: string; commit: string } });
    const base = git(repo, ['rev-parse', 'HEAD~1']);
    for (const t of tasks) assert.deepEqual(t.changed_since, { ref: 'HEAD~1', commit: base }, 'the base is recorded on every task');
    const changed = tasks.find((t) => t.function_name === 'slugify' && t.file_path.endsWith('/Slugger.php'));
    const added = tasks.find((t) => t.function_name === 'slugify' && t.file_path.endsWith('/SluggerTwo.php'));
    assert.ok(changed && added, `slugify in both files: ${tasks.map((t) => `${t.file_path}:${t.function_name}`).join(', ')}`);

    const pass = fs.readFileSync(path.join(REPO_ROOT, 'test', 'data', 'generated', 'php', 'pass.php'), 'utf8');
    const emptyOnly = pass.replace(/public function testSlugifyJoinsWords[\s\S]*?\n    }\n\n/, '');
    assert.notEqual(emptyOnly, pass);
    const gens = path.join(tmp, 'gens.jsonl');
    fs.writeFileSync(
      gens,
      [
        { task_id: changed.task_id, language: 'php', sample: 0, test_code: pass },
        { task_id: changed.task_id, language: 'php', sample: 1, test_code: emptyOnly },
        { task_id: added.task_id, language: 'php', sample: 0, test_code: pass.replace(/\bSlugger\b/g, 'SluggerTwo') },
      ]
        .map((g) => JSON.stringify(g))
        .join('\n') + '\n',
    );
    const out = path.join(tmp, 'results.jsonl');
    const run = spawnSync(process.execPath, [CLI, 'run', tasksFile, '--tests', gens, '--repos', tmp, '--executor', 'local', '--out', out, '--regression-check', '--no-progress', '--concurrency', '1'], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const results = fs.readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Result);
    const of = (t: { task_id: number; file_path: string }, sample: number): Result => results.find((r) => r.task_id === t.task_id && r.xrt.sample === sample && r.file_path.endsWith(t.file_path.split('/').pop()!))!;
    for (const r of results) assert.equal(r.checks[0].tests, true, `${r.file_path} sample ${r.xrt.sample} passes on the new code`);
    assert.equal(of(changed, 0).xrt.regression?.verdict, 'change-revealing', JSON.stringify(of(changed, 0).xrt.regression));
    assert.equal(of(changed, 0).xrt.regression?.base, base);
    assert.match(of(changed, 0).xrt.regression?.reason ?? '', /fails at the base commit/);
    assert.equal(of(changed, 1).xrt.regression?.verdict, 'passes-at-base', JSON.stringify(of(changed, 1).xrt.regression));
    assert.equal(of(added, 0).xrt.regression?.verdict, 'absent-at-base', JSON.stringify(of(added, 0).xrt.regression));
    assert.match(run.stderr, /regression check: 1 of 3 passing tests are change-revealing/);
    // The user's checkout is as it was: nothing checked out, nothing left.
    assert.equal(git(repo, ['status', '--porcelain']), '');
    assert.equal(fs.readFileSync(slugger, 'utf8'), fixed);
  });
});
