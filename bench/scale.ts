/**
 * The distributed benchmark's scaling (issue 16): Redis on loopback, then 1, 2, 4 and 8 worker
 * processes, and the throughput per worker count of
 *   (a) a synthetic task step of fixed duration that uses no CPU (a sleep): what the queue itself
 *       costs — the coordinator (QueueCoordinator), BullMQ and the worker (startQueueWorker) as a real
 *       run uses them; it should scale linearly; and the queue's overhead per task in ms (one worker:
 *       wall time per task minus the step's own);
 *   (b) real scoring of the example dataset's Go, PHP, Ruby and Rust fixture tasks (baseline tests,
 *       local executor, `xrepotest bench --queue` and `xrepotest worker` processes), bounded by this
 *       machine's cores.
 * `npm run bench:scale [-- --tasks N --step-ms D --workers 1,2,4,8 --no-real --json]`
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Queue } from 'bullmq';
import { QueueCoordinator } from '../src/engine/distributed/coordinator';
import { connectionOptions, parseQueueUrl } from '../src/engine/distributed/queue-url';
import { loadRunKey, newRunKey, RUN_KEY_ENV } from '../src/engine/distributed/run-key';
import { parseSourceRules } from '../src/engine/distributed/source-policy';
import { QUEUE_PREFIX, queueName, type JobExperiment } from '../src/engine/distributed/task-job';
import { startQueueWorker } from '../src/engine/distributed/worker';
import type { LoadedTask } from '../src/engine/tasks/load';
import { loadTasks } from '../src/engine/tasks/load';

const ROOT = path.join(__dirname, '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const EXAMPLE = path.join(ROOT, 'examples', 'fixtures');

const EXPERIMENT: JobExperiment = { provider: 'baseline', model: 'baseline', mode: 'standard', temperature: 0, maxTokens: 4096, topP: 1, k: 5, samples: 1, repairRounds: 0, mutation: false, executor: 'local' };
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

/** `bench-scale.js synthetic-worker URL MS`: a worker whose task step sleeps MS and returns no record. */
async function syntheticWorker(url: string, ms: number): Promise<void> {
  const worker = await startQueueWorker({
    address: parseQueueUrl(url),
    languages: ['go'],
    concurrency: 1,
    name: `${os.hostname()}:${process.pid}`,
    cacheDir: os.tmpdir(),
    executor: () => Promise.reject(new Error('the synthetic step runs nothing')),
    servicesFor: () => {
      throw new Error('the synthetic step asks no model');
    },
    log: () => undefined,
    allowedEndpoints: [],
    // The run key main() made, inherited; the synthetic source is an https:// URL (never fetched).
    runKey: loadRunKey(undefined),
    allowedSources: parseSourceRules(undefined),
    step: async () => {
      await sleep(ms);
      return { generations: [], results: [] };
    },
  });
  process.once('SIGTERM', () => void worker.close().then(() => process.exit(0)));
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

async function startRedis(dir: string): Promise<{ url: string; stop(): void }> {
  const port = await freePort();
  const p = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    if (spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).stdout?.includes('PONG')) break;
    await sleep(100);
  }
  return { url: `redis://127.0.0.1:${port}`, stop: () => void p.kill('SIGKILL') };
}

async function waitForWorkers(url: string, language: 'go' | 'php', n: number): Promise<void> {
  const q = new Queue(queueName(language), { connection: connectionOptions(parseQueueUrl(url)), prefix: QUEUE_PREFIX });
  try {
    for (let i = 0; i < 600; i++) {
      if ((await q.getWorkers()).length >= n) return;
      await sleep(100);
    }
    throw new Error(`only ${(await q.getWorkers()).length} of ${n} workers connected`);
  } finally {
    await q.close();
  }
}

function stopAll(children: ChildProcess[]): Promise<void> {
  return Promise.all(children.map((c) => new Promise<void>((resolve) => {
    if (c.exitCode !== null) return resolve();
    c.once('exit', () => resolve());
    c.kill('SIGTERM');
  }))).then(() => undefined);
}

async function synthetic(url: string, counts: number[], tasksPerRound: number, stepMs: number, base: LoadedTask): Promise<Array<{ workers: number; ms: number; perHour: number }>> {
  const out: Array<{ workers: number; ms: number; perHour: number }> = [];
  for (const k of counts) {
    const children = Array.from({ length: k }, () => spawn(process.execPath, [__filename, 'synthetic-worker', url, String(stepMs)], { stdio: 'ignore' }));
    await waitForWorkers(url, 'go', k);
    // Distinct tasks, a run of their own per worker count: no job id is shared between rounds.
    const tasks = Array.from({ length: tasksPerRound }, (_, i): LoadedTask => ({ ...base, task: { ...base.task, id: `synthetic-${k}-${i}` } }));
    const coordinator = new QueueCoordinator(parseQueueUrl(url), loadRunKey(undefined), `scale-${k}-${Date.now()}`, EXPERIMENT, () => ({ kind: 'git', url: 'https://example.invalid/none.git', commit: '0'.repeat(40) }), () => undefined);
    const t0 = Date.now();
    await Promise.all(tasks.map(async (t) => {
      const o = await coordinator.run(t, { generations: [], results: [] });
      if ('failed' in o) throw new Error(o.failed);
      await o.ack();
    }));
    const ms = Date.now() - t0;
    await coordinator.close();
    await stopAll(children);
    out.push({ workers: k, ms, perHour: (tasksPerRound * 3_600_000) / ms });
    process.stderr.write(`synthetic: ${k} worker(s), ${tasksPerRound} tasks of ${stepMs} ms: ${ms} ms\n`);
  }
  return out;
}

async function real(url: string, counts: number[], work: string): Promise<Array<{ workers: number; ms: number; perHour: number; tasks: number }>> {
  // The fixtures as repositories the workers fetch by URL (never from the coordinator's folder).
  const langs = ['inventory-go', 'geometry-rs', 'textkit-php', 'bookshelf-rb'];
  const sources: Record<string, { url: string; commit: string }> = {};
  for (const name of langs) {
    const src = path.join(work, 'src', name);
    fs.cpSync(path.join(ROOT, 'test', 'fixtures', name), src, { recursive: true, filter: (p) => !/\/(target|\.xrt)$/.test(p) });
    const git = (args: string[], cwd: string): string => spawnSync('git', ['-c', 'user.email=b@example.org', '-c', 'user.name=bench', ...args], { cwd, encoding: 'utf8' }).stdout.trim();
    git(['init', '-q'], src);
    git(['add', '-A'], src);
    git(['commit', '-qm', 'fixture'], src);
    const bare = path.join(work, 'remote', `${name}.git`);
    git(['clone', '-q', '--bare', src, bare], work);
    sources[name] = { url: `file://${bare}`, commit: git(['rev-parse', 'HEAD'], src) };
  }
  const sourcesFile = path.join(work, 'sources.json');
  fs.writeFileSync(sourcesFile, JSON.stringify(sources));
  const lang = 'go,rust,php,ruby';
  const cache = path.join(work, 'worker-cache');
  const run = async (k: number, label: string): Promise<{ ms: number; tasks: number }> => {
    const workers = Array.from({ length: k }, () => spawn(process.execPath, [CLI, 'worker', '--queue', url, '--executor', 'local', '--languages', lang, '--cache-dir', cache, '--allow-source', `file://${path.join(work, 'remote')}/`], { stdio: 'ignore' }));
    await waitForWorkers(url, 'php', k);
    const runDir = path.join(work, `run-${label}`);
    const t0 = Date.now();
    const r = spawnSync(process.execPath, [CLI, 'bench', '--dataset', path.join(EXAMPLE, 'tasks.jsonl'), '--lang', lang, '--executor', 'local', '--queue', url, '--sources', sourcesFile, '--run-dir', runDir, '--no-progress'], { encoding: 'utf8' });
    const ms = Date.now() - t0;
    await stopAll(workers);
    if (r.status !== 0) throw new Error(`bench --queue with ${k} workers: ${r.stderr.slice(-1500)}`);
    const tasks = fs.readFileSync(path.join(runDir, 'results.jsonl'), 'utf8').split('\n').filter(Boolean).length;
    return { ms, tasks };
  };
  // One untimed round warms each repository's environment (a real run pays it once per machine too).
  await run(2, 'warm');
  const out: Array<{ workers: number; ms: number; perHour: number; tasks: number }> = [];
  for (const k of counts) {
    const { ms, tasks } = await run(k, `k${k}`);
    out.push({ workers: k, ms, tasks, perHour: (tasks * 3_600_000) / ms });
    process.stderr.write(`real: ${k} worker(s), ${tasks} tasks: ${ms} ms\n`);
  }
  return out;
}

async function main(): Promise<void> {
  if (process.argv[2] === 'synthetic-worker') return syntheticWorker(process.argv[3], Number(process.argv[4]));
  const counts = arg('workers', '1,2,4,8').split(',').map(Number);
  const tasksPerRound = Number(arg('tasks', '64'));
  const stepMs = Number(arg('step-ms', '250'));
  const json = process.argv.includes('--json');
  const withReal = !process.argv.includes('--no-real');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-bench-scale-'));
  // One run key for this process, its coordinators and every worker it starts (inherited).
  process.env[RUN_KEY_ENV] ??= newRunKey();
  const redis = await startRedis(work);
  try {
    const { tasks } = await loadTasks([path.join(EXAMPLE, 'tasks.jsonl')]);
    const base = tasks.find((t) => t.language === 'go')!;
    const syn = await synthetic(redis.url, counts, tasksPerRound, stepMs, base);
    const one = syn.find((s) => s.workers === 1) ?? syn[0];
    const overheadMs = one.ms / tasksPerRound / (1 / one.workers) - stepMs;
    const realRows = withReal ? await real(redis.url, counts, work) : [];
    const result = {
      machine: { cores: os.cpus().length, load: os.loadavg()[0] },
      synthetic: { step_ms: stepMs, tasks: tasksPerRound, queue_overhead_ms_per_task: Number(overheadMs.toFixed(1)), rows: syn.map((s) => ({ workers: s.workers, ms: s.ms, tasks_per_hour: Math.round(s.perHour), speedup: Number((s.perHour / one.perHour).toFixed(2)), efficiency: Number((s.perHour / one.perHour / s.workers).toFixed(2)) })) },
      real: realRows.map((r) => ({ workers: r.workers, ms: r.ms, tasks: r.tasks, tasks_per_hour: Math.round(r.perHour), speedup: Number((r.perHour / realRows[0].perHour).toFixed(2)) })),
    };
    if (json) {
      process.stdout.write(JSON.stringify(result, null, 2) + '\n');
      return;
    }
    console.log(`${result.machine.cores} cores, load ${result.machine.load.toFixed(2)}`);
    console.log(`\n(a) synthetic step of ${stepMs} ms (no CPU), ${tasksPerRound} tasks per worker count; queue overhead ${result.synthetic.queue_overhead_ms_per_task} ms per task`);
    console.log('workers   wall ms   tasks/hour   speed-up   of linear');
    for (const r of result.synthetic.rows) console.log(`${String(r.workers).padStart(7)} ${String(r.ms).padStart(9)} ${String(r.tasks_per_hour).padStart(12)} ${r.speedup.toFixed(2).padStart(10)} ${r.efficiency.toFixed(2).padStart(11)}`);
    if (result.real.length) {
      console.log(`\n(b) real scoring: the fixtures' Go, Rust, PHP and Ruby tasks (baseline tests, local executor; bounded by ${result.machine.cores} cores)`);
      console.log('workers   wall ms   tasks   tasks/hour   speed-up');
      for (const r of result.real) console.log(`${String(r.workers).padStart(7)} ${String(r.ms).padStart(9)} ${String(r.tasks).padStart(7)} ${String(r.tasks_per_hour).padStart(12)} ${r.speedup.toFixed(2).padStart(10)}`);
    }
  } finally {
    redis.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
