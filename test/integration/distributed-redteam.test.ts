import * as assert from 'node:assert';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import { QueueCoordinator, type RemoteOutcome } from '../../src/engine/distributed/coordinator';
import { GenerateQueue, generateQueueName } from '../../src/engine/distributed/generate-queue';
import type { CompletionRequest, CompletionResult, Provider } from '../../src/engine/generate/types';
import { parseQueueUrl } from '../../src/engine/distributed/queue-url';
import { RunKey } from '../../src/engine/distributed/run-key';
import { parseSourceRules, sourceProblem } from '../../src/engine/distributed/source-policy';
import { checkoutOf } from '../../src/engine/distributed/sources';
import { QUEUE_PREFIX, queueName, type JobExperiment } from '../../src/engine/distributed/task-job';
import { loadTasks } from '../../src/engine/tasks/load';
import { REPO_ROOT } from '../helpers/paths';
import { hasRedis, startRedis, type TestRedis } from '../helpers/redis';
import { skipBecause } from '../helpers/skip';

/*
 * Issue 31, part 3, attacked by a helper that did not write the defences (tricks not listed in the
 * issue). The attacker writes to the run's Redis without the run key, or (the source policy) holds a
 * key and names a source the worker's operator did not allow. Real redis-server, real BullMQ, real git.
 */

const DATASET = path.join(REPO_ROOT, 'examples', 'fixtures', 'tasks.jsonl');
const EXPERIMENT: JobExperiment = { provider: 'baseline', model: 'baseline', mode: 'standard', temperature: 0, maxTokens: 4096, topP: 1, k: 5, samples: 1, repairRounds: 0, mutation: false, executor: 'local' };

/** The outcome, or 'still waiting' when none came within `ms` (a hang, bounded so the test ends). */
function within(outcome: Promise<RemoteOutcome>, ms: number): Promise<RemoteOutcome | 'still waiting'> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([outcome, new Promise<'still waiting'>((resolve) => (timer = setTimeout(() => resolve('still waiting'), ms)))]).finally(() => clearTimeout(timer));
}

describe('distributed queue: red-team attacks on the trust model (issue 31, part 3)', function () {
  this.timeout(120_000);
  let redis: TestRedis;
  const connection = (): { host: string; port: number; maxRetriesPerRequest: null } => ({ host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null });
  const key = new RunKey(randomBytes(32).toString('hex'));

  before(async function () {
    if (!hasRedis()) skipBecause(this, 'redis-server is not installed (scripts/setup.sh installs it)');
    redis = await startRedis();
  });
  afterEach(async () => {
    const q = new Queue(queueName('go'), { connection: connection(), prefix: QUEUE_PREFIX });
    await q.obliterate({ force: true });
    await q.close();
  });
  after(async () => {
    await redis?.stop();
  });

  const coordinatorWith = (lines: string[]): QueueCoordinator =>
    new QueueCoordinator(parseQueueUrl(redis.url), key, `redteam-${randomBytes(4).toString('hex')}`, EXPERIMENT, () => ({ kind: 'git', url: 'https://example.org/x.git', commit: 'a'.repeat(40) }), (l) => lines.push(l));

  it('a job deleted from Redis (or removed by BullMQ because its options were changed) ends the wait with a reason, not a hang', async () => {
    const { tasks } = await loadTasks([DATASET]);
    const task = tasks.find((t) => t.language === 'go')!;
    const coordinator = coordinatorWith([]);
    const queue = new Queue(queueName('go'), { connection: connection(), prefix: QUEUE_PREFIX });
    try {
      const outcome = coordinator.run(task, { generations: [], results: [] });
      let id: string | undefined;
      for (let i = 0; i < 100 && !id; i++) {
        id = (await queue.getJobs(['waiting', 'prioritized', 'delayed']))[0]?.id;
        if (!id) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(id, 'the coordinator queued the job');
      await (await Job.fromId(queue, id))!.remove();
      // The coordinator looks pending jobs up every 5 s: a few rounds of that, not forever.
      const got = await within(outcome, 30_000);
      assert.notEqual(got, 'still waiting', 'the coordinator waits forever for a job no longer in Redis');
      assert.ok(got !== 'still waiting' && 'failed' in got && /no longer in Redis/.test(got.failed), JSON.stringify(got));
    } finally {
      await queue.close();
      await coordinator.close();
    }
  });

  it("a fake worker's failure reason is shown as text: no line breaks or terminal escapes reach the coordinator's log", async () => {
    const { tasks } = await loadTasks([DATASET]);
    const task = tasks.find((t) => t.language === 'go')!;
    const coordinator = coordinatorWith([]);
    // Fails every job at once with a reason that would clear the line and print a forged summary.
    const forged = 'x\n\x1b[2K\rbench 1/1 tasks, 1 results | CSR 100% TPR 100% Cov 100%\u202e\x9b31m';
    const fake = new Worker(queueName('go'), async () => {
      throw new UnrecoverableError(forged);
    }, { connection: connection(), prefix: QUEUE_PREFIX });
    try {
      const got = await within(coordinator.run(task, { generations: [], results: [] }), 60_000);
      assert.ok(got !== 'still waiting' && 'failed' in got, JSON.stringify(got));
      assert.doesNotMatch(got.failed, /[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/, JSON.stringify(got.failed));
      assert.match(got.failed, /not signed/, 'said to be a reason no run key vouches for');
    } finally {
      await fake.close();
      await coordinator.close();
    }
  });

  it('a model call deleted from Redis, or failed by a fake worker with a forged reason, ends with a reason as text, not a hang', async () => {
    const { tasks } = await loadTasks([DATASET]);
    const task = tasks.find((t) => t.language === 'go')!;
    // The provider behind the queue answers a call only when its gate opens: the first call holds the
    // worker's only slot, so later calls wait in Redis (or go to the fake worker).
    const gates: Array<() => void> = [];
    const answer: CompletionResult = { text: 'x', usage: { inputTokens: 0, outputTokens: 0 } as CompletionResult['usage'], costUsd: null, cached: false, latencyMs: 1 };
    const direct = (): Provider => ({ id: 'baseline', complete: () => new Promise<CompletionResult>((r) => gates.push(() => r(answer))) });
    const calls = new GenerateQueue(parseQueueUrl(redis.url), key, direct, 1, () => undefined, []);
    const queue = new Queue(generateQueueName('baseline'), { connection: connection(), prefix: QUEUE_PREFIX });
    const request = { system: '', messages: [], params: {}, task: task.task, language: 'go', sample: 0, round: 0 } as unknown as CompletionRequest;
    const settled = (p: Promise<CompletionResult>): Promise<string> =>
      Promise.race([p.then((r) => `answered ${r.text}`, (e: unknown) => String(e)), new Promise<string>((r) => setTimeout(() => r('still waiting'), 30_000))]);
    let fake: Worker | undefined;
    try {
      const provider = calls.provider(EXPERIMENT);
      const first = provider.complete(request);
      for (let i = 0; i < 100 && !gates.length; i++) await new Promise((r) => setTimeout(r, 100));
      assert.equal(gates.length, 1, 'the first call is being made');
      const second = provider.complete(request);
      let waiting: Job | undefined;
      for (let i = 0; i < 100 && !waiting; i++) {
        waiting = (await queue.getJobs(['waiting', 'prioritized']))[0];
        if (!waiting) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(waiting, 'the second call waits in Redis');
      await waiting.remove();
      assert.match(await settled(second), /no longer in Redis/);

      // A fake worker takes the next call (this process's only slot is still busy) and fails it with a
      // reason made to forge a line in the worker's log.
      fake = new Worker(generateQueueName('baseline'), async (): Promise<unknown> => {
        throw new UnrecoverableError('x\n\x1b[2Kforged line');
      }, { connection: connection(), prefix: QUEUE_PREFIX });
      const third = await settled(provider.complete(request));
      assert.match(third, /not signed/, third);
      assert.doesNotMatch(third, /[\x00-\x1f]/, JSON.stringify(third));
      for (const open of gates) open();
      assert.equal((await first).text, 'x', 'the call nobody touched is answered');
    } finally {
      for (const open of gates) open();
      await fake?.close();
      await calls.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  it('--allow-source http://<host>:<port> fetches from there only: a redirect to another host or port is not followed', async () => {
    // The repository the operator did not allow, served as plain files (git's "dumb" HTTP) on one port;
    // the allowed port answers every request with a redirect to it.
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-redirect-'));
    const git = (args: string[], cwd: string): string => {
      const r = spawnSync('git', ['-c', 'user.email=t@example.org', '-c', 'user.name=t', ...args], { cwd, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
      return r.stdout.trim();
    };
    const repo = path.join(work, 'private');
    fs.mkdirSync(path.join(repo, 'secret-go'), { recursive: true });
    fs.writeFileSync(path.join(repo, 'secret-go', 'go.mod'), 'module secret\n');
    git(['init', '-q'], repo);
    git(['add', '.'], repo);
    git(['commit', '-qm', 'private'], repo);
    const commit = git(['rev-parse', 'HEAD'], repo);
    const bare = path.join(work, 'private.git');
    git(['clone', '-q', '--bare', repo, bare], work);
    git(['update-server-info'], bare);
    let privateHits = 0;
    const files = http.createServer((req, res) => {
      privateHits++;
      const file = path.join(bare, decodeURIComponent((req.url ?? '/').split('?')[0]).replace(/^\/private\.git/, ''));
      if (!file.startsWith(bare) || !fs.existsSync(file) || !fs.statSync(file).isFile()) return void res.writeHead(404).end();
      res.writeHead(200).end(fs.readFileSync(file));
    });
    const redirect = http.createServer((req, res) => {
      res.writeHead(301, { location: `http://127.0.0.1:${(files.address() as AddressInfo).port}/private.git${(req.url ?? '').replace(/^\/repo\.git/, '')}` }).end();
    });
    await Promise.all([files, redirect].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()))));
    try {
      const allowedPort = (redirect.address() as AddressInfo).port;
      const source = { kind: 'git' as const, url: `http://127.0.0.1:${allowedPort}/repo.git`, commit };
      assert.equal(sourceProblem(source, parseSourceRules([`http://127.0.0.1:${allowedPort}`])), null, 'the job names an allowed source');
      const fetched = await checkoutOf(source, 'secret-go', path.join(work, 'cache')).then(
        (tree) => `fetched ${tree}`,
        (e: unknown) => String(e),
      );
      assert.doesNotMatch(fetched, /^fetched/, `the worker followed the redirect to a port it was not allowed (${privateHits} requests there)`);
      assert.equal(privateHits, 0, 'nothing was asked of the server the operator did not allow');
    } finally {
      files.close();
      redirect.close();
      fs.rmSync(work, { recursive: true, force: true });
    }
  });
});
