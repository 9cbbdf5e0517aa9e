import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Executor, PhaseName } from '../execute/types';
import type { ContextMode, GenerationParams, GenerationRecord, Prompt, Provider } from '../generate/types';
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
}

export interface BenchTask {
  task: LoadedTask;
  checkout: string;
}

export interface BenchHooks {
  provider: Provider;
  executor: Executor;
  /** The prompt for a task in the run's mode (context gathered as the mode needs). */
  promptFor(task: BenchTask): Promise<Prompt>;
  /** docker: the image for a repository's environment (built once); local: undefined. */
  imageFor?(task: BenchTask): Promise<string | undefined>;
  /** Mutation score of a passing test (when the run asks for it). */
  mutate?(task: BenchTask, testCode: string, coveredLines: number[]): Promise<ResultRecord['xrt']['mutation']>;
  concurrency: number;
  /** Who runs the tasks (default: the in-process pool of `concurrency`); the task step does not know. */
  scheduler?: Scheduler;
  signal?: AbortSignal;
  onProgress?(p: BenchProgress): void;
  /** What a task is doing now (null: it is done), with the run's counts: progress that names the running task. */
  onTaskPhase?(task: BenchTask, phase: BenchPhase | null, progress: BenchProgress): void;
  timeouts?: { compileMs?: number; testMs?: number };
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
}

export interface BenchOutcome {
  results: ResultRecord[];
  generations: GenerationRecord[];
  resumed: number;
  interrupted: boolean;
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
  };
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

  const step = async (bt: BenchTask): Promise<void> => {
    const phase = (p: BenchPhase | null): void => hooks.onTaskPhase?.(bt, p, progress);
    const imageFor = hooks.imageFor;
    const mutate = hooks.mutate;
    phase('context');
    try {
      await runTaskStep(
        bt.task,
        {
          provider: hooks.onTaskPhase ? announcingProvider(hooks.provider, () => phase('generating')) : hooks.provider,
          params: settings.params,
          labels,
          prompt: () => hooks.promptFor(bt),
          evaluation: {
            executor: hooks.executor,
            checkout: bt.checkout,
            image: imageFor && (() => (phase('environment'), imageFor(bt))),
            timeouts: hooks.timeouts,
            onPhase: (p) => phase(p as PhaseName),
          },
          mutate: mutate && ((testCode, coveredLines) => (phase('mutation'), mutate(bt, testCode, coveredLines))),
          store,
        },
        {
          samples: settings.samples,
          repairRounds: settings.repairRounds,
          mutation: settings.mutation,
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
      concurrency: hooks.concurrency,
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
  };
}
