import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { fetchDataset, type FetchEvent } from '../../src/engine/dataset/fetch';
import { releasePath } from '../../src/engine/dataset/files';
import { LOCK_FILE, readLock, writeLock } from '../../src/engine/dataset/lock';
import { createSandbox, focalPathInRepo } from '../../src/engine/execute/sandbox';
import { loadTasks, type LoadedTask } from '../../src/engine/tasks/load';
import { checkTasks, locateCheckout } from '../../src/engine/tasks/manifest';
import type { TaskRecord } from '../../src/engine/tasks/record';
import { focalFileIn, resolveInside, TaskPathError, taskPathProblem } from '../../src/engine/tasks/task-path';
import { focalSourceIn } from '../../src/engine/store/checkout-map';
import { runCli } from '../helpers/dataset-cli';
import { CLI } from '../helpers/paths';

/** A folder's every path and byte, hashed: equal before and after means nothing was written there. */
function treeHash(dir: string): string {
  const h = createHash('sha256');
  const walk = (d: string): void => {
    for (const name of fs.readdirSync(d).sort()) {
      const p = path.join(d, name);
      const st = fs.lstatSync(p);
      h.update(`${path.relative(dir, p)}\0${st.mode}\0`);
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) h.update(fs.readFileSync(p));
    }
  };
  walk(dir);
  return h.digest('hex');
}

const GO_SOURCE = 'package victim\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n';

function goTask(filePath: string, extra: Partial<TaskRecord> = {}): TaskRecord {
  return {
    task_id: 1,
    function_name: 'Add',
    file_path: filePath,
    focal_code: 'func Add(a, b int) int {\n\treturn a + b\n}',
    file_content: GO_SOURCE,
    language: 'go',
    function_component: { name: 'Add', signature: 'func Add(a, b int) int', start_line: 3, end_line: 5 },
    metadata: { package: 'victim', class_name: '', class_signature: '' },
    ...extra,
  };
}

function cli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const HOSTILE_PATHS: Array<[string, RegExp]> = [
  ['repo/../../victim/victim.go', /"\.\." segment/],
  ['../victim/victim.go', /"\.\." segment/],
  ['/etc/victim/victim.go', /is absolute/],
  ['repo//victim.go', /empty segment/],
  ['repo/victim.go/', /empty segment/],
  ['repo/./victim.go', /"\." segment/],
  ['repo\\..\\..\\victim.go', /backslash/],
  ['repo/vic\u0000tim.go', /NUL/],
  ['repo/victim\n.go', /control character/],
  ['victim.go', /no repository folder/],
  ['C:/victim/victim.go', /drive letter/],
  ['', /is empty/],
];

describe('hostile datasets: paths are input, not instructions', function () {
  this.timeout(180_000);
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-hostile-dataset-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('names every bad file_path shape, and accepts ordinary ones', () => {
    for (const [p, why] of HOSTILE_PATHS) assert.match(taskPathProblem(p) ?? 'accepted', why, JSON.stringify(p));
    for (const ok of ['repo/a.go', 'go-master/structure/stack/stack.go', 'MiniStats.jl/src/MiniStats.jl', 'repo/..hidden/a.go', 'repo/a..b.go']) {
      assert.equal(taskPathProblem(ok), null, ok);
    }
  });

  it('refuses hostile records at load time, naming the file, the line and the rule; the good ones still load', async () => {
    const file = path.join(dir, 'tasks.jsonl');
    const records = [goTask('repo/victim.go'), ...HOSTILE_PATHS.map(([p]) => goTask(p)), goTask('repo/victim.go', { repository: { name: '../up', url: '/x', commit: null } })];
    fs.writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const { tasks, problems } = await loadTasks([file]);
    assert.equal(tasks.length, 1);
    assert.equal(tasks[0].line, 1);
    // '' is caught by the schema (minLength); every other one by the path rule, each on its own line.
    assert.equal(problems.length, HOSTILE_PATHS.length + 1);
    for (const [i, [p, why]] of HOSTILE_PATHS.entries()) {
      const problem = problems.find((x) => x.line === i + 2);
      assert.ok(problem, `line ${i + 2} (${JSON.stringify(p)}) is reported`);
      assert.equal(problem.file, file);
      if (p !== '') assert.match(problem.message, new RegExp(`refused: file_path .*${why.source}.*relative, '/'-separated.*Fix or drop this record`));
    }
    assert.match(problems.find((x) => x.line === HOSTILE_PATHS.length + 2)!.message, /repository\.name "\.\.\/up" is not a single folder name/);
  });

  it('`inspect` lists each refused record with its line and still counts the rest', () => {
    const file = path.join(dir, 'tasks.jsonl');
    fs.writeFileSync(file, [goTask('repo/victim.go'), goTask('repo/../../etc/passwd'), goTask('/abs/x.go')].map((r) => JSON.stringify(r)).join('\n') + '\n');
    const r = cli(['inspect', file]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^1 tasks/m);
    assert.match(r.stderr, new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: refused: file_path "repo/\\.\\./\\.\\./etc/passwd" has a "\\.\\." segment`));
    assert.match(r.stderr, /:3: refused: file_path "\/abs\/x\.go" is absolute/);
  });

  it('a record that skipped the loader still cannot name a file outside: the sandbox refuses before copying anything', () => {
    const repo = path.join(dir, 'repos', 'repo');
    const victim = path.join(dir, 'victim');
    fs.mkdirSync(repo, { recursive: true });
    fs.mkdirSync(victim);
    fs.writeFileSync(path.join(victim, 'victim.go'), GO_SOURCE);
    const before = treeHash(dir);
    const task = goTask('repo/../../victim/victim.go');
    assert.throws(() => focalPathInRepo(task), TaskPathError);
    const parent = path.join(dir, 'sandboxes');
    fs.mkdirSync(parent);
    assert.throws(() => createSandbox(repo, task, ['go.mod'], parent), /file_path "repo\/\.\.\/\.\.\/victim\/victim\.go" has a "\.\." segment/);
    assert.deepEqual(fs.readdirSync(parent), []);
    fs.rmdirSync(parent);
    assert.equal(treeHash(dir), before);
    assert.throws(() => resolveInside(repo, '../victim/victim.go'), TaskPathError);
    assert.throws(() => focalFileIn(repo, '/etc/passwd'), TaskPathError);
    // A results file is input too: the annotator shows such a row from its own copy, never the file outside.
    assert.deepEqual(focalSourceIn(repo, task), { kind: 'task', why: 'its file_path has a ".." segment' });
  });

  it('`run` with a file_path leaving the checkout writes nothing outside (the test would have been placed beside the victim)', () => {
    const repos = path.join(dir, 'repos');
    const repo = path.join(repos, 'repo');
    const victim = path.join(dir, 'victim');
    fs.mkdirSync(repo, { recursive: true });
    fs.writeFileSync(path.join(repo, 'go.mod'), 'module example.com/repo\n\ngo 1.21\n');
    fs.mkdirSync(victim);
    fs.writeFileSync(path.join(victim, 'victim.go'), GO_SOURCE);
    fs.writeFileSync(path.join(victim, 'go.mod'), 'module example.com/victim\n\ngo 1.21\n');
    // Enough '..' to reach '/' from the checkout and from the sandbox alike: both then name the victim.
    const climb = `repo/${'../'.repeat(24)}${victim.slice(1)}/victim.go`;
    const tasks = path.join(dir, 'tasks.jsonl');
    fs.writeFileSync(tasks, JSON.stringify(goTask(climb)) + '\n');
    const gens = path.join(dir, 'gens.jsonl');
    fs.writeFileSync(gens, JSON.stringify({ task_id: 1, language: 'go', test_code: 'package victim\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {}\n' }) + '\n');
    const before = treeHash(victim);
    const r = cli(['run', tasks, '--tests', gens, '--repos', repos, '--executor', 'local', '--no-progress']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /tasks\.jsonl:1: refused: file_path "repo\/\.\.\/\.\.\/.*\/victim\/victim\.go" has a "\.\." segment/);
    assert.equal(treeHash(victim), before, 'the victim folder is unchanged');
    assert.deepEqual(fs.readdirSync(repo), ['go.mod']);
  });

  describe("a record's own repository.path / url", () => {
    let victim: string;
    let repos: string;
    let task: LoadedTask;
    beforeEach(() => {
      // A host folder the dataset names as "the checkout": copied into the sandbox, it would be readable by the test.
      victim = path.join(dir, 'home', 'victim');
      fs.mkdirSync(victim, { recursive: true });
      fs.writeFileSync(path.join(victim, 'victim.go'), GO_SOURCE);
      fs.writeFileSync(path.join(victim, 'secret.txt'), 'the host secret\n');
      repos = path.join(dir, 'repos');
      fs.mkdirSync(repos);
      task = { task: goTask('victim/victim.go', { repository: { name: 'victim', url: victim, commit: null, path: victim } }), language: 'go', file: 'x.jsonl', line: 1 };
    });

    it('is never used when --repos or --manifest says where checkouts are', () => {
      const found = locateCheckout(task, { reposRoot: repos, allowRecorded: dir });
      assert.equal(found.checkout, null);
      assert.match(found.reason!, /no checkout of victim in .*repos\/victim \(--repos\).*never used when --repos or --manifest is given/);
      const manifestFile = path.join(dir, 'manifest.json');
      fs.writeFileSync(manifestFile, JSON.stringify({ repositories: {} }));
      const checked = checkTasks([task], { file: manifestFile, manifest: { repositories: {} } });
      assert.equal(checked.usable.length, 0);
      assert.match(checked.excluded[0].reason, /in the manifest .*manifest\.json/);
    });

    it('is refused without --allow-checkouts, and the refusal says which flag to pass', () => {
      const found = locateCheckout(task, {});
      assert.equal(found.checkout, null);
      assert.match(found.reason!, /pass --repos DIR \(DIR\/victim is the checkout\) or --manifest FILE; the dataset names .*victim as its checkout, which is used only with --allow-checkouts/);
      const viaUrl = { ...task, task: { ...task.task, repository: { name: 'victim', url: victim, commit: null } } };
      assert.equal(locateCheckout(viaUrl, {}).checkout, null, 'a local url is a path too');
    });

    it('is refused outside the allowed folder, links followed', () => {
      const allowed = path.join(dir, 'checkouts');
      fs.mkdirSync(allowed);
      assert.match(locateCheckout(task, { allowRecorded: allowed }).reason!, /refused: the dataset names .*victim as the checkout of victim, which is outside --allow-checkouts/);
      // A link inside the allowed folder that leads out of it does not make the victim allowed.
      fs.symlinkSync(victim, path.join(allowed, 'victim'));
      const viaLink = { ...task, task: { ...task.task, repository: { name: 'victim', url: 'x', commit: null, path: path.join(allowed, 'victim') } } };
      assert.match(locateCheckout(viaLink, { allowRecorded: allowed }).reason!, /outside --allow-checkouts/);
      // Inside it, it is used.
      assert.equal(locateCheckout(task, { allowRecorded: path.join(dir, 'home') }).checkout, victim);
    });

    it('`bench --repos` with a record naming a host folder runs nothing there and says why', () => {
      const tasks = path.join(dir, 'tasks.jsonl');
      fs.writeFileSync(tasks, JSON.stringify(task.task) + '\n');
      const runDir = path.join(dir, 'run');
      const before = treeHash(victim);
      const r = cli(['bench', '--dataset', tasks, '--repos', repos, '--provider', 'baseline', '--executor', 'local', '--run-dir', runDir, '--no-progress']);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /no task can run/);
      const excluded = fs.readFileSync(path.join(runDir, 'excluded.jsonl'), 'utf8');
      assert.match(excluded, /never used when --repos or --manifest is given/);
      assert.ok(!fs.existsSync(path.join(runDir, 'results.jsonl')), 'no result scored against the host folder');
      assert.equal(treeHash(victim), before);
    });
  });
});

/**
 * A mirror that answers every file with a chunked body of `total` bytes (so no Content-Length bounds
 * it), declaring `declare` bytes in X-Linked-Size when given. It writes with backpressure and stops
 * when the client goes away, so `sent` is what the client took in (plus the sockets' buffers).
 */
class OversizedMirror {
  sent = 0;
  requests = 0;
  endpoint = '';
  private server!: http.Server;

  constructor(private readonly total: number, private readonly declare?: number) {}

  async start(): Promise<this> {
    this.server = http.createServer((_req, res) => void this.answer(res));
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.endpoint = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  private async answer(res: http.ServerResponse): Promise<void> {
    this.requests++;
    res.writeHead(200, { 'x-repo-commit': 'd'.repeat(40), ...(this.declare !== undefined ? { 'x-linked-size': String(this.declare) } : {}) });
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let gone = false;
    res.on('close', () => (gone = true));
    for (let n = 0; n < this.total && !gone; n += chunk.length) {
      this.sent += chunk.length;
      if (res.write(chunk)) continue;
      await new Promise<void>((resolve) => {
        const go = (): void => (res.off('drain', go), res.off('close', go), resolve());
        res.on('drain', go).on('close', go);
      });
    }
    if (!gone) res.end();
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

describe('hostile dataset mirrors: a file is no bigger than declared, nor than the cap', function () {
  this.timeout(180_000);
  const MIB = 1024 * 1024;
  const FILE = releasePath('go', 'base');
  let dir: string;
  let mirror: OversizedMirror | undefined;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-hostile-mirror-'));
  });
  afterEach(async () => {
    await mirror?.stop();
    mirror = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Fetches the Go base file from the mirror; returns the error and the most bytes the download ever held. */
  async function fetchFrom(m: OversizedMirror, extra: Record<string, unknown> = {}): Promise<{ error: Error; mostHeld: number }> {
    let mostHeld = 0;
    const onEvent = (e: FetchEvent): void => void (e.type === 'bytes' && (mostHeld = Math.max(mostHeld, e.done)));
    // A plain variable, not a literal: the options this test passes are checked at run time, where the attack is.
    const opts = { dir, endpoint: m.endpoint, languages: ['go' as const], kinds: ['base' as const], retries: 2, retryDelayMs: 10, onEvent, ...extra };
    const error = await fetchDataset(opts).then(
      (r) => new Error(`fetched: ${JSON.stringify(r.files.map((f) => [f.path, f.size]))}`),
      (e: Error) => e,
    );
    return { error, mostHeld };
  }

  /** Nothing that a later run could take for the file: not at its path, no partial, not in the lock (unless it was before). */
  function nothingLeft(lockedBefore = false): void {
    assert.ok(!fs.existsSync(path.join(dir, FILE)), 'no file at the release path');
    assert.ok(!fs.existsSync(path.join(dir, `${FILE}.partial`)), 'no partial download');
    assert.ok(!fs.existsSync(path.join(dir, `${FILE}.partial.json`)), 'no partial identity');
    if (!lockedBefore) assert.ok(!(readLock(dir)?.files ?? []).some((f) => f.path === FILE), 'not in the lock');
  }

  it('stops at the 1,000 bytes a mirror declared when it streams 64 MiB, and refuses naming the file and both sizes', async () => {
    mirror = await new OversizedMirror(64 * MIB, 1000).start();
    const { error, mostHeld } = await fetchFrom(mirror);
    assert.match(error.message, new RegExp(`^${FILE.replace(/\./g, '\\.')}: the server sent more than the 1000 bytes it declared`), error.message);
    assert.ok(mostHeld <= 1000, `the download held ${mostHeld} bytes`);
    assert.ok(mirror.sent < 16 * MIB, `the mirror got ${mirror.sent} bytes out before it was cut off`);
    assert.equal(mirror.requests, 1, 'refused, not retried');
    nothingLeft();
  });

  it('stops at the size the lock records when the mirror declares none', async () => {
    writeLock(dir, { dataset: 'solis-soict/xrepotest', revision: 'main', commit: 'd'.repeat(40), files: [{ path: FILE, size: 1000, sha256: 'e'.repeat(64) }] });
    const lock = fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8');
    mirror = await new OversizedMirror(64 * MIB).start();
    const { error, mostHeld } = await fetchFrom(mirror);
    assert.match(error.message, /go_functions\.jsonl: the server sent more than the 1000 bytes the lock records/, error.message);
    assert.ok(mostHeld <= 1000, `the download held ${mostHeld} bytes`);
    assert.ok(mirror.sent < 16 * MIB, `the mirror got ${mirror.sent} bytes out`);
    nothingLeft(true);
    assert.equal(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8'), lock, 'the lock is as it was');
  });

  it('stops at the cap when the mirror declares no size, and refuses a declared size over the cap before downloading', async () => {
    mirror = await new OversizedMirror(64 * MIB).start();
    const undeclared = await fetchFrom(mirror, { maxFileBytes: 4 * MIB });
    assert.match(undeclared.error.message, /go_functions\.jsonl: the server sent more than the cap of 4194304 bytes for one file \(--max-file-mb\) and declared no size/, undeclared.error.message);
    assert.ok(undeclared.mostHeld <= 4 * MIB, `the download held ${undeclared.mostHeld} bytes`);
    assert.ok(mirror.sent < 20 * MIB, `the mirror got ${mirror.sent} bytes out`);
    nothingLeft();
    await mirror.stop();

    mirror = await new OversizedMirror(64 * MIB, 64 * MIB).start();
    const declared = await fetchFrom(mirror, { maxFileBytes: 4 * MIB });
    assert.match(declared.error.message, /go_functions\.jsonl: the server declares 67108864 bytes, over the cap of 4194304 bytes for one file \(raise --max-file-mb/, declared.error.message);
    assert.equal(declared.mostHeld, 0, 'nothing was downloaded');
    nothingLeft();
  });

  it('`dataset fetch --max-file-mb` sets the cap, and the refusal exits 1', async () => {
    mirror = await new OversizedMirror(64 * MIB).start();
    const r = await runCli(['dataset', 'fetch', '--dir', dir, '--endpoint', mirror.endpoint, '--lang', 'go', '--kinds', 'base', '--max-file-mb', '2', '--no-progress'], {});
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /go_functions\.jsonl: the server sent more than the cap of 2097152 bytes for one file/);
    assert.ok(mirror.sent < 18 * MIB, `the mirror got ${mirror.sent} bytes out`);
    nothingLeft();
  });
});
