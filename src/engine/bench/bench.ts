import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Executor, PhaseName } from '../execute/types';
import type { ContextMode, GenerationParams, GenerationRecord, Prompt, Provider } from '../generate/types';
import type { RemoteRunner } from '../distributed/coordinator';
import { inProcessPool } from '../schedule/in-process-pool';
import type { Scheduler } from '../schedule/scheduler';
import type { ResultRecord } from '../store/results';
import { runTaskStep } from '../task/run-task-step';
import { ResumableStore, RunFolderLogs, taskKey } from '../task/slot-store';
import type { LoadedTask } from '../tasks/load';

/** What makes a run: resuming with other settings would mix two experiments in one folder. */
export interface BenchSettings {
  datasets: string[];
  provider: string;
  model: string;
  mode: ContextMode;
  samples: number;
  repairRounds: number;
  params: GenerationParams;
  executor: 'docker' | 'local';
  mutation: boolean;
  /** Improvement rounds after a passing test (task/improve-suite.ts); absent: none. */
  improveRounds?: number;
  /** Flaky detection: a passing test runs this many more times in fresh sandboxes (execute/reruns.ts); absent: none. */
  reruns?: number;
}

export interface BenchTask {
  task: LoadedTask;
  checkout: string;
}

export interface BenchHooks {
  /** The model (absent in a distributed run's coordinator: its workers ask their own). */
  provider?: Provider;
  /** Where tests run in this process (absent in a distributed run's coordinator, which runs none). */
  executor?: Executor;
  /** The prompt for a task in the run's mode (context gathered as the mode needs). */
  promptFor(task: BenchTask): Promise<Prompt>;
  /** docker: the image for a repository's environment (built once); local: undefined. */
  imageFor?(task: BenchTask): Promise<string | undefined>;
  /** Mutation score of a passing test (when the run asks for it). */
  mutate?(task: BenchTask, testCode: string, coveredLines: number[]): Promise<ResultRecord['xrt']['mutation']>;
  concurrency: number;
  /** Who runs the tasks (default: the in-process pool of `concurrency`); the task step does not know. */
  scheduler?: Scheduler;
  /**
   * Workers elsewhere run each task step (a distributed queue): this process only sends the tasks and
   * appends what comes back, once per slot key. Every task is sent at once; the workers pace the run.
   */
  remote?: RemoteRunner;
  signal?: AbortSignal;
  onProgress?(p: BenchProgress): void;
  /** What a task is doing now (null: it is done), with the run's counts: progress that names the running task. */
  onTaskPhase?(task: BenchTask, phase: BenchPhase | null, progress: BenchProgress): void;
  timeouts?: { compileMs?: number; buildMs?: number; testMs?: number };
}

/**
 * A running task's phase: gathering its prompt's context, generating, preparing the environment
 * (docker image), the evaluation's own phases (warm-up, compile, test, coverage), mutation testing.
 */
export type BenchPhase = 'context' | 'generating' | 'environment' | PhaseName | 'mutation';

/** The provider as the task sees it: each call says the task is generating (repair rounds too). */
function announcingProvider(provider: Provider, onCall: () => void): Provider {
  const wrapped = Object.create(provider) as Provider & { complete: Provider['complete'] };
  wrapped.complete = (request) => {
    onCall();
    return provider.complete(request);
  };
  return wrapped;
}

export interface BenchProgress {
  tasksDone: number;
  tasksTotal: number;
  results: number;
  passed: number;
  compiled: number;
  coverageSum: number;
  /** Slots the harness could not score (category 'environment'): not in `results`, nor in its rates. */
  environment: number;
  startedAt: number;
  /** Results found on disk from an earlier run of this folder. */
  resumed: number;
  /** Tasks no worker could run (a distributed run): said, not scored; a rerun retries them. */
  failed: number;
  /** A distributed run's workers (`host:pid`): tasks each finished and the time they took. */
  workers: Record<string, { tasks: number; ms: number }>;
}

export interface BenchOutcome {
  results: ResultRecord[];
  generations: GenerationRecord[];
  resumed: number;
  interrupted: boolean;
  /** A distributed run's tasks that no worker could run, with why. */
  failures: Array<{ task: BenchTask; reason: string }>;
}

export function settingsFile(runDir: string): string {
  return path.join(runDir, 'run.json');
}

/** Creates the run folder, or checks that a resumed one was started with the same settings. */
export function openRunDir(runDir: string, settings: BenchSettings): void {
  fs.mkdirSync(runDir, { recursive: true });
  const file = settingsFile(runDir);
  if (fs.existsSync(file)) {
    const before = JSON.parse(fs.readFileSync(file, 'utf8')) as BenchSettings;
    const differs = (Object.keys(settings) as Array<keyof BenchSettings>).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(settings[k]));
    // Absent in folders from before improvement rounds, and when none are asked for: 0 either way.
    if ((before.improveRounds ?? 0) !== (settings.improveRounds ?? 0) && !differs.includes('improveRounds')) differs.push('improveRounds');
    if ((before.reruns ?? 0) !== (settings.reruns ?? 0) && !differs.includes('reruns')) differs.push('reruns');
    if (differs.length) {
      throw new Error(`${runDir} holds a run with other settings (${differs.join(', ')}): resume it with the same settings, or use a new --run-dir`);
    }
    return;
  }
  const tmp = `${file}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(settings, null, 2) + '\n');
  fs.renameSync(tmp, file);
}

/**
 * Generates, runs and scores every task: resumable (records are appended as they finish and read back
 * on restart), concurrent, cancellable. Each task is one task step (src/engine/task): its samples and
 * repair rounds run in order; the scheduler decides how tasks run side by side (default: an in-process
 * pool of `concurrency`). Each test runs in a fresh copy; environments (images, build caches) are shared.
 */
export async function runBench(runDir: string, settings: BenchSettings, tasks: BenchTask[], hooks: BenchHooks): Promise<BenchOutcome> {
  openRunDir(runDir, settings);
  const logs = new RunFolderLogs(runDir);
  const labels = { provider: settings.provider, model: settings.model, mode: settings.mode };
  const store = new ResumableStore(logs, tasks.map((t) => t.task), labels);
  const progress: BenchProgress = {
    tasksDone: 0,
    tasksTotal: tasks.length,
    results: 0,
    passed: 0,
    compiled: 0,
    coverageSum: 0,
    environment: 0,
    startedAt: Date.now(),
    resumed: store.resumed,
    failed: 0,
    workers: {},
  };
  const failures: BenchOutcome['failures'] = [];
  const count = (r: ResultRecord): void => {
    if (r.xrt.failure_category === 'environment') {
      progress.environment++;
      return;
    }
    progress.results++;
    if (r.checks[0].tests) progress.passed++;
    if (r.checks[0].compilation) progress.compiled++;
    const c = r.coverage_stats[0];
    progress.coverageSum += c.total_lines ? c.covered_lines / c.total_lines : 0;
  };

  // A distributed run: the task goes to a worker; what it returns is appended here, once per key.
  const remote = hooks.remote;
  const remoteStep = async (bt: BenchTask): Promise<void> => {
    if (!remote) return;
    const outcome = await remote.run(bt.task, store.recordsOf(bt.task), hooks.signal);
    if ('failed' in outcome) {
      progress.failed++;
      failures.push({ task: bt, reason: outcome.failed });
      hooks.onProgress?.(progress);
      return;
    }
    const { result } = outcome;
    for (const g of result.generations) if (!store.generation(bt.task, labels, g.sample, g.round, g.improve)) store.addGeneration(bt.task, labels, g);
    for (const r of result.results) {
      // A late duplicate (a stalled job run twice) is ignored by its key.
      if (store.result(bt.task, labels, r.xrt.sample, r.xrt.round, r.xrt.test_hash)) continue;
      store.addResult(bt.task, labels, r);
      count(r);
    }
    const w = (progress.workers[result.worker] ??= { tasks: 0, ms: 0 });
    w.tasks++;
    w.ms += result.ms;
    // Appended (and fsynced) first: only then may the job go.
    await outcome.ack();
  };

  const executor = hooks.executor;
  const step = async (bt: BenchTask): Promise<void> => {
    if (remote) return remoteStep(bt);
    const provider = hooks.provider;
    if (!executor || !provider) throw new Error('a benchmark without workers needs an executor and a provider');
    const phase = (p: BenchPhase | null): void => hooks.onTaskPhase?.(bt, p, progress);
    const imageFor = hooks.imageFor;
    const mutate = hooks.mutate;
    phase('context');
    try {
      await runTaskStep(
        bt.task,
        {
          provider: hooks.onTaskPhase ? announcingProvider(provider, () => phase('generating')) : provider,
          params: settings.params,
          labels,
          prompt: () => hooks.promptFor(bt),
          evaluation: {
            executor,
            checkout: bt.checkout,
            image: imageFor && (() => (phase('environment'), imageFor(bt))),
            timeouts: hooks.timeouts,
            onPhase: (p) => phase(p as PhaseName),
            reruns: settings.reruns ?? 0,
          },
          mutate: mutate && ((testCode, coveredLines) => (phase('mutation'), mutate(bt, testCode, coveredLines))),
          store,
        },
        {
          samples: settings.samples,
          repairRounds: settings.repairRounds,
          mutation: settings.mutation,
          improveRounds: settings.improveRounds ?? 0,
          signal: hooks.signal,
          onSlot: (slot) => {
            if (slot.result) count(slot.result);
            hooks.onProgress?.(progress);
          },
        },
      );
    } finally {
      phase(null);
    }
  };

  let interrupted = false;
  try {
    const outcome = await (hooks.scheduler ?? inProcessPool).run(tasks, step, {
      concurrency: remote ? tasks.length : hooks.concurrency,
      signal: hooks.signal,
      onResult: () => {
        progress.tasksDone++;
        hooks.onProgress?.(progress);
      },
    });
    interrupted = outcome.interrupted;
  } finally {
    logs.close();
  }
  const byTask = new Set(tasks.map((t) => taskKey(t.task)));
  return {
    results: logs.results.records.filter((r) => byTask.has(r.id ?? `${r.xrt.language}:${r.task_id}`)),
    generations: logs.generations.records,
    resumed: progress.resumed,
    interrupted: interrupted || !!hooks.signal?.aborted,
    failures,
  };
}
