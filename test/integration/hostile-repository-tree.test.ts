import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createSandbox, pidNamespace, reapStaleSandboxes, removeSandbox, sandboxRemovalsDone } from '../../src/engine/execute/sandbox';
import type { ResultRecord } from '../../src/engine/store/results';
import type { TaskRecord } from '../../src/engine/tasks/record';
import { engineForTests, languageImageForTests } from '../helpers/engine';
import { CLI } from '../helpers/paths';
import { writeJsonl } from '../helpers/run-folders';
import { hasTool, skipBecause } from '../helpers/skip';

const GO_SOURCE = 'package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n';
/** Makes `levels` folders, one inside the other, in `dir`: what a test (or a repository) can do, since mkdir -p goes one relative step at a time. */
const deepTree = (dir: string, levels = 3000): void => void execFileSync('mkdir', ['-p', 'd/'.repeat(levels)], { cwd: dir });

const GO_TEST = 'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal("Add(2, 3) != 5")\n\t}\n}\n';

/** A Go repository `repos/<name>` with one focal function, and its task. */
function goRepository(repos: string, name: string, taskId: number): TaskRecord {
  const repo = path.join(repos, name);
  fs.mkdirSync(repo, { recursive: true });
  fs.writeFileSync(path.join(repo, 'go.mod'), `module example.com/${name}\n\ngo 1.21\n`);
  fs.writeFileSync(path.join(repo, 'calc.go'), GO_SOURCE);
  return {
    task_id: taskId,
    function_name: 'Add',
    file_path: `${name}/calc.go`,
    focal_code: 'func Add(a, b int) int {\n\treturn a + b\n}',
    file_content: GO_SOURCE,
    language: 'go',
    function_component: { name: 'Add', signature: 'func Add(a, b int) int', start_line: 3, end_line: 5 },
    metadata: { package: 'calc', class_name: '', class_signature: '' },
  };
}

/** What a folder holds, two levels down (a left-behind sandbox shows as its name and first entries). */
function listing(dir: string): string[] {
  return fs.readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return fs.lstatSync(p).isDirectory() ? [n, ...fs.readdirSync(p).map((m) => `${n}/${m}`)] : [n];
  });
}

/**
 * A repository is input: one whose tree is 3,000 folders deep (every path past it is longer than the
 * system allows) gives its own task an error verdict, while the other tasks of the run are scored and
 * nothing of either sandbox is left in the memory folder or the temporary folder.
 */
describe('hostile repository trees', function () {
  this.timeout(300_000);
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-hostile-tree-'))));
  // rm -rf removes a tree of any depth (fs.rmSync stops at the system's path length).
  afterEach(() => dir && execFileSync('rm', ['-rf', '--', dir]));

  for (const executor of ['local', 'docker'] as const) {
    it(`attack: a 3,000-deep folder gives its task an error verdict; the run scores the other task and leaves nothing behind (${executor} executor)`, async function () {
      let dockerHost: Record<string, string> = {};
      if (executor === 'local' && !hasTool('go', ['version'])) skipBecause(this, 'go is not installed (the local executor runs Go tests with it)');
      if (executor === 'docker') {
        dockerHost = { DOCKER_HOST: (await engineForTests(this)).endpoint };
        await languageImageForTests(this, 'go');
      }
      const repos = path.join(dir, 'repos');
      const tasks = [goRepository(repos, 'plain', 1), goRepository(repos, 'deep', 2)];
      deepTree(path.join(repos, 'deep'));
      const tasksFile = path.join(dir, 'tasks.jsonl');
      writeJsonl(tasksFile, tasks);
      const gens = path.join(dir, 'gens.jsonl');
      writeJsonl(gens, [{ task_id: 1, language: 'go', test_code: GO_TEST }, { task_id: 2, language: 'go', test_code: GO_TEST }]);
      // The run's own memory folder (where sandboxes go when one exists) and temporary folder, to see what is left in them.
      const memory = fs.existsSync('/dev/shm') ? fs.mkdtempSync(path.join('/dev/shm', 'xrt-hostile-tree-')) : path.join(dir, 'memory');
      const tmp = path.join(dir, 'tmp');
      fs.mkdirSync(memory, { recursive: true });
      fs.mkdirSync(tmp);
      try {
        const results = path.join(dir, 'results.jsonl');
        const r = spawnSync(process.execPath, [CLI, 'run', tasksFile, '--tests', gens, '--repos', repos, '--executor', executor, '--out', results, '--no-progress'], {
          encoding: 'utf8',
          timeout: 240_000,
          env: { ...process.env, ...dockerHost, XREPOTEST_SANDBOX_DIR: memory, TMPDIR: tmp },
        });
        assert.equal(r.status, 0, r.stderr);
        const rows = fs.readFileSync(results, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as ResultRecord);
        const byTask = new Map(rows.map((row) => [row.task_id, row]));
        assert.equal(rows.length, 2, r.stderr);
        assert.equal(byTask.get(1)?.checks[0].tests, true, JSON.stringify(byTask.get(1)?.xrt));
        const deep = byTask.get(2)!;
        assert.equal(deep.checks[0].compilation, false);
        assert.equal(deep.xrt.failure_category, 'environment');
        assert.match(String(deep.xrt.reason), /cannot be copied.*deep.*limit/);
        assert.deepEqual(listing(memory), [], 'nothing left in the memory folder');
        assert.deepEqual(listing(tmp).filter((n) => n.startsWith('xrt-')), [], `nothing left in the temporary folder: ${listing(tmp).join(', ')}`);
      } finally {
        execFileSync('rm', ['-rf', '--', memory]);
      }
    });
  }

  it("attack: a test that leaves a 3,000-deep tree in its sandbox: the sandbox is still removed, nothing left", async () => {
    const parent = path.join(dir, 'parent');
    fs.mkdirSync(parent);
    const task = goRepository(path.join(dir, 'repos'), 'plain', 1);
    const sandbox = createSandbox(path.join(dir, 'repos', 'plain'), task, ['go.mod'], parent);
    deepTree(sandbox.dir);
    removeSandbox(sandbox);
    await sandboxRemovalsDone();
    assert.deepEqual(listing(parent), []);
    const trash = `xrt-trash-ns${pidNamespace()}-${process.pid}-`;
    assert.deepEqual(fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith(trash)), [], 'no trash of this process left in the temporary folder');
  });

  it("attack: a killed run's sandbox holding a 3,000-deep tree is reaped by the next run", () => {
    const parent = path.join(dir, 'parent');
    fs.mkdirSync(parent);
    const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const stale = path.join(parent, `xrt-sandbox-ns${pidNamespace()}-${child.stdout}-aaaaaa`);
    fs.mkdirSync(stale);
    deepTree(stale);
    assert.equal(reapStaleSandboxes(parent), 1);
    assert.deepEqual(listing(parent), []);
  });
});
