import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Job, Queue, QueueEvents } from 'bullmq';
import type { GenerationRecord } from '../generate/types';
import type { LanguageId } from '../languages';
import type { ResultRecord } from '../store/results';
import type { LoadedTask } from '../tasks/load';
import { connectionOptions, type QueueAddress } from './queue-url';
import { printable, seal, unseal, type RunKey } from './run-key';
import { checkJobResult, JOB_FORMAT, jobIdOf, QUEUE_PREFIX, queueName, type JobExperiment, type TaskJobData, type TaskJobResult, type TaskSource } from './task-job';

/** A task's answer from the workers: its new records (to append once), or why no worker could run it. */
export type RemoteOutcome = { result: TaskJobResult; ack(): Promise<void> } | { failed: string };

/** What the benchmark loop needs from a distributed runner (BenchHooks.remote). */
export interface RemoteRunner {
  run(task: LoadedTask, known: { generations: GenerationRecord[]; results: ResultRecord[] }, signal?: AbortSignal): Promise<RemoteOutcome>;
  close(): Promise<void>;
}

const labelOf = (task: LoadedTask): string => task.task.id ?? `${task.language}:${task.task.task_id}`;

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
  /** The nonce of the job this coordinator signed: the only answer taken is the one to it. */
  nonce?: string;
  /** The job is in Redis (added or found): from then on, a job missing there was removed by someone. */
  queued?: boolean;
  resolve(o: RemoteOutcome): void;
  reject(e: unknown): void;
}

/**
 * The coordinator's side of the queue: one BullMQ queue per language, a job per task (id = the
 * slot's content key), and the answers collected from BullMQ's events (and, as a backstop, by
 * looking pending jobs up). It never writes the run folder itself: the benchmark loop appends what
 * it returns, then acknowledges (the job is removed); a job finished while the coordinator was away
 * is found completed on resume and collected then. Jobs go out signed with the run key, and only an
 * answer signed with it for that very job (its queue, id and nonce) is taken: whoever else writes to
 * Redis can delay or drop a task, not forge its result.
 */
export class QueueCoordinator implements RemoteRunner {
  private readonly queues = new Map<LanguageId, { queue: Queue; events: QueueEvents }>();
  private readonly waiting = new Map<string, Waiter>();
  private readonly timer: NodeJS.Timeout;
  private polling = false;
  private refusedCount = 0;

  constructor(
    private readonly address: QueueAddress,
    private readonly runKey: RunKey,
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
    const binding = { kind: 'task-job', queue: queue.name, jobId: id } as const;
    let existing = await Job.fromId(queue, id);
    if (existing) {
      // A resumed run's job, or one someone put under this id before us (ids are content keys anyone
      // reading Redis can work out): only a job this run key signed is kept.
      const opened = unseal(this.runKey, existing.data, binding);
      if ('problem' in opened) {
        this.refused(`the job in Redis for task ${labelOf(task)} was not sent by this run (${opened.problem}): replacing it`);
        await existing.remove().catch(() => undefined);
        existing = undefined;
      } else {
        const w = this.waiting.get(id);
        if (w) w.nonce = opened.nonce;
      }
    }
    if (!existing) {
      const { message, nonce } = seal(this.runKey, JOB_FORMAT, binding, data);
      const w = this.waiting.get(id);
      if (w) w.nonce = nonce;
      // A job that throws (its code could not be fetched, a worker's machine failed) is retried elsewhere.
      await queue.add('task', message, { jobId: id, attempts: 3, backoff: { type: 'exponential', delay: 5_000 }, removeOnComplete: false, removeOnFail: false });
    } else if ((await existing.getState()) === 'failed') {
      await existing.retry('failed'); // a resumed run gives a failed task another go
    }
    const w = this.waiting.get(id);
    if (w) w.queued = true;
    void this.settle(id);
    return outcome;
  }

  /** Messages refused so far: jobs in Redis this run did not sign, answers not signed for their job. */
  get refusedMessages(): number {
    return this.refusedCount;
  }

  private refused(line: string): void {
    this.refusedCount++;
    this.log(`refused: ${line} (${this.refusedCount} refused so far)`);
  }

  /** Resolves the waiter of a finished job (completed: its checked records; failed for good: why). */
  private async settle(id: string): Promise<void> {
    const w = this.waiting.get(id);
    if (!w?.nonce) return;
    // The state first (cheap); the job itself, with its records, only once it is finished.
    const state = await w.queue.getJobState(id).catch(() => 'unreachable');
    if (state === 'unknown' && w.queued && this.waiting.delete(id)) {
      // Only this coordinator removes its jobs, after their answer is appended: someone with access to
      // Redis deleted it, or changed its options so that BullMQ did (removeOnComplete). Waiting on would
      // be forever.
      this.refused(`the job of task ${labelOf(w.task)} is no longer in Redis`);
      w.resolve({ failed: 'its job is no longer in Redis (removed by someone with access to it, not by this run); run the same command again to send it afresh' });
      return;
    }
    if (state !== 'completed' && state !== 'failed') return;
    const job = await Job.fromId(w.queue, id).catch(() => undefined);
    if (!job) return;
    if (state === 'completed') {
      if (!this.waiting.delete(id)) return;
      const opened = unseal(this.runKey, job.returnvalue, { kind: 'task-result', queue: w.queue.name, jobId: id, reply: w.nonce });
      if ('problem' in opened) {
        // Removed, so that running the command again sends the task afresh (a new nonce) to the workers.
        this.refused(`the answer for task ${labelOf(w.task)}: ${opened.problem}`);
        await job.remove().catch(() => undefined);
        w.resolve({ failed: `its answer was refused (${opened.problem}); run the same command again to send it to the workers afresh` });
        return;
      }
      const checked = checkJobResult(opened.payload, w.task, this.experiment);
      if ('problem' in checked) {
        w.resolve({ failed: `the worker's answer was refused: ${checked.problem}` });
        return;
      }
      w.resolve({ result: checked.result, ack: () => job.remove().catch(() => undefined) });
    } else if (state === 'failed') {
      if (!this.waiting.delete(id)) return;
      // BullMQ's failure reason is whatever the failing side wrote: no run key signs it.
      w.resolve({ failed: `${printable(job.failedReason || 'the job failed', 2000)} (a reason as Redis holds it: not signed)` });
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
