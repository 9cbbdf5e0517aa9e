import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Job, Queue, QueueEvents } from 'bullmq';
import type { GenerationRecord } from '../generate/types';
import type { LanguageId } from '../languages';
import type { ResultRecord } from '../store/results';
import type { LoadedTask } from '../tasks/load';
import { connectionOptions, type QueueAddress } from './queue-url';
import { checkJobResult, JOB_FORMAT, jobIdOf, QUEUE_PREFIX, queueName, type JobExperiment, type TaskJobData, type TaskJobResult, type TaskSource } from './task-job';

/** A task's answer from the workers: its new records (to append once), or why no worker could run it. */
export type RemoteOutcome = { result: TaskJobResult; ack(): Promise<void> } | { failed: string };

/** What the benchmark loop needs from a distributed runner (BenchHooks.remote). */
export interface RemoteRunner {
  run(task: LoadedTask, known: { generations: GenerationRecord[]; results: ResultRecord[] }, signal?: AbortSignal): Promise<RemoteOutcome>;
  close(): Promise<void>;
}

/** How often pending jobs are looked up directly: events can be missed while Redis reconnects. */
const POLL_MS = 5_000;

/** A run's id, kept in its folder (queue.json): a resumed run's jobs keep their ids. */
export function runIdOf(runDir: string): string {
  const file = path.join(runDir, 'queue.json');
  try {
    const id = (JSON.parse(fs.readFileSync(file, 'utf8')) as { run?: unknown }).run;
    if (typeof id === 'string' && /^[\w-]{1,80}$/.test(id)) return id;
  } catch {
    // none yet
  }
  const id = randomUUID();
  fs.writeFileSync(`${file}.tmp`, JSON.stringify({ run: id }, null, 2) + '\n');
  fs.renameSync(`${file}.tmp`, file);
  return id;
}

interface Waiter {
  task: LoadedTask;
  queue: Queue;
  resolve(o: RemoteOutcome): void;
  reject(e: unknown): void;
}

/**
 * The coordinator's side of the queue: one BullMQ queue per language, a job per task (id = the
 * slot's content key), and the answers collected from BullMQ's events (and, as a backstop, by
 * looking pending jobs up). It never writes the run folder itself: the benchmark loop appends what
 * it returns, then acknowledges (the job is removed); a job finished while the coordinator was away
 * is found completed on resume and collected then.
 */
export class QueueCoordinator implements RemoteRunner {
  private readonly queues = new Map<LanguageId, { queue: Queue; events: QueueEvents }>();
  private readonly waiting = new Map<string, Waiter>();
  private readonly timer: NodeJS.Timeout;
  private polling = false;

  constructor(
    private readonly address: QueueAddress,
    private readonly runId: string,
    private readonly experiment: JobExperiment,
    private readonly sourceOf: (task: LoadedTask) => TaskSource,
    private readonly log: (line: string) => void,
  ) {
    this.timer = setInterval(() => void this.poll(), POLL_MS);
    this.timer.unref();
  }

  private async queueFor(language: LanguageId): Promise<{ queue: Queue; events: QueueEvents }> {
    let q = this.queues.get(language);
    if (!q) {
      const connection = connectionOptions(this.address);
      const name = queueName(language);
      const queue = new Queue(name, { connection, prefix: QUEUE_PREFIX });
      const events = new QueueEvents(name, { connection, prefix: QUEUE_PREFIX });
      queue.on('error', (e) => this.log(`queue ${this.address.display}: ${e.message}`));
      events.on('error', (e) => this.log(`queue events ${this.address.display}: ${e.message}`));
      events.on('completed', ({ jobId }) => void this.settle(jobId));
      events.on('failed', ({ jobId }) => void this.settle(jobId));
      q = { queue, events };
      this.queues.set(language, q);
      await events.waitUntilReady();
    }
    return q;
  }

  private readonly signals = new WeakSet<AbortSignal>();

  /** One listener per signal (a whole dataset waits at once): an abort stops every wait. */
  private listenTo(signal: AbortSignal | undefined): void {
    if (!signal || this.signals.has(signal)) return;
    this.signals.add(signal);
    signal.addEventListener('abort', () => {
      const waiters = [...this.waiting.values()];
      this.waiting.clear();
      for (const w of waiters) w.reject(signal.reason ?? new Error('interrupted'));
    }, { once: true });
  }

  async run(task: LoadedTask, known: { generations: GenerationRecord[]; results: ResultRecord[] }, signal?: AbortSignal): Promise<RemoteOutcome> {
    signal?.throwIfAborted();
    const { queue } = await this.queueFor(task.language);
    const id = jobIdOf(this.runId, task, this.experiment);
    this.listenTo(signal);
    const outcome = new Promise<RemoteOutcome>((resolve, reject) => this.waiting.set(id, { task, queue, resolve, reject }));
    // Rejected by an abort while the job is still being added: handled by the caller, not unhandled here.
    outcome.catch(() => undefined);
    if (signal?.aborted) {
      this.waiting.get(id)?.reject(signal.reason ?? new Error('interrupted'));
      this.waiting.delete(id);
      return outcome;
    }
    const data: TaskJobData = { format: JOB_FORMAT, run: this.runId, task: task.task, source: this.sourceOf(task), experiment: this.experiment, known };
    const existing = await Job.fromId(queue, id);
    if (!existing) {
      // A job that throws (its code could not be fetched, a worker's machine failed) is retried elsewhere.
      await queue.add('task', data, { jobId: id, attempts: 3, backoff: { type: 'exponential', delay: 5_000 }, removeOnComplete: false, removeOnFail: false });
    } else if ((await existing.getState()) === 'failed') {
      await existing.retry('failed'); // a resumed run gives a failed task another go
    }
    void this.settle(id);
    return outcome;
  }

  /** Resolves the waiter of a finished job (completed: its checked records; failed for good: why). */
  private async settle(id: string): Promise<void> {
    const w = this.waiting.get(id);
    if (!w) return;
    // The state first (cheap); the job itself, with its records, only once it is finished.
    const state = await w.queue.getJobState(id).catch(() => 'unknown');
    if (state !== 'completed' && state !== 'failed') return;
    const job = await Job.fromId(w.queue, id).catch(() => undefined);
    if (!job) return;
    if (state === 'completed') {
      if (!this.waiting.delete(id)) return;
      const checked = checkJobResult(job.returnvalue, w.task, this.experiment);
      if ('problem' in checked) {
        w.resolve({ failed: `the worker's answer was refused: ${checked.problem}` });
        return;
      }
      w.resolve({ result: checked.result, ack: () => job.remove().catch(() => undefined) });
    } else if (state === 'failed') {
      if (!this.waiting.delete(id)) return;
      w.resolve({ failed: job.failedReason || 'the job failed' });
    }
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      for (const id of [...this.waiting.keys()]) await this.settle(id);
    } finally {
      this.polling = false;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.queues.values()].map(async ({ queue, events }) => {
      await events.close().catch(() => undefined);
      await queue.close().catch(() => undefined);
    }));
  }
}
