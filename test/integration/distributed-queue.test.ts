import * as assert from 'node:assert';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Job, Queue } from 'bullmq';
import { newRunKey, RUN_KEY_ENV, RunKey, seal } from '../../src/engine/distributed/run-key';
import { generateQueueName } from '../../src/engine/distributed/generate-queue';
import { JOB_FORMAT, QUEUE_PREFIX, queueName } from '../../src/engine/distributed/task-job';
import { CLI, REPO_ROOT } from '../helpers/paths';
import { exited, waitFor } from '../helpers/processes';
import { fixtureSources } from '../helpers/git-sources';
import { hasRedis, startRedis, type TestRedis } from '../helpers/redis';
import { freePort } from '../helpers/registry';
import { skipBecause } from '../helpers/skip';

/*
 * Issue 16: the benchmark on BullMQ over a real redis-server, with real worker processes fetching the
 * tasks' code from git URLs (bare repositories made here from the fixtures). What must hold: the
 * run folder a distributed run writes is the local run's (same summary, same result keys), a killed
 * worker's task is taken over and recorded once, a killed coordinator resumes, and a hostile job runs
 * nothing. Every process of a run shares its run key (XREPOTEST_RUN_KEY, inherited); the workers fetch
 * from the file:// repositories made here, which they are told they may (--allow-source).
 */

const DATASET = path.join(REPO_ROOT, 'examples', 'fixtures', 'tasks.jsonl');
const MANIFEST = path.join(REPO_ROOT, 'examples', 'fixtures', 'manifest.json');
const LANGS = 'go,php';
const REPOS = ['inventory-go', 'textkit-php'];

interface Keyed {
  id: string;
  xrt: { sample: number; round: number; test_hash: string };
}

function resultKeys(runDir: string): string[] {
  const file = path.join(runDir, 'results.jsonl');
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Keyed)
    .map((r) => [r.id, r.xrt.sample, r.xrt.round, r.xrt.test_hash].join('|'))
    .sort();
}


describe('distributed benchmark: BullMQ on a real Redis (bench --queue, xrepotest worker)', function () {
  this.timeout(900_000);
  let redis: TestRedis;
  let work: string;
  let sourcesFile: string;
  let localRun: string;
  const children = new Set<ChildProcess>();

  const cliProcess = (args: string[], log: string): ChildProcess => {
    // Its own process group: a kill takes its sandboxes' processes with it, as a lost machine would.
    const p = spawn(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, detached: true, stdio: ['ignore', fs.openSync(log, 'a'), fs.openSync(log, 'a')] });
    children.add(p);
    p.once('exit', () => children.delete(p));
    return p;
  };
  const killGroup = (p: ChildProcess, signal: NodeJS.Signals): void => {
    try {
      process.kill(-p.pid!, signal);
    } catch {
      // gone already
    }
  };
  const allowWork = (): string[] => ['--allow-source', `file://${work}/`];
  const worker = (name: string, extra: string[] = []): ChildProcess =>
    cliProcess(['worker', '--queue', redis.url, '--executor', 'local', '--languages', LANGS, '--stalled-after', '10', '--cache-dir', path.join(work, 'cache'), ...allowWork(), ...extra], path.join(work, `${name}.log`));
  const coordinator = (runDir: string): ChildProcess =>
    cliProcess(['bench', '--dataset', DATASET, '--lang', LANGS, '--executor', 'local', '--queue', redis.url, '--sources', sourcesFile, '--run-dir', runDir, '--no-progress'], `${runDir}.log`);
  const logOf = (name: string): string => (fs.existsSync(path.join(work, name)) ? fs.readFileSync(path.join(work, name), 'utf8') : '');

  before(async function () {
    if (!hasRedis()) skipBecause(this, 'redis-server is not installed (scripts/setup.sh installs it)');
    if (!fs.existsSync(CLI)) skipBecause(this, 'dist/cli.js is not built (npm run build)');
    process.env[RUN_KEY_ENV] = newRunKey(); // the coordinators' and the workers' (inherited)
    redis = await startRedis();
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-queue-'));
    // Each fixture as a repository a worker fetches by URL at a commit (never from this folder); the PHP
    // one in a folder of a bigger repository, the Go one with its tests marked export-ignore.
    sourcesFile = fixtureSources(work, REPOS, ['textkit-php']).file;
    // The reference: the same tasks run locally from the fixtures.
    localRun = path.join(work, 'local');
    const r = spawnSync(process.execPath, [CLI, 'bench', '--dataset', DATASET, '--manifest', MANIFEST, '--lang', LANGS, '--executor', 'local', '--run-dir', localRun, '--no-progress'], { cwd: REPO_ROOT, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  });

  afterEach(async () => {
    for (const p of [...children]) {
      killGroup(p, 'SIGKILL');
      await exited(p);
    }
    // Nothing of one test's run may serve the next: every queue emptied.
    const connection = { host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null };
    for (const language of ['go', 'php']) {
      const q = new Queue(queueName(language as 'go'), { connection, prefix: QUEUE_PREFIX });
      await q.obliterate({ force: true });
      await q.close();
    }
  });

  after(async () => {
    delete process.env[RUN_KEY_ENV];
    await redis?.stop();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('three workers write the local run\'s summary and result keys; the workers ran every task', async () => {
    worker('w1');
    worker('w2');
    worker('w3');
    const runDir = path.join(work, 'two-workers');
    const code = await exited(coordinator(runDir));
    assert.equal(code, 0, logOf('two-workers.log'));
    assert.equal(fs.readFileSync(path.join(runDir, 'summary.json'), 'utf8'), fs.readFileSync(path.join(localRun, 'summary.json'), 'utf8'), 'the same summary as the local run');
    const keys = resultKeys(runDir);
    assert.deepStrictEqual(keys, resultKeys(localRun), 'the same result keys, each once');
    assert.equal(new Set(keys).size, keys.length);
    // Collected jobs are removed: nothing is left for a later run to mistake for its own.
    const q = new Queue(queueName('go'), { connection: { host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null }, prefix: QUEUE_PREFIX });
    const counts = await q.getJobCounts('waiting', 'active', 'completed', 'failed');
    await q.close();
    assert.deepStrictEqual([counts.waiting, counts.active, counts.completed, counts.failed], [0, 0, 0, 0]);
    // The workers ran the tasks (each says so per task), the coordinator none.
    const done = (log: string): number => (logOf(log).match(/^task \S+ done in /gm) ?? []).length;
    assert.equal(done('w1.log') + done('w2.log') + done('w3.log'), keys.length, `${logOf('w1.log')}\n${logOf('w2.log')}\n${logOf('w3.log')}`);
    assert.match(logOf('two-workers.log'), /tasks go to the workers on redis:\/\/127\.0\.0\.1/);
    // The workers' trees hold every file of the commit, export-ignore'd ones too (the package's own tests).
    const trees = path.join(work, 'cache', 'trees');
    const goTree = fs.readdirSync(trees).map((d) => path.join(trees, d, 'inventory-go')).find((d) => fs.existsSync(d));
    assert.ok(goTree && fs.existsSync(path.join(goTree, 'inventory_test.go')), 'inventory_test.go is in the worker\'s tree');
    const phpTree = fs.readdirSync(trees).map((d) => path.join(trees, d, 'textkit-php')).find((d) => fs.existsSync(d));
    assert.ok(phpTree && fs.existsSync(path.join(phpTree, 'composer.json')), 'the PHP package is the tree\'s root (its folder in the bigger repository)');
  });

  it('a worker killed (SIGKILL) in the middle of a task leaves it to another worker, and the slot is recorded once', async () => {
    const first = worker('killed');
    const runDir = path.join(work, 'killed-worker');
    const coord = coordinator(runDir);
    const q = new Queue(queueName('go'), { connection: { host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null }, prefix: QUEUE_PREFIX });
    try {
      await waitFor('a go task running on the first worker', 120_000, async () => ((await q.getJobCounts('active')).active > 0 ? true : undefined));
    } finally {
      await q.close();
    }
    killGroup(first, 'SIGKILL');
    await exited(first);
    worker('takes-over');
    const code = await exited(coord);
    assert.equal(code, 0, logOf('killed-worker.log'));
    const keys = resultKeys(runDir);
    assert.deepStrictEqual(keys, resultKeys(localRun), 'every slot recorded, once');
    assert.equal(fs.readFileSync(path.join(runDir, 'summary.json'), 'utf8'), fs.readFileSync(path.join(localRun, 'summary.json'), 'utf8'));
  });

  it('SIGTERM stops a worker gracefully: its running task finishes and is recorded, no new one starts', async () => {
    const stopping = worker('graceful');
    const runDir = path.join(work, 'graceful');
    const coord = coordinator(runDir);
    // Stopped in the middle of the run: after its first task, with others running or waiting.
    await waitFor('a first task done on the worker', 120_000, () => (/^task \S+ done in /m.test(logOf('graceful.log')) ? true : undefined));
    // As a service manager or `docker stop` does: the worker's pid, not its group (a terminal's Ctrl-C
    // reaches the group; there the worker runs in a group of its own, docs/distributed.md).
    stopping.kill('SIGTERM');
    assert.equal(await exited(stopping), 0, logOf('graceful.log'));
    const said = logOf('graceful.log');
    assert.match(said, /stopping: running tasks finish first/);
    const finished = (said.match(/^task \S+ done in /gm) ?? []).length;
    assert.ok(finished >= 1, said);
    assert.match(said, new RegExp(`stopped after ${finished} tasks`));
    worker('after-graceful');
    assert.equal(await exited(coord), 0, logOf('graceful.log'));
    assert.deepStrictEqual(resultKeys(runDir), resultKeys(localRun), 'every slot recorded, once');
    // The task running at the stop was scored as any other (its sandbox's processes are not the worker's group).
    assert.equal(fs.readFileSync(path.join(runDir, 'summary.json'), 'utf8'), fs.readFileSync(path.join(localRun, 'summary.json'), 'utf8'));
  });

  it('a coordinator killed mid-run resumes in the same folder: jobs finished meanwhile are collected once', async () => {
    worker('steady');
    const runDir = path.join(work, 'killed-coordinator');
    const coord = coordinator(runDir);
    await waitFor('a first result in the run folder', 180_000, () => (resultKeys(runDir).length > 0 ? true : undefined));
    killGroup(coord, 'SIGKILL');
    await exited(coord);
    const code = await exited(coordinator(runDir));
    assert.equal(code, 0, logOf('killed-coordinator.log'));
    const keys = resultKeys(runDir);
    assert.deepStrictEqual(keys, resultKeys(localRun), 'every slot recorded, once');
    assert.equal(fs.readFileSync(path.join(runDir, 'summary.json'), 'utf8'), fs.readFileSync(path.join(localRun, 'summary.json'), 'utf8'));
  });

  it('--mutation: the workers mutation-test passing tests, with the local run\'s mutation scores', async () => {
    const args = ['--dataset', DATASET, '--lang', 'php', '--limit', '2', '--mutation', '--executor', 'local', '--no-progress'];
    const local = path.join(work, 'mutation-local');
    const l = spawnSync(process.execPath, [CLI, 'bench', ...args, '--manifest', MANIFEST, '--run-dir', local], { cwd: REPO_ROOT, encoding: 'utf8' });
    assert.equal(l.status, 0, l.stderr);
    worker('mutation');
    const runDir = path.join(work, 'mutation-queue');
    const c = cliProcess(['bench', ...args, '--queue', redis.url, '--sources', sourcesFile, '--run-dir', runDir], `${runDir}.log`);
    assert.equal(await exited(c), 0, logOf('mutation-queue.log'));
    const mutation = (dir: string): Array<[string, unknown]> =>
      fs.readFileSync(path.join(dir, 'results.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { id: string; xrt: { mutation?: unknown } })).sort((a, b) => a.id.localeCompare(b.id)).map((r): [string, unknown] => [r.id, r.xrt.mutation]);
    const scored = mutation(runDir);
    assert.ok(scored.some(([, m]) => m && (m as { viable: number }).viable > 0), JSON.stringify(scored));
    assert.deepStrictEqual(scored, mutation(local));
    assert.equal(fs.readFileSync(path.join(runDir, 'summary.json'), 'utf8'), fs.readFileSync(path.join(local, 'summary.json'), 'utf8'));
  });

  it('--improve-rounds and --reruns go to the workers: the suites, rerun counts and summary of the local run', async () => {
    const args = ['--dataset', DATASET, '--lang', 'go', '--improve-rounds', '2', '--reruns', '1', '--executor', 'local', '--no-progress'];
    const local = path.join(work, 'improve-local');
    const l = spawnSync(process.execPath, [CLI, 'bench', ...args, '--manifest', MANIFEST, '--run-dir', local], { cwd: REPO_ROOT, encoding: 'utf8' });
    assert.equal(l.status, 0, l.stderr);
    worker('improve');
    const runDir = path.join(work, 'improve-queue');
    const c = cliProcess(['bench', ...args, '--queue', redis.url, '--sources', sourcesFile, '--run-dir', runDir], `${runDir}.log`);
    assert.equal(await exited(c), 0, logOf('improve-queue.log'));
    const slots = (dir: string): Array<[string, unknown, unknown]> =>
      fs.readFileSync(path.join(dir, 'results.jsonl'), 'utf8').split('\n').filter(Boolean)
        .map((line) => JSON.parse(line) as { id: string; xrt: { reruns?: unknown; suite?: { tests: number; test_hash: string; rounds: Array<{ kept: boolean; verdict: string }> } } })
        .sort((a, b) => a.id.localeCompare(b.id))
        .map((r): [string, unknown, unknown] => [r.id, r.xrt.reruns, r.xrt.suite && { tests: r.xrt.suite.tests, hash: r.xrt.suite.test_hash, verdicts: r.xrt.suite.rounds.map((x) => x.verdict) }]);
    const remote = slots(runDir);
    assert.ok(remote.some(([, , s]) => s && (s as { tests: number }).tests > 1), `a suite grew on a worker: ${JSON.stringify(remote)}`);
    assert.ok(remote.every(([, reruns]) => reruns), 'every passing slot was rerun');
    assert.deepStrictEqual(remote, slots(local));
    assert.equal(fs.readFileSync(path.join(runDir, 'summary.json'), 'utf8'), fs.readFileSync(path.join(local, 'summary.json'), 'utf8'));
  });

  it('Ctrl-C on a coordinator whose tasks wait for workers stops it (130), and the same command resumes once a worker comes', async () => {
    const runDir = path.join(work, 'interrupted');
    const first = coordinator(runDir);
    const q = new Queue(queueName('php'), { connection: { host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null }, prefix: QUEUE_PREFIX });
    try {
      await waitFor('the PHP tasks waiting for a worker', 60_000, async () => ((await q.getJobCounts('waiting')).waiting === 5 ? true : undefined));
    } finally {
      await q.close();
    }
    killGroup(first, 'SIGINT');
    assert.equal(await exited(first), 130, logOf('interrupted.log'));
    assert.match(logOf('interrupted.log'), /interrupted: 0 results are kept/);
    // Ten tasks wait at once: one abort listener for all of them, no warning, no unhandled rejection.
    assert.doesNotMatch(logOf('interrupted.log'), /MaxListenersExceeded|Unhandled|unhandled/);
    worker('after-interrupt');
    assert.equal(await exited(coordinator(runDir)), 0, logOf('interrupted.log'));
    assert.deepStrictEqual(resultKeys(runDir), resultKeys(localRun));
  });

  it('a Redis restart mid-run (append-only file on) loses no finished result, and the run completes', async () => {
    // A Redis of its own with persistence, as docs/distributed.md deploys it.
    const persistent = await startRedis({ appendOnly: true });
    const url = persistent.url;
    try {
      const w = cliProcess(['worker', '--queue', url, '--executor', 'local', '--languages', LANGS, '--stalled-after', '10', '--cache-dir', path.join(work, 'cache'), ...allowWork()], path.join(work, 'aof-worker.log'));
      const runDir = path.join(work, 'redis-restart');
      const coord = cliProcess(['bench', '--dataset', DATASET, '--lang', LANGS, '--executor', 'local', '--queue', url, '--sources', sourcesFile, '--run-dir', runDir, '--no-progress'], `${runDir}.log`);
      await waitFor('a first result in the run folder', 180_000, () => (resultKeys(runDir).length > 0 ? true : undefined));
      await persistent.restart();
      const code = await exited(coord);
      assert.equal(code, 0, `${logOf('redis-restart.log')}\n${logOf('aof-worker.log')}`);
      assert.deepStrictEqual(resultKeys(runDir), resultKeys(localRun), 'every slot recorded, once');
      killGroup(w, 'SIGKILL');
    } finally {
      await persistent.stop();
    }
  });

  it('a run\'s --rate-limit paces the model calls of all workers together; a worker sends its key to no server it was not started with, nor on a call it did not sign', async () => {
    // A local OpenAI-compatible server: it answers every call (with a test that need not pass) and notes when it came.
    const calls: number[] = [];
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        calls.push(Date.now());
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'c', object: 'chat.completion', model: 'm', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: '```php\n<?php\nfinal class NoTest {}\n```' } }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    try {
      const run = (runDir: string): ChildProcess =>
        cliProcess(['bench', '--dataset', DATASET, '--lang', 'php', '--executor', 'local', '--provider', 'openai-compatible', '--model', 'm', '--base-url', baseUrl, '--rate-limit', '1/2s', '--queue', redis.url, '--sources', sourcesFile, '--run-dir', runDir, '--no-progress'], `${runDir}.log`);
      // First a worker that was not told about this server: it refuses the run, and no call is made.
      worker('no-endpoint', ['--no-cache']);
      const refused = path.join(work, 'rate-refused');
      assert.equal(await exited(run(refused)), 1, logOf('rate-refused.log'));
      assert.match(logOf('rate-refused.log'), /sends its keys only to servers it was started with \(--base-url/);
      assert.equal(calls.length, 0, 'no call reached the server');
      for (const p of [...children]) killGroup(p, 'SIGKILL');

      // A model call written straight into the provider's queue by someone without the run key: the
      // workers serving that queue refuse it, and spend no key on it.
      const calls$ = new Queue(generateQueueName('openai-compatible'), { connection: { host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null }, prefix: QUEUE_PREFIX });
      const experiment = { provider: 'openai-compatible', model: 'm', baseUrl, mode: 'standard', temperature: 0, maxTokens: 64, topP: 1, k: 5, samples: 1, repairRounds: 0, mutation: false, executor: 'local' };
      await calls$.add('call', { experiment, request: { system: 's', messages: [{ role: 'user', content: 'spend their key' }], params: { model: 'm', temperature: 0, maxTokens: 64, topP: 1 } } }, { jobId: 'stranger-call', attempts: 1 });
      worker('paced-1', ['--no-cache', '--base-url', baseUrl]);
      worker('paced-2', ['--no-cache', '--base-url', baseUrl]);
      const runDir = path.join(work, 'rate-limited');
      assert.equal(await exited(run(runDir)), 0, logOf('rate-limited.log'));
      assert.equal(resultKeys(runDir).length, 5, 'the five PHP tasks, scored');
      assert.equal(calls.length, 5, 'one call per task');
      try {
        assert.equal(await calls$.getJobState('stranger-call'), 'failed');
        assert.match((await Job.fromId(calls$, 'stranger-call'))?.failedReason ?? '', /refused: the call it is not signed with a run key/);
      } finally {
        await calls$.close();
      }
      // BullMQ's limit is one call per 2 s window across both workers: five calls span at least four windows.
      const sorted = [...calls].sort((a, b) => a - b);
      assert.ok(sorted[4] - sorted[0] >= 4 * 2000 * 0.9, `calls at ${sorted.map((t) => t - sorted[0]).join(', ')} ms`);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a wrong password or an address where no Redis answers: the worker and the coordinator say so and exit 1, never hang', async () => {
    const locked = await startRedis({ password: 'the-right-one' });
    try {
      const cases: Array<[string, RegExp]> = [
        [`redis://:wrong@127.0.0.1:${locked.port}`, /refused the password: give the right one/],
        [`redis://127.0.0.1:${locked.port}`, /refused a connection without a password/],
        [`redis://127.0.0.1:${await freePort()}`, /no Redis answers at redis:\/\/127\.0\.0\.1:\d+\/0 within 5 s \(connect ECONNREFUSED/],
      ];
      for (const [url, message] of cases) {
        for (const args of [
          ['worker', '--queue', url, '--executor', 'local', '--languages', 'php'],
          ['bench', '--dataset', DATASET, '--lang', 'php', '--executor', 'local', '--queue', url, '--sources', sourcesFile, '--run-dir', path.join(work, 'unreachable'), '--no-progress'],
        ]) {
          // The timeout only guards against a hang; the answer comes from a 5 s check.
          const r = spawnSync(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 120_000, env: { ...process.env, XREPOTEST_REDIS_PASSWORD: '' } });
          assert.equal(r.status, 1, `${args[0]} ${url}: ${r.stderr}`);
          assert.match(r.stderr, message, `${args[0]} ${url}`);
        }
      }
    } finally {
      await locked.stop();
    }
  });

  it('hostile jobs run nothing, even signed with the run key: a helper transport URL, an option as URL, a path outside the repository, an unknown format; an unsigned one is refused', async () => {
    worker('hostile');
    const marker = path.join(work, 'pwned');
    const task = fs.readFileSync(DATASET, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>).find((t) => t.language === 'go')!;
    const commit = JSON.parse(fs.readFileSync(sourcesFile, 'utf8'))['inventory-go'].commit as string;
    const experiment = { provider: 'baseline', model: 'baseline', mode: 'standard', temperature: 0, maxTokens: 4096, topP: 1, k: 5, samples: 1, repairRounds: 0, mutation: false, executor: 'local' };
    const job = (over: Record<string, unknown>) => ({ format: JOB_FORMAT, run: 'hostile', task, source: { kind: 'git', url: `file://${work}/remote/inventory-go.git`, commit }, experiment, known: { generations: [], results: [] }, ...over });
    // A repository whose tree links a folder out of itself: the task's focal file "is" a file of the
    // worker's machine. Comparing it with file_content would tell the job's author what that file holds.
    const linky = path.join(work, 'linky-src', 'inventory-go');
    fs.mkdirSync(linky, { recursive: true });
    fs.symlinkSync('/etc', path.join(linky, 'leak'));
    spawnSync('git', ['init', '-q'], { cwd: linky });
    spawnSync('git', ['add', '-A'], { cwd: linky });
    spawnSync('git', ['-c', 'user.email=t@example.org', '-c', 'user.name=t', 'commit', '-qm', 'link'], { cwd: linky });
    const linkyCommit = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: linky, encoding: 'utf8' }).stdout.trim();
    const secret = fs.readFileSync('/etc/hostname', 'utf8');
    const attacks: Array<[string, Record<string, unknown>, RegExp]> = [
      ['linked-folder', job({ task: { ...task, file_path: 'inventory-go/leak/hostname', file_content: secret }, source: { kind: 'git', url: `file://${linky}`, commit: linkyCommit } }), /symbolic link|not a regular file/],
      ['ext-transport', job({ source: { kind: 'git', url: `ext::sh -c touch% ${marker}`, commit } }), /could not fetch|transport|protocol/i],
      ['option-url', job({ source: { kind: 'git', url: `--upload-pack=touch ${marker}`, commit } }), /no usable URL/],
      ['outside-path', job({ task: { ...task, file_path: '../../etc/passwd' } }), /file_path/],
      ['format', job({ format: 99 }), /format/],
    ];
    const q = new Queue(queueName('go'), { connection: { host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null }, prefix: QUEUE_PREFIX });
    try {
      // Signed as the coordinator signs: the checks behind the signature hold a key holder too.
      const key = new RunKey(process.env[RUN_KEY_ENV]!);
      for (const [id, data] of attacks) await q.add('task', seal(key, JOB_FORMAT, { kind: 'task-job', queue: queueName('go'), jobId: `attack-${id}` }, data).message, { jobId: `attack-${id}`, attempts: 1 });
      // And as written straight into Redis by someone without the key: refused before anything is read.
      await q.add('task', job({ source: { kind: 'git', url: `ext::sh -c touch% ${marker}`, commit } }), { jobId: 'attack-unsigned', attempts: 1 });
      attacks.push(['unsigned', {}, /not signed with a run key/]);
      for (const [id, , reason] of attacks) {
        const failed = await waitFor(`the ${id} job to fail`, 60_000, async () => {
          // The state first, then the job: a job read before it failed has no reason yet.
          if ((await q.getJobState(`attack-${id}`)) !== 'failed') return undefined;
          return Job.fromId(q, `attack-${id}`);
        });
        assert.match(failed.failedReason ?? "", reason, `${id}: ${JSON.stringify({ reason: failed.failedReason, attempts: failed.attemptsMade, stack: failed.stacktrace })}`);
      }
    } finally {
      await q.close();
    }
    assert.equal(fs.existsSync(marker), false, 'no command of a job ran');
  });
  it('a worker whose Redis is already gone (stopped with it, as podman-compose down does) still stops on SIGTERM, and says why', async () => {
    const gone = await startRedis();
    const log = path.join(work, 'redis-gone.log');
    const p = cliProcess(['worker', '--queue', gone.url, '--executor', 'local', '--languages', LANGS, '--cache-dir', path.join(work, 'cache')], log);
    try {
      await waitFor('the worker taking tasks', 60_000, () => (/taking .* tasks from/.test(fs.readFileSync(log, 'utf8')) ? true : undefined));
      await gone.stop();
      p.kill('SIGTERM');
      // Without the grace the close waits on a server that never answers, and the worker never exits.
      const code = await Promise.race([exited(p), new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 120_000))]);
      const said = fs.readFileSync(log, 'utf8');
      assert.equal(code, 0, said);
      assert.match(said, /stopped after 0 tasks/);
      assert.match(said, /the queue did not close within \d+ s of the last task ending \(its server stopped\?\): stopping without it/);
    } finally {
      killGroup(p, 'SIGKILL');
      await gone.stop().catch(() => undefined);
    }
  });
});
