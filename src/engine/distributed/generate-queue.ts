import { randomBytes } from 'node:crypto';
import { Queue, QueueEvents, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { CompletionRequest, CompletionResult, Provider } from '../generate/types';
import { connectionOptions, type QueueAddress } from './queue-url';
import { FinishedMessages, printable, seal, unseal, type RunKey, type SignedMessage } from './run-key';
import { endpointProblem, JOB_FORMAT, QUEUE_PREFIX, type JobExperiment } from './task-job';

/**
 * A provider's rate limit shared by every worker of a run (`bench --queue … --rate-limit n/period`):
 * each model call becomes a job of the queue `generate-<provider>`, whose global rate limit (BullMQ's,
 * kept in Redis: it holds across all workers) the coordinator sets. Any worker takes the call and
 * makes it with its own key; 429s are retried by the provider client as in a local run. A call and
 * its answer are signed with the run key like a task's job: a Redis writer can neither spend a
 * worker's key on calls of its own nor hand a worker a reply the model never wrote.
 */
export function generateQueueName(provider: string): string {
  return `generate-${provider.replace(/[^\w-]/g, '_')}`;
}

/** `--rate-limit 50/min`: at most `max` model calls per `durationMs`, across all workers. */
export interface RateLimit {
  max: number;
  durationMs: number;
}

const UNITS: Record<string, number> = { s: 1_000, sec: 1_000, second: 1_000, m: 60_000, min: 60_000, minute: 60_000, h: 3_600_000, hour: 3_600_000 };

export function parseRateLimit(text: string): RateLimit {
  const m = /^(\d+)\s*\/\s*(\d*)\s*([a-z]+)$/i.exec(text.trim());
  const unit = m ? UNITS[m[3].toLowerCase()] : undefined;
  if (!m || !unit || Number(m[1]) < 1) throw new Error(`--rate-limit ${JSON.stringify(text)}: use calls per period, e.g. 50/min, 2/s, 1000/h or 3/10s`);
  return { max: Number(m[1]), durationMs: (m[2] ? Number(m[2]) : 1) * unit };
}

/** The coordinator's part: sets (or clears) the run's limit on the provider's queue. */
export async function applyRateLimit(address: QueueAddress, provider: string, limit: RateLimit | null): Promise<void> {
  const queue = new Queue(generateQueueName(provider), { connection: connectionOptions(address), prefix: QUEUE_PREFIX });
  try {
    if (limit) await queue.setGlobalRateLimit(limit.max, limit.durationMs);
    else await queue.removeGlobalRateLimit();
  } finally {
    await queue.close();
  }
}

/** How often a waiting call's job is looked up: no event ever comes for a job someone deleted. */
const LOOKUP_MS = 5_000;

/**
 * Rejects once the call's job has been missing from Redis at two lookups in a row while its answer has
 * not come: someone with access deleted it (BullMQ removes a finished call itself, just before its
 * event, hence the second lookup). Without it, the worker's task would wait for that call forever.
 */
function vanished(queue: Queue, jobId: string, finished: Promise<unknown>): { promise: Promise<never>; stop(): void } {
  let done = false;
  let timer: NodeJS.Timeout | undefined;
  const stop = (): void => {
    done = true;
    clearTimeout(timer);
  };
  finished.then(stop, stop);
  const promise = new Promise<never>((_, reject) => {
    let missing = 0;
    const look = async (): Promise<void> => {
      const state = await queue.getJobState(jobId).catch(() => 'unreachable');
      if (done) return;
      missing = state === 'unknown' ? missing + 1 : 0;
      if (missing >= 2) return reject(new Error('the model call is no longer in Redis (removed by someone with access to it, not by this run)'));
      timer = setTimeout(() => void look(), LOOKUP_MS);
    };
    timer = setTimeout(() => void look(), LOOKUP_MS);
  });
  promise.catch(() => undefined);
  return { promise, stop };
}

interface GenerateJobData {
  experiment: JobExperiment;
  request: Omit<CompletionRequest, 'signal'>;
}

/**
 * The worker's part. `provider(e)` is a provider whose calls go through the queue; `serve(provider)`
 * starts taking that queue's calls on this machine (once per provider), with `direct(e)` making them.
 */
export class GenerateQueue {
  private readonly served = new Map<string, Worker>();
  private readonly clients = new Map<string, { queue: Queue; events: QueueEvents; ready: Promise<unknown> }>();

  private readonly finished = new FinishedMessages();

  constructor(
    private readonly address: QueueAddress,
    private readonly runKey: RunKey,
    private readonly direct: (e: JobExperiment) => Provider,
    private readonly concurrency: number,
    private readonly log: (line: string) => void,
    /** The servers this worker may send its keys to: a call naming another is refused. */
    private readonly allowedEndpoints: readonly string[],
  ) {}

  private serve(provider: string): void {
    if (this.served.has(provider)) return;
    const queue = generateQueueName(provider);
    const worker = new Worker(
      queue,
      async (job: Job): Promise<SignedMessage> => {
        const jobId = String(job.id);
        const opened = unseal(this.runKey, job.data, { kind: 'model-call', queue, jobId });
        if ('problem' in opened) {
          this.log(`refused model call ${printable(jobId, 100)} of ${queue}: the call ${opened.problem}`);
          throw new UnrecoverableError(`refused: the call ${opened.problem}`);
        }
        // Each call is made once: a copy of a signed call put back in the queue spends no key again.
        if (this.finished.has(opened.nonce)) throw new UnrecoverableError('refused: this call was made already (a call put back in the queue)');
        this.finished.add(opened.nonce);
        const call = opened.payload as Partial<GenerateJobData> | null;
        const e = call?.experiment;
        if (!e || e.provider !== provider || !call.request) throw new UnrecoverableError('not a model call of this queue');
        const endpoint = endpointProblem(e, this.allowedEndpoints);
        if (endpoint) throw new UnrecoverableError(endpoint);
        const answer = await this.direct(e).complete(call.request);
        return seal(this.runKey, JOB_FORMAT, { kind: 'model-answer', queue, jobId, reply: opened.nonce }, answer).message;
      },
      { connection: connectionOptions(this.address), prefix: QUEUE_PREFIX, concurrency: this.concurrency },
    );
    worker.on('error', (err) => this.log(`model calls (${provider}): ${err.message}`));
    this.served.set(provider, worker);
  }

  private client(provider: string): { queue: Queue; events: QueueEvents; ready: Promise<unknown> } {
    let c = this.clients.get(provider);
    if (!c) {
      const connection = connectionOptions(this.address);
      const queue = new Queue(generateQueueName(provider), { connection, prefix: QUEUE_PREFIX });
      const events = new QueueEvents(generateQueueName(provider), { connection, prefix: QUEUE_PREFIX });
      events.on('error', (err) => this.log(`model call events (${provider}): ${err.message}`));
      c = { queue, events, ready: events.waitUntilReady() };
      this.clients.set(provider, c);
    }
    return c;
  }

  /** A provider like `direct(e)`, each call of which waits its turn under the run's rate limit. */
  provider(e: JobExperiment): Provider {
    const inner = this.direct(e);
    this.serve(e.provider);
    const { queue, events, ready } = this.client(e.provider);
    return {
      id: inner.id,
      isBaseline: inner.isBaseline,
      endpoint: inner.endpoint,
      complete: async (request) => {
        await ready;
        const { signal, ...plain } = request;
        signal?.throwIfAborted();
        // A failed call is the provider client's to retry (its own backoff): the job is not retried.
        const name = generateQueueName(e.provider);
        const jobId = randomBytes(16).toString('hex');
        const { message, nonce } = seal(this.runKey, JOB_FORMAT, { kind: 'model-call', queue: name, jobId }, { experiment: e, request: plain } satisfies GenerateJobData);
        const job = await queue.add('call', message, { jobId, attempts: 1, removeOnComplete: true, removeOnFail: true });
        const finished = (job.waitUntilFinished(events) as Promise<unknown>).then(
          (value) => {
            const opened = unseal(this.runKey, value, { kind: 'model-answer', queue: name, jobId, reply: nonce });
            if ('problem' in opened) {
              this.log(`refused the answer to model call ${jobId}: ${opened.problem}`);
              throw new Error(`the answer to a model call was refused: ${opened.problem}`);
            }
            return opened.payload as CompletionResult;
          },
          (e: unknown) => {
            // BullMQ's failure reason is whatever the failing side wrote: no run key signs it.
            throw new Error(`the model call failed: ${printable(e instanceof Error ? e.message : String(e), 2000)} (a reason as Redis holds it: not signed)`);
          },
        );
        const gone = vanished(queue, jobId, finished);
        return Promise.race([
          finished,
          gone.promise,
          ...(signal ? [new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason ?? new Error('aborted')), { once: true }))] : []),
        ]).finally(gone.stop);
      },
    };
  }

  async close(force = false): Promise<void> {
    await Promise.all([...this.served.values()].map((w) => w.close(force).catch(() => undefined)));
    await Promise.all([...this.clients.values()].map(async (c) => {
      await c.events.close().catch(() => undefined);
      await c.queue.close().catch(() => undefined);
    }));
  }
}
