import * as path from 'node:path';
import type { BenchPhase, BenchProgress, BenchTask } from '../engine/bench/bench';
import { runBenchmark, type BenchmarkPlan } from '../engine/bench/run-benchmark';
import { writeWorkspaceTasks } from '../engine/bench/workspace-tasks';
import { DEFAULT_TIMEOUTS } from '../engine/execute/toolchain';
import { environmentImages } from '../engine/execute/environment-images';
import { formatSummaryText } from '../engine/report/summary-text';
import { taskKey } from '../engine/task/slot-store';
import { repositoryNameOf } from '../engine/tasks/task-path';
import { BENCH_ACTIVITY, BENCH_PROGRESS, RUN_BENCHMARK, type BenchActivityParams, type BenchProgressParams, type BenchRunningTask, type RunBenchmarkParams, type RunBenchmarkResult } from '../shared/bench-protocol';
import { honestEtaMs } from '../shared/bench-progress';
import { paramsFor, promptFor, providerFor } from './generation';
import type { ServerState } from './state';
import { onClientRequest } from './wire';
import { wireSummary } from './wire-mapping';
import { editorTimeouts } from './limits';

/** How often the notification's elapsed times and estimate move while no task changes phase. */
export const BENCH_ACTIVITY_INTERVAL_MS = 2000;

/**
 * The limit the run puts on a phase (the evaluation's timeouts); none on generation or mutation, and
 * none shown for a build, which is limited by its progress (the time since it last printed), not by a
 * clock a user could read against.
 */
function phaseLimitMs(phase: BenchPhase, testMs: number): number | null {
  switch (phase) {
    case 'test':
      return testMs;
    case 'coverage':
      return DEFAULT_TIMEOUTS.coverageMs;
    default:
      return null;
  }
}

/** The task's repository as the reports name it; the checkout's folder for a path that names none. */
function repositoryOf(task: BenchTask): string {
  try {
    return repositoryNameOf(task.task.task);
  } catch {
    return path.basename(task.checkout);
  }
}

/**
 * The run's running tasks and counts, for the activity notification: updated by the engine's hooks,
 * read on each phase change and by a timer (so a long task's elapsed time and the estimate move).
 */
export class BenchActivity {
  private readonly running = new Map<string, { task: BenchTask; phase: BenchPhase; phaseStartedAt: number; taskStartedAt: number }>();
  private counts: { tasksDone: number; tasksTotal: number; startedAt: number } | undefined;

  constructor(
    private readonly runDir: string,
    private readonly testMs: number,
  ) {}

  progress(p: BenchProgress): void {
    this.counts = { tasksDone: p.tasksDone, tasksTotal: p.tasksTotal, startedAt: p.startedAt };
  }

  phase(task: BenchTask, phase: BenchPhase | null, now = Date.now()): void {
    const key = taskKey(task.task);
    if (phase === null) {
      this.running.delete(key);
      return;
    }
    const before = this.running.get(key);
    this.running.set(key, { task, phase, phaseStartedAt: before?.phase === phase ? before.phaseStartedAt : now, taskStartedAt: before?.taskStartedAt ?? now });
  }

  runningElapsed(now = Date.now()): number[] {
    return [...this.running.values()].map((r) => now - r.taskStartedAt);
  }

  /** Undefined until the engine has said how many tasks there are. */
  snapshot(now = Date.now()): BenchActivityParams | undefined {
    if (!this.counts) return undefined;
    const running: BenchRunningTask[] = [...this.running.values()].map((r) => ({
      function: r.task.task.task.function_name,
      repository: repositoryOf(r.task),
      language: r.task.task.language,
      phase: r.phase,
      phaseElapsedMs: now - r.phaseStartedAt,
      taskElapsedMs: now - r.taskStartedAt,
      limitMs: phaseLimitMs(r.phase, this.testMs),
    }));
    const elapsedMs = now - this.counts.startedAt;
    const { tasksDone, tasksTotal } = this.counts;
    return { runDir: this.runDir, running, tasksDone, tasksTotal, elapsedMs, etaMs: honestEtaMs({ tasksDone, tasksTotal, elapsedMs, runningElapsedMs: this.runningElapsed(now) }), pid: process.pid };
  }
}

/** "Run a benchmark…": the CLI's bench orchestration, with the editor's settings, progress and cancellation. */
export function registerBench(state: ServerState): void {
  const { connection } = state;
  /** A folder takes one run at a time: two would append to the same logs. */
  const running = new Set<string>();

  onClientRequest(connection, RUN_BENCHMARK, async (params: RunBenchmarkParams, token): Promise<RunBenchmarkResult> => {
    const runDir = path.resolve(params.runDir);
    if (running.has(runDir)) throw new Error(`a benchmark is already running in ${runDir}: wait for it or cancel it`);
    running.add(runDir);
    const controller = new AbortController();
    const cancel = token.onCancellationRequested(() => controller.abort(new Error('cancelled')));
    const log = (line: string): void => connection.console.info(`bench: ${line}`);
    const activity = new BenchActivity(runDir, params.settings.testTimeoutSeconds * 1000);
    const sendActivity = (): void => {
      const a = activity.snapshot();
      if (a) void connection.sendNotification(BENCH_ACTIVITY, a);
    };
    const ticker = setInterval(sendActivity, BENCH_ACTIVITY_INTERVAL_MS);
    ticker.unref?.();
    try {
      const settings = params.settings;
      const dataset =
        params.dataset.kind === 'workspace'
          ? {
              tasks: await writeWorkspaceTasks(
                params.dataset.folder,
                runDir,
                { minLines: settings.minLines, maxLines: settings.maxLines },
                'lower "xrepotest.extract.minLines" or pick another dataset',
                controller.signal,
                log,
              ),
            }
          : params.dataset;
      const generation = paramsFor(settings);
      const plan: BenchmarkPlan = {
        dataset: [dataset.tasks],
        manifest: 'manifest' in dataset ? dataset.manifest : undefined,
        repos: 'repos' in dataset ? dataset.repos : undefined,
        // The open folder's own tasks record that folder as their checkout: the one place they may name.
        allowCheckouts: params.dataset.kind === 'workspace' ? path.resolve(params.dataset.folder) : undefined,
        lang: params.lang,
        limit: params.limit,
        runDir,
        concurrency: params.concurrency,
        settings: {
          provider: settings.provider,
          model: generation.model,
          mode: settings.mode,
          samples: 1,
          repairRounds: 0,
          params: generation,
          executor: settings.executor,
          mutation: false,
        },
        timeouts: editorTimeouts(settings),
      };
      const outcome = await runBenchmark(
        plan,
        {
          executor: () => state.executor(settings.executor),
          provider: () => providerFor(settings, params.credentials, state.editorChat),
          imageFor: (executor) => environmentImages(executor, undefined, log),
          promptBuilder: () => ({
            promptFor: (bt) => promptFor(bt.task.task, bt.task.language, bt.checkout, settings, state.lspContext, controller.signal, params.credentials),
            close: async () => undefined,
          }),
        },
        {
          log,
          signal: controller.signal,
          onTaskPhase(task, phase, p) {
            activity.progress(p);
            activity.phase(task, phase);
            sendActivity();
          },
          onProgress(p) {
            activity.progress(p);
            const elapsedMs = Date.now() - p.startedAt;
            const pct = (n: number): number => (p.results ? (100 * n) / p.results : 0);
            const progress: BenchProgressParams = {
              runDir,
              tasksDone: p.tasksDone,
              tasksTotal: p.tasksTotal,
              results: p.results,
              resumed: p.resumed,
              csr: pct(p.compiled),
              tpr: pct(p.passed),
              coverage: pct(p.coverageSum),
              elapsedMs,
              etaMs: honestEtaMs({ tasksDone: p.tasksDone, tasksTotal: p.tasksTotal, elapsedMs, runningElapsedMs: activity.runningElapsed() }),
              pid: process.pid,
            };
            void connection.sendNotification(BENCH_PROGRESS, progress);
          },
        },
      );
      const summaryText = formatSummaryText(outcome.summary);
      log(`${outcome.interrupted ? 'interrupted' : 'done'}: ${outcome.results.length} results in ${runDir}\n${summaryText}`);
      return {
        runDir,
        results: outcome.results.length,
        resumed: outcome.resumed,
        tasks: outcome.tasks,
        excluded: outcome.excluded,
        interrupted: outcome.interrupted,
        summary: wireSummary(outcome.summary),
        summaryText,
        reports: outcome.reports,
        checkouts: path.join(runDir, 'checkouts.json'),
        pid: process.pid,
      };
    } finally {
      clearInterval(ticker);
      cancel.dispose();
      running.delete(runDir);
    }
  });
}
