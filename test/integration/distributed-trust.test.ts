import * as assert from 'node:assert';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Job, Queue, Worker } from 'bullmq';
import { QueueCoordinator } from '../../src/engine/distributed/coordinator';
import { parseQueueUrl } from '../../src/engine/distributed/queue-url';
import { RunKey, seal, unseal } from '../../src/engine/distributed/run-key';
import { JOB_FORMAT, QUEUE_PREFIX, queueName, type JobExperiment } from '../../src/engine/distributed/task-job';
import { loadTasks } from '../../src/engine/tasks/load';
import { fixtureSources } from '../helpers/git-sources';
import { CLI, REPO_ROOT } from '../helpers/paths';
import { exited, waitFor } from '../helpers/processes';
import { hasRedis, startRedis, type TestRedis } from '../helpers/redis';
import { hasTool, skipBecause } from '../helpers/skip';

/*
 * Issue 31, part 3: the Redis password is not a trust boundary between the coordinator and its
 * workers. Here the attacker can write to the run's Redis (it knows the password, or there is none)
 * but does not hold the run key the coordinator and its workers share. It tries to
 *  (a) make a worker run its own test against a private repository of the worker's machine (a
 *      file:// source) and send the output back through Redis;
 *  (b) rely on a worker started without --executor on a machine without bubblewrap, which would run
 *      every test with no sandbox at all;
 *  (c) answer a job itself, as a fake worker, with a forged pass at 100 % coverage.
 * Real redis-server, real `xrepotest worker` and `bench --queue` processes, a real git repository.
 * Then the defence's own edges: a job signed with the key still names only allowed sources, signed
 * messages replayed for another job or another issue of a job are refused, and nothing starts
 * without a key.
 */

const DATASET = path.join(REPO_ROOT, 'examples', 'fixtures', 'tasks.jsonl');
const MANIFEST = path.join(REPO_ROOT, 'examples', 'fixtures', 'manifest.json');
const RUN_KEY = randomBytes(32).toString('hex');
const EXPERIMENT: JobExperiment = { provider: 'baseline', model: 'baseline', mode: 'standard', temperature: 0, maxTokens: 4096, topP: 1, k: 5, samples: 1, repairRounds: 0, mutation: false, executor: 'local' };

function git(args: string[], cwd: string): string {
  const r = spawnSync('git', ['-c', 'user.email=t@example.org', '-c', 'user.name=t', ...args], { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

/**
 * A PATH under which `bwrap` cannot be found (the local executor looks it up on PATH): each folder of
 * PATH that holds it is replaced by a folder of links to everything else in it.
 */
function pathWithoutBwrap(work: string): string {
  return (process.env.PATH ?? '')
    .split(':')
    .filter(Boolean)
    .map((dir, i) => {
      if (!fs.existsSync(path.join(dir, 'bwrap'))) return dir;
      const shadow = path.join(work, `path-${i}`);
      if (fs.existsSync(shadow)) return shadow;
      fs.mkdirSync(shadow, { recursive: true });
      for (const name of fs.readdirSync(dir)) if (name !== 'bwrap') fs.symlinkSync(path.join(dir, name), path.join(shadow, name));
      return shadow;
    })
    .join(':');
}

describe('distributed queue: a Redis writer without the run key (issue 31, part 3)', function () {
  this.timeout(600_000);
  let redis: TestRedis;
  let work: string;
  let localRun: string;
  let sourcesFile: string;
  const children = new Set<ChildProcess>();
  const connection = (): { host: string; port: number; maxRetriesPerRequest: null } => ({ host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null });

  const cliProcess = (args: string[], log: string, env: NodeJS.ProcessEnv = {}): ChildProcess => {
    const p = spawn(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, detached: true, env: { ...process.env, XREPOTEST_RUN_KEY: RUN_KEY, ...env }, stdio: ['ignore', fs.openSync(log, 'a'), fs.openSync(log, 'a')] });
    children.add(p);
    p.once('exit', () => children.delete(p));
    return p;
  };
  const read = (file: string): string => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');

  before(async function () {
    if (!hasRedis()) skipBecause(this, 'redis-server is not installed (scripts/setup.sh installs it)');
    if (!fs.existsSync(CLI)) skipBecause(this, 'dist/cli.js is not built (npm run build)');
    if (!hasTool('go', ['version'])) skipBecause(this, 'go is not installed: the attacks use the Go fixture');
    redis = await startRedis();
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-trust-'));
    // The Go fixture as a repository the workers fetch (file://, under `work`).
    sourcesFile = fixtureSources(path.join(work, 'git'), ['inventory-go']).file;
    // The reference the forged answer copies: one Go task scored locally.
    localRun = path.join(work, 'local');
    const r = spawnSync(process.execPath, [CLI, 'bench', '--dataset', DATASET, '--manifest', MANIFEST, '--lang', 'go', '--limit', '1', '--executor', 'local', '--run-dir', localRun, '--no-progress'], { cwd: REPO_ROOT, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  });

  afterEach(async () => {
    for (const p of [...children]) {
      try {
        process.kill(-p.pid!, 'SIGKILL');
      } catch {
        // gone already
      }
      await exited(p);
    }
    for (const language of ['go', 'php'] as const) {
      const q = new Queue(queueName(language), { connection: connection(), prefix: QUEUE_PREFIX });
      await q.obliterate({ force: true });
      await q.close();
    }
  });

  after(async () => {
    await redis?.stop();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  /** A private Go repository on the worker's machine, one file of which (and its commit) the attacker knows. */
  function privateRepository(): { url: string; commit: string; secret: string; file: string; content: string } {
    const repo = path.join(work, 'private', 'secret-go');
    fs.mkdirSync(repo, { recursive: true });
    const secret = `s3cret-${randomBytes(8).toString('hex')}`;
    const content = 'package secret\n\n// Hello greets.\nfunc Hello() string {\n\treturn "hello"\n}\n';
    fs.writeFileSync(path.join(repo, 'go.mod'), 'module example.com/secret\n\ngo 1.21\n');
    fs.writeFileSync(path.join(repo, 'hello.go'), content);
    fs.writeFileSync(path.join(repo, 'SECRET.txt'), `${secret}\n`);
    git(['init', '-q'], repo);
    git(['add', '-A'], repo);
    git(['commit', '-qm', 'private'], repo);
    return { url: `file://${repo}`, commit: git(['rev-parse', 'HEAD'], repo), secret, file: 'secret-go/hello.go', content };
  }

  it('(a) a job written straight into Redis, naming a file:// repository of the worker\'s machine and carrying its own test, runs nothing and sends nothing back', async () => {
    const log = path.join(work, 'worker-a.log');
    cliProcess(['worker', '--queue', redis.url, '--executor', 'local', '--languages', 'go', '--cache-dir', path.join(work, 'cache-a')], log);
    await waitFor('the worker taking tasks', 60_000, () => (/taking .* tasks from/.test(read(log)) ? true : undefined));
    const priv = privateRepository();
    const task = {
      task_id: 0,
      id: 'stolen00',
      function_name: 'Hello',
      file_path: priv.file,
      focal_code: 'func Hello() string {\n\treturn "hello"\n}',
      file_content: priv.content,
      language: 'go',
      function_component: { name: 'Hello', signature: 'func Hello() string', start_line: 4, end_line: 6 },
      metadata: { package: 'secret', class_name: '', class_signature: '' },
    };
    // The attacker's "generation": a test that prints the repository's secret file.
    const testCode = 'package secret\n\nimport (\n\t"os"\n\t"testing"\n)\n\nfunc TestLeak(t *testing.T) {\n\tb, _ := os.ReadFile("SECRET.txt")\n\tt.Fatalf("LEAK[%s]", b)\n}\n';
    const generation = { id: 'stolen00', task_id: 0, language: 'go', sample: 0, round: 0, mode: 'standard', provider: 'baseline', model: 'baseline', test_code: testCode, raw_response: testCode, request_hash: 'x', usage: { inputTokens: 0, outputTokens: 0 }, cost_usd: 0, cached: false, baseline: true };
    const data = { format: JOB_FORMAT, run: 'attacker', task, source: { kind: 'git', url: priv.url, commit: priv.commit }, experiment: EXPERIMENT, known: { generations: [generation], results: [] } };
    const q = new Queue(queueName('go'), { connection: connection(), prefix: QUEUE_PREFIX });
    try {
      // As written by someone who can write to Redis, and (a key holder, or a stolen key) signed: the
      // worker's operator never allowed file:// sources, so neither runs.
      const signed = seal(new RunKey(RUN_KEY), JOB_FORMAT, { kind: 'task-job', queue: queueName('go'), jobId: 'attack-file-signed' }, data).message;
      for (const [id, jobData, reason] of [['attack-file', data, /run key/], ['attack-file-signed', signed, /not one this worker was allowed to fetch.*--allow-source file:\/\/\//]] as const) {
        await q.add('task', jobData, { jobId: id, attempts: 1 });
        const state = await waitFor(`the ${id} job to end`, 180_000, async () => {
          const s = await q.getJobState(id);
          return s === 'completed' || s === 'failed' ? s : undefined;
        });
        const job = (await Job.fromId(q, id))!;
        const sentBack = JSON.stringify([job.returnvalue, job.failedReason, job.stacktrace]);
        assert.ok(!sentBack.includes(priv.secret), `${id}: the private repository's secret went back through Redis: ${sentBack.slice(0, 400)}`);
        assert.equal(state, 'failed', `${id}: the job was run: ${sentBack.slice(0, 400)}`);
        assert.match(job.failedReason ?? '', reason, job.failedReason);
      }
    } finally {
      await q.close();
    }
    assert.equal((read(log).match(/^refused job /gm) ?? []).length, 2, read(log));
    // Nothing of the private repository was fetched into the worker's cache.
    assert.equal(fs.existsSync(path.join(work, 'cache-a', 'trees')), false, 'the private repository was checked out');
  });

  it('(b) a worker on a machine without bubblewrap, started without --executor, refuses to start unless told --unconfined-ok', async () => {
    const log = path.join(work, 'worker-b.log');
    const w = cliProcess(['worker', '--queue', redis.url, '--languages', 'go', '--cache-dir', path.join(work, 'cache-b')], log, { PATH: pathWithoutBwrap(work) });
    const outcome = await waitFor('the worker to start or exit', 120_000, () => (w.exitCode !== null ? 'exited' : /taking .* tasks from/.test(read(log)) ? 'started' : undefined));
    if (outcome === 'started') {
      // Show what it does with a run's jobs: the coordinator's results say how each test ran.
      const runDir = path.join(work, 'run-b');
      const c = cliProcess(['bench', '--dataset', DATASET, '--lang', 'go', '--limit', '1', '--executor', 'local', '--queue', redis.url, '--sources', sourcesFile, '--run-dir', runDir, '--no-progress'], `${runDir}.log`);
      const code = await Promise.race([exited(c), new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 180_000))]);
      const engines = read(path.join(runDir, 'results.jsonl')).split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { xrt: { executor: { engine: string } } }).xrt.executor.engine);
      assert.fail(`the worker started without bubblewrap and ran the run's jobs (coordinator: ${code}); their tests ran as: ${JSON.stringify(engines)}\n${read(log)}`);
    }
    assert.equal(await exited(w), 1, read(log));
    assert.match(read(log), /bubblewrap is not installed here, so the local executor would run the jobs' tests unconfined/);
    assert.match(read(log), /--executor docker/);
    assert.match(read(log), /--unconfined-ok/);
    // Told so, it starts, and says what it accepted.
    const okLog = path.join(work, 'worker-b-ok.log');
    cliProcess(['worker', '--queue', redis.url, '--languages', 'go', '--cache-dir', path.join(work, 'cache-b'), '--unconfined-ok'], okLog, { PATH: pathWithoutBwrap(work) });
    await waitFor('the worker told --unconfined-ok to start', 120_000, () => (/taking .* tasks from/.test(read(okLog)) ? true : undefined));
    assert.match(read(okLog), /warning: --unconfined-ok: jobs of the local executor run their tests with no sandbox/);
  });

  it('(c) a fake worker\'s forged answer (a pass at 100 % coverage) is refused and never reaches summary.json', async () => {
    const fakeGen = JSON.parse(read(path.join(localRun, 'generations.jsonl')).split('\n')[0]) as Record<string, unknown>;
    const fakeResult = JSON.parse(read(path.join(localRun, 'results.jsonl')).split('\n')[0]) as Record<string, unknown> & { coverage_stats: Array<Record<string, unknown>>; checks: Array<Record<string, unknown>> };
    const stats = fakeResult.coverage_stats[0];
    const lines = stats.executable_line_numbers as number[];
    fakeResult.coverage_stats = [{ ...stats, covered_lines: lines.length, coverage: 100, covered_line_numbers: lines }];
    fakeResult.checks = [{ compilation: true, tests: true, coverage: true, invocation: true }];
    let answered = 0;
    // The fake worker: it reads the job (whatever its shape) and answers in the shape a worker answers.
    const fake = new Worker(
      queueName('go'),
      async (job: Job) => {
        const data = job.data as { format: number; body?: string };
        const format = typeof data.body === 'string' ? (JSON.parse(data.body) as { payload: { format: number } }).payload.format : data.format;
        answered++;
        return { format, worker: 'fake:1', generations: [fakeGen], results: [fakeResult], ms: 1 };
      },
      { connection: connection(), prefix: QUEUE_PREFIX },
    );
    try {
      const runDir = path.join(work, 'run-c');
      const c = cliProcess(['bench', '--dataset', DATASET, '--lang', 'go', '--limit', '1', '--executor', 'local', '--queue', redis.url, '--sources', sourcesFile, '--run-dir', runDir, '--no-progress'], `${runDir}.log`);
      const code = await exited(c);
      const said = read(`${runDir}.log`);
      assert.ok(answered >= 1, `the fake worker took the job: ${said}`);
      const summary = read(path.join(runDir, 'summary.json'));
      assert.doesNotMatch(summary, /"line_coverage": 100/, `the forged coverage is in summary.json: ${summary}`);
      assert.equal(read(path.join(runDir, 'results.jsonl')).trim(), '', 'no forged record was appended');
      assert.equal(code, 1, said);
      assert.match(said, /refused/);
    } finally {
      await fake.close(true);
    }
  });

  it('a worker\'s signed answer re-sent for another job, or for an earlier issue of the same job, is refused', async () => {
    const key = new RunKey(RUN_KEY);
    const { tasks } = await loadTasks([DATASET]);
    const [a, b] = tasks.filter((t) => t.language === 'go');
    const lines: string[] = [];
    const sources = JSON.parse(read(sourcesFile)) as Record<string, { url: string; commit: string }>;
    const coordinator = new QueueCoordinator(parseQueueUrl(redis.url), key, 'replay-run', EXPERIMENT, () => ({ kind: 'git', ...sources['inventory-go'] }), (l) => lines.push(l));
    // Task a's answer as an honest worker signs it (the local run's records of that task); every later
    // job is answered with that same message, as a Redis writer who copied it would.
    const records = { generations: [JSON.parse(read(path.join(localRun, 'generations.jsonl')).split('\n')[0])], results: [JSON.parse(read(path.join(localRun, 'results.jsonl')).split('\n')[0])] };
    let first: unknown;
    const replayer = new Worker(
      queueName('go'),
      async (job: Job) => {
        if (first) return first;
        const opened = unseal(key, job.data, { kind: 'task-job', queue: job.queueName, jobId: String(job.id) });
        if ('problem' in opened) throw new Error(opened.problem);
        first = seal(key, JOB_FORMAT, { kind: 'task-result', queue: job.queueName, jobId: String(job.id), reply: opened.nonce }, { format: JOB_FORMAT, worker: 'honest:1', ...records, ms: 1 }).message;
        return first;
      },
      { connection: connection(), prefix: QUEUE_PREFIX },
    );
    try {
      const known = { generations: [], results: [] };
      const honest = await coordinator.run(a, known);
      assert.ok('result' in honest, JSON.stringify(honest));
      await honest.ack();
      const other = await coordinator.run(b, known);
      assert.ok('failed' in other && /signed for another jobId/.test(other.failed), JSON.stringify(other));
      // Task a sent again (as a resumed run would, after its job was collected): a new issue, a new nonce.
      const again = await coordinator.run(a, known);
      assert.ok('failed' in again && /signed for another issue of the job/.test(again.failed), JSON.stringify(again));
      assert.equal(coordinator.refusedMessages, 2);
      assert.equal(lines.filter((l) => l.startsWith('refused: ')).length, 2, lines.join('\n'));
    } finally {
      await replayer.close(true);
      await coordinator.close();
    }
  });

  it('a finished job put back in the queue, or copied under another id, is refused by the worker', async () => {
    const runDir = path.join(work, 'run-d');
    const c = cliProcess(['bench', '--dataset', DATASET, '--lang', 'go', '--limit', '1', '--executor', 'local', '--queue', redis.url, '--sources', sourcesFile, '--run-dir', runDir, '--no-progress'], `${runDir}.log`);
    const q = new Queue(queueName('go'), { connection: connection(), prefix: QUEUE_PREFIX });
    try {
      // The coordinator's signed job, read from Redis before any worker takes it.
      const captured = await waitFor('the coordinator\'s job', 60_000, async () => (await q.getJobs(['waiting']))[0]);
      const log = path.join(work, 'worker-d.log');
      cliProcess(['worker', '--queue', redis.url, '--executor', 'local', '--languages', 'go', '--cache-dir', path.join(work, 'cache-d'), '--allow-source', `file://${work}/`], log);
      assert.equal(await exited(c), 0, read(`${runDir}.log`));
      assert.equal(read(path.join(runDir, 'results.jsonl')).trim().split('\n').length, 1);
      await q.remove(captured.id!).catch(() => undefined); // collected: the coordinator removed it
      for (const [id, reason] of [[captured.id!, /already finished this job/], ['copied', /signed for another jobId/]] as const) {
        await q.add('task', captured.data, { jobId: id, attempts: 1 });
        const failed = await waitFor(`the replayed job ${id} to fail`, 60_000, async () => ((await q.getJobState(id)) === 'failed' ? Job.fromId(q, id) : undefined));
        assert.match(failed?.failedReason ?? '', reason, failed?.failedReason);
      }
      assert.equal((read(log).match(/^task \S+ done in /gm) ?? []).length, 1, read(log));
      assert.equal((read(log).match(/^refused job /gm) ?? []).length, 2, read(log));
    } finally {
      await q.close();
    }
  });

  it('nothing of a distributed run starts without a run key, or with a short one; `queue new-key` makes one only its owner can read', () => {
    const run = (args: string[], key: string): { code: number | null; stderr: string } => {
      const r = spawnSync(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000, env: { ...process.env, XREPOTEST_RUN_KEY: key } });
      return { code: r.status, stderr: r.stderr };
    };
    for (const args of [
      ['worker', '--queue', redis.url, '--executor', 'local', '--languages', 'go'],
      ['bench', '--dataset', DATASET, '--lang', 'go', '--executor', 'local', '--queue', redis.url, '--sources', sourcesFile, '--run-dir', path.join(work, 'no-key'), '--no-progress'],
    ]) {
      const none = run(args, '');
      assert.equal(none.code, 1, none.stderr);
      assert.match(none.stderr, /a distributed run needs a run key.*xrepotest queue new-key --out run\.key/);
      const short = run(args, 'password123');
      assert.equal(short.code, 1, short.stderr);
      assert.match(short.stderr, /XREPOTEST_RUN_KEY is not a key of 32 random bytes/);
    }
    assert.equal(fs.existsSync(path.join(work, 'no-key')), false, 'the coordinator wrote no run folder');
    const file = path.join(work, 'run.key');
    const made = run(['queue', 'new-key', '--out', file], '');
    assert.equal(made.code, 0, made.stderr);
    assert.match(fs.readFileSync(file, 'utf8'), /^[0-9a-f]{64}\n$/);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const again = run(['queue', 'new-key', '--out', file], '');
    assert.equal(again.code, 1, 'an existing key file is never replaced');
  });
});
