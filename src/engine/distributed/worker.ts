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
import { FinishedMessages, printable, seal, unseal, type RunKey, type SignedMessage } from './run-key';
import { sourceProblem, type SourceRule } from './source-policy';
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
  /** The run key: only jobs signed with it run, and every answer is signed with it. */
  runKey: RunKey;
  /** The sources this worker fetches (`--allow-source`; parseSourceRules). */
  allowedSources: readonly SourceRule[];
  /** `--unconfined-ok`: the operator accepts running jobs' tests with the local executor outside bubblewrap. */
  unconfinedOk?: boolean;
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
  /** Jobs refused unrun: unsigned, signed with another key, altered, replayed. */
  readonly refused: number;
  /** Stops taking jobs; finishes the running ones (`force`: abandons them to BullMQ's stalled-job recovery). */
  close(force?: boolean): Promise<void>;
  /** Resolves once no task of this worker is running (at once when none is). */
  idle(): Promise<void>;
}

/**
 * Why this executor would run a job's test with no sandbox, or null. The local executor without
 * bubblewrap (LocalExecutor.isolated false) runs tests as this worker's user, with its network and
 * its files: a worker refuses that unless its operator said --unconfined-ok.
 */
export function unconfinedProblem(executor: Executor): string | null {
  if (executor.kind !== 'local' || (executor as Executor & { isolated?: boolean }).isolated !== false) return null;
  return (
    'bubblewrap is not installed here, so the local executor would run the jobs\' tests unconfined (as this user, with its files and network): ' +
    'install bubblewrap (Debian: apt-get install bubblewrap), or take docker jobs only (--executor docker), or accept it with --unconfined-ok'
  );
}

/**
 * A worker: takes task jobs of its languages from the run's queues, fetches each task's code itself
 * (the coordinator's file system is never read), runs the one task step and returns the new records.
 * The coordinator appends them; a worker never writes a run folder.
 */
export async function startQueueWorker(opts: QueueWorkerOptions): Promise<QueueWorker> {
  const abort = new AbortController();
  let done = 0;
  let refused = 0;
  const finished = new FinishedMessages();
  /** Nonces of jobs answered here, until BullMQ has recorded them completed. */
  const answered = new Map<string, string>();
  let running = 0;
  let idleWaiters: Array<() => void> = [];
  const run = async (job: Job, payload: unknown): Promise<TaskJobResult> => {
    running++;
    try {
      return await processJob(job, payload);
    } finally {
      if (--running === 0) {
        for (const wake of idleWaiters) wake();
        idleWaiters = [];
      }
    }
  };
  /** Refuses a job unrun: failed at once (no retries), said here and counted. */
  const refuse = (job: Job, problem: string): never => {
    refused++;
    opts.log(`refused job ${printable(String(job.id), 100)} of ${job.queueName}: ${problem} (${refused} refused so far)`);
    throw new UnrecoverableError(`refused by ${opts.name}: ${problem}`);
  };
  const processor = async (job: Job): Promise<SignedMessage> => {
    // Nothing of a job is read before its signature is checked: its text is then all that is used.
    const opened = unseal(opts.runKey, job.data, { kind: 'task-job', queue: job.queueName, jobId: String(job.id) });
    if ('problem' in opened) return refuse(job, `the job ${opened.problem}`);
    if (finished.has(opened.nonce)) return refuse(job, 'this worker already finished this job (a finished job put back in the queue)');
    const result = await run(job, opened.payload);
    answered.set(String(job.id), opened.nonce);
    return seal(opts.runKey, JOB_FORMAT, { kind: 'task-result', queue: job.queueName, jobId: String(job.id), reply: opened.nonce }, result).message;
  };
  const processJob = async (job: Job, payload: unknown): Promise<TaskJobResult> => {
    const checked = checkJobData(payload);
    // A job no worker can use fails at once, saying why (no retries).
    if ('problem' in checked) throw new UnrecoverableError(checked.problem);
    const { job: data, task } = checked;
    const e = data.experiment;
    if (opts.only && opts.only !== e.executor) throw new UnrecoverableError(`this worker runs the ${opts.only} executor; the run asks for ${e.executor}`);
    const endpoint = endpointProblem(e, opts.allowedEndpoints);
    if (endpoint) throw new UnrecoverableError(endpoint);
    const source = data.source;
    const notAllowed = sourceProblem(source, opts.allowedSources);
    if (notAllowed) return refuse(job, notAllowed);
    const started = Date.now();
    if (opts.step) {
      const records = await opts.step(data, task);
      done++;
      return { format: JOB_FORMAT, worker: opts.name, ...records, ms: Date.now() - started };
    }
    // Before anything is fetched: a worker that would run the tests unconfined takes no job unless told.
    const executor = await opts.executor(e.executor);
    const unconfined = unconfinedProblem(executor);
    if (unconfined && !opts.unconfinedOk) return refuse(job, unconfined);
    const name = repositoryFolderOf(task.task.file_path);
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
    // A job is finished once BullMQ has recorded its answer: only then is running it again a replay.
    w.on('completed', (job) => {
      const nonce = answered.get(String(job.id));
      answered.delete(String(job.id));
      if (nonce) finished.add(nonce);
    });
    w.on('failed', (job, err) => {
      answered.delete(String(job?.id));
      if (!err.message.startsWith('refused by ')) opts.log(`job ${printable(String(job?.id ?? '?'), 100)} failed here: ${err.message}`);
    });
    return w;
  });
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  return {
    get done() {
      return done;
    },
    get refused() {
      return refused;
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
