import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Executor } from '../execute/types';
import type { GenerationParams, Prompt, Provider } from '../generate/types';
import type { LanguageId } from '../languages';
import type { ResultMutation } from '../mutate/run';
import { runTaskStep } from '../task/run-task-step';
import { MemoryStore, type SlotLabels } from '../task/slot-store';
import type { LoadedTask } from '../tasks/load';
import { readSandboxFile } from '../execute/safe-fs';
import { pathInRepository, repositoryFolderOf } from '../tasks/task-path';
import { connectionOptions, type QueueAddress } from './queue-url';
import { checkoutOf } from './sources';
import { checkJobData, endpointProblem, JOB_FORMAT, QUEUE_PREFIX, queueName, type JobExperiment, type TaskJobData, type TaskJobResult } from './task-job';

/** What a worker builds for one experiment (once, then reused for its every job). */
export interface ExperimentServices {
  provider: Provider;
  params: GenerationParams;
  promptFor(task: LoadedTask, checkout: string): Promise<Prompt>;
  /** docker: the repository's environment image (built once on this machine). */
  imageFor?(checkout: string, language: LanguageId): Promise<string | undefined>;
  /** `image`: the image the task's tests run in when the task says (a published image); else the worker's own. */
  mutate?(task: LoadedTask, checkout: string, testCode: string, coveredLines: number[], image?: string): Promise<ResultMutation | null | undefined>;
}

export interface QueueWorkerOptions {
  address: QueueAddress;
  languages: readonly LanguageId[];
  /** Tasks at once on this machine. */
  concurrency: number;
  /** `host:pid`: in the records' answers and the coordinator's progress. */
  name: string;
  /** Fetched repositories and exported trees (kept between runs). */
  cacheDir: string;
  /** The executor of a kind (made once); `only` set: jobs of the other kind are refused. */
  executor(kind: 'docker' | 'local'): Promise<Executor>;
  only?: 'docker' | 'local';
  servicesFor(e: JobExperiment): ExperimentServices;
  log(line: string): void;
  /** A job's lock lapses this long after its worker stopped renewing it (default 60 s). */
  stalledAfterMs?: number;
  /** The base and embedding URLs this worker may send its keys to (its --base-url, --embed-url). */
  allowedEndpoints: readonly string[];
  /**
   * A published image's copy of a repository (`/app/repo_data/<lang>/<repoDir>`), the image pulled by
   * its digest where missing; absent where the worker has no container engine.
   */
  publishedCheckout?(image: string, language: LanguageId, repoDir: string): Promise<string>;
  /**
   * Replaces what a checked job runs (fetch, task step) — `npm run bench:scale`'s synthetic step,
   * which measures the queue alone. Its records are the answer's.
   */
  step?(job: TaskJobData, task: LoadedTask): Promise<Pick<TaskJobResult, 'generations' | 'results'>>;
}

export interface QueueWorker {
  /** Tasks this worker finished. */
  readonly done: number;
  /** Stops taking jobs; finishes the running ones (`force`: abandons them to BullMQ's stalled-job recovery). */
  close(force?: boolean): Promise<void>;
  /** Resolves once no task of this worker is running (at once when none is). */
  idle(): Promise<void>;
}

/**
 * A worker: takes task jobs of its languages from the run's queues, fetches each task's code itself
 * (the coordinator's file system is never read), runs the one task step and returns the new records.
 * The coordinator appends them; a worker never writes a run folder.
 */
export async function startQueueWorker(opts: QueueWorkerOptions): Promise<QueueWorker> {
  const abort = new AbortController();
  let done = 0;
  let running = 0;
  let idleWaiters: Array<() => void> = [];
  const processor = async (job: Job): Promise<TaskJobResult> => {
    running++;
    try {
      return await processJob(job);
    } finally {
      if (--running === 0) {
        for (const wake of idleWaiters) wake();
        idleWaiters = [];
      }
    }
  };
  const processJob = async (job: Job): Promise<TaskJobResult> => {
    const checked = checkJobData(job.data);
    // A job no worker can use fails at once, saying why (no retries).
    if ('problem' in checked) throw new UnrecoverableError(checked.problem);
    const { job: data, task } = checked;
    const e = data.experiment;
    if (opts.only && opts.only !== e.executor) throw new UnrecoverableError(`this worker runs the ${opts.only} executor; the run asks for ${e.executor}`);
    const endpoint = endpointProblem(e, opts.allowedEndpoints);
    if (endpoint) throw new UnrecoverableError(endpoint);
    const started = Date.now();
    if (opts.step) {
      const records = await opts.step(data, task);
      done++;
      return { format: JOB_FORMAT, worker: opts.name, ...records, ms: Date.now() - started };
    }
    const name = repositoryFolderOf(task.task.file_path);
    const source = data.source;
    let checkout: string;
    let where: string;
    if (source.kind === 'image') {
      // The tests run in the image that holds the code: only the docker executor can.
      if (e.executor !== 'docker') throw new UnrecoverableError('a task from a published image runs with the docker executor only');
      if (!opts.publishedCheckout) throw new UnrecoverableError('this worker cannot read published images (no container engine)');
      checkout = await opts.publishedCheckout(source.image, task.language, source.repoDir);
      where = `in ${source.image}`;
    } else {
      checkout = await checkoutOf(source, name, opts.cacheDir);
      where = `at ${source.commit.slice(0, 12)} of ${source.url}`;
    }
    // Read with no link followed anywhere on the path: a repository may link a folder out of its tree,
    // and comparing a file of this machine with the job's file_content would tell its author what it holds.
    let content: string | null;
    try {
      content = readSandboxFile(checkout, pathInRepository(task.task));
    } catch (err) {
      throw new UnrecoverableError(`${task.task.file_path} ${where}: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (content !== task.task.file_content) {
      throw new UnrecoverableError(`${task.task.file_path} ${where} ${content === null ? 'does not exist' : "is not the task's file_content"}`);
    }
    const executor = await opts.executor(e.executor);
    const s = opts.servicesFor(e);
    const labels: SlotLabels = { provider: e.provider, model: e.model, mode: e.mode };
    const store = new MemoryStore(task, labels, data.known);
    const imageFor = source.kind === 'image' ? async () => source.image : s.imageFor;
    const mutate = s.mutate;
    await runTaskStep(
      task,
      {
        provider: s.provider,
        params: s.params,
        labels,
        prompt: () => s.promptFor(task, checkout),
        evaluation: { executor, checkout, image: imageFor && (() => imageFor(checkout, task.language)), timeouts: e.timeouts, reruns: e.reruns ?? 0 },
        mutate: mutate && ((testCode, coveredLines) => mutate(task, checkout, testCode, coveredLines, source.kind === 'image' ? source.image : undefined)),
        store,
      },
      { samples: e.samples, repairRounds: e.repairRounds, mutation: e.mutation, improveRounds: e.improveRounds ?? 0, signal: abort.signal },
    );
    done++;
    opts.log(`task ${task.task.id ?? `${task.language}:${task.task.task_id}`} done in ${((Date.now() - started) / 1000).toFixed(1)} s (${store.newResults.length} new results)`);
    return { format: JOB_FORMAT, worker: opts.name, generations: store.newGenerations, results: store.newResults, ms: Date.now() - started };
  };

  const connection = connectionOptions(opts.address);
  const workers = opts.languages.map((language) => {
    const w = new Worker(queueName(language), processor, {
      connection,
      prefix: QUEUE_PREFIX,
      concurrency: opts.concurrency,
      // A job's lock is renewed while it runs; a worker gone (killed, machine lost) lets it lapse and
      // another worker takes the job over (BullMQ's stalled-job check).
      lockDuration: opts.stalledAfterMs ?? 60_000,
      stalledInterval: Math.max(1_000, Math.round((opts.stalledAfterMs ?? 60_000) / 2)),
      maxStalledCount: 2,
    });
    w.on('error', (err) => opts.log(`worker ${language}: ${err.message}`));
    w.on('failed', (job, err) => opts.log(`task ${job?.data?.task?.id ?? job?.id ?? '?'} failed here: ${err.message}`));
    return w;
  });
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  return {
    get done() {
      return done;
    },
    async close(force = false) {
      if (force) abort.abort(new Error('the worker was stopped'));
      await Promise.all(workers.map((w) => w.close(force)));
    },
    idle() {
      return running === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve));
    },
  };
}
