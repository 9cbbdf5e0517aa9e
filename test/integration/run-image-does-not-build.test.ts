import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { extractRepository } from '../../src/engine/extract/extract';
import { FOCAL_OF, generatedTest } from '../helpers/evaluate';
import { engineForTests, languageImageForTests, stopTestEngine } from '../helpers/engine';
import { CLI, fixture } from '../helpers/paths';
import { skipBecause } from '../helpers/skip';

after(stopTestEngine);

/*
 * Issue 32, item 5: `bench --executor docker` wrote the `image-does-not-build` row for a repository
 * whose environment image cannot be built; `run --executor docker` wrote no row at all (it stopped).
 * Both verbs, as a user runs them (the bundled CLI), on a copy of the Go fixture whose go.mod requires
 * a module no proxy can serve (as test/integration/image-build-cleanup.test.ts provokes the failure):
 * `go mod download` fails in the environment image's build.
 */

interface Row {
  checks: Array<{ compiles: boolean; tests: boolean }>;
  xrt: { failure_category: string | null; failure_rule: string | null; reason: string | null };
}

function cli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function rows(file: string): Row[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Row);
}

function assertImageRow(r: Row, log: string): void {
  assert.equal(r.xrt.failure_rule, 'image-does-not-build', log);
  assert.equal(r.xrt.failure_category, 'environment');
  assert.match(r.xrt.reason ?? '', /the go environment image for inventory-go does not build/);
  assert.equal(r.checks[0].tests, false);
}

describe('a repository whose environment image cannot be built: both verbs write the row (issue 32, item 5)', function () {
  this.timeout(15 * 60_000);
  let root: string;
  let tasksFile: string;
  let env: Record<string, string>;

  before(async function () {
    if (!fs.existsSync(CLI)) skipBecause(this, 'dist/cli.js is not built (npm run build)');
    const engine = await engineForTests(this);
    await languageImageForTests(this, 'go');
    // The CLI finds the engine the tests use (it may be the Podman service this run started).
    env = { DOCKER_HOST: engine.endpoint };
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-noimage-'));
    const repo = path.join(root, 'inventory-go');
    fs.cpSync(fixture('inventory-go'), repo, { recursive: true });
    fs.appendFileSync(path.join(repo, 'go.mod'), '\nrequire xrepotest.invalid/none v1.0.0\n');
    const { tasks } = await extractRepository(repo, { repository: { name: 'inventory-go', url: repo, commit: null, path: repo } });
    const task = tasks.find((t) => t.function_name === FOCAL_OF.go);
    assert.ok(task, 'the Go fixture keeps its focal function');
    tasksFile = path.join(root, 'tasks.jsonl');
    fs.writeFileSync(tasksFile, JSON.stringify(task) + '\n');
  });
  after(() => {
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it('run --executor docker: one row per slot, image-does-not-build, out of N', async () => {
    const tests = path.join(root, 'tests.jsonl');
    const task = JSON.parse(fs.readFileSync(tasksFile, 'utf8')) as { task_id: number };
    fs.writeFileSync(tests, JSON.stringify({ task_id: task.task_id, language: 'go', test_code: generatedTest('go', 'pass') }) + '\n');
    const out = path.join(root, 'run-results.jsonl');
    const r = await cli(['run', tasksFile, '--tests', tests, '--executor', 'docker', '--allow-checkouts', root, '--out', out, '--no-progress'], env);
    const log = `exit ${r.code}\n${r.stderr.slice(-3000)}`;
    assert.ok(fs.existsSync(out), log);
    const written = rows(out);
    assert.equal(written.length, 1, log);
    assertImageRow(written[0], log);
    assert.equal(r.code, 0, log);
  });

  it('bench --executor docker: the same row', async () => {
    const runDir = path.join(root, 'bench');
    const r = await cli(['bench', '--dataset', tasksFile, '--run-dir', runDir, '--executor', 'docker', '--allow-checkouts', root, '--provider', 'baseline', '--no-progress'], env);
    const log = `exit ${r.code}\n${r.stderr.slice(-3000)}`;
    const results = path.join(runDir, 'results.jsonl');
    assert.ok(fs.existsSync(results), log);
    const written = rows(results);
    assert.equal(written.length, 1, log);
    assertImageRow(written[0], log);
  });
});
