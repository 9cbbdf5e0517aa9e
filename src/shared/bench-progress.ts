/**
 * The pure parts of a benchmark's progress notification (no `vscode`, no engine code): the time-left
 * estimate and the words of the notification. The server computes the estimate (it knows the running
 * tasks), the extension writes the line.
 */
import { formatDuration } from './bench-options';
import type { BenchActivityParams, BenchProgressParams, BenchRunningTask, BenchTaskPhase } from './bench-protocol';

/** A phase as a developer says it. */
export const PHASE_TEXT: Record<BenchTaskPhase, string> = {
  context: 'gathering context',
  generating: 'generating the test',
  environment: 'preparing the environment',
  'warm-up': 'building the project',
  compile: 'building the test',
  'compile-retry': 'building the test again',
  test: 'running the test',
  coverage: 'measuring coverage',
  mutation: 'mutation testing',
};

export interface EtaInput {
  tasksDone: number;
  tasksTotal: number;
  /** Since the run started. */
  elapsedMs: number;
  /** How long each running task has run so far. */
  runningElapsedMs: readonly number[];
}

/**
 * Time left, kept honest: the rate of the tasks finished so far applied to the ones left, computed
 * with the current time (so it grows while nothing finishes), and never less than the longest
 * running task has already run (a task past the estimate says the estimate was short). null before
 * any task finished: there is nothing to estimate from yet.
 */
export function honestEtaMs({ tasksDone, tasksTotal, elapsedMs, runningElapsedMs }: EtaInput): number | null {
  if (tasksDone >= tasksTotal) return 0;
  if (tasksDone <= 0) return null;
  const fromRate = (elapsedMs / tasksDone) * (tasksTotal - tasksDone);
  return Math.max(fromRate, ...runningElapsedMs);
}

const seconds = (ms: number): string => `${Math.round(ms / 1000)} s`;

/** `Find in chi: running the test · 42 s of 300 s`. */
export function formatRunningTask(t: BenchRunningTask): string {
  const limit = t.limitMs ? ` of ${seconds(t.limitMs)}` : '';
  return `${t.function} in ${t.repository}: ${PHASE_TEXT[t.phase]} · ${seconds(t.phaseElapsedMs)}${limit}`;
}

/** At most this many running tasks are named; the rest are counted. */
const NAMED = 2;

/**
 * The notification's line from the last progress (per result and task) and the last activity (per
 * phase and every few seconds): `Find in chi: running the test · 42 s of 300 s — 1/2 tasks done ·
 * 1 of 1 tests pass · about 5m10s left`. Either may be missing early in the run.
 */
export function formatBenchNotification(progress: BenchProgressParams | undefined, activity: BenchActivityParams | undefined): string {
  const parts: string[] = [];
  const running = activity?.running ?? [];
  if (running.length) {
    const named = running.slice(0, NAMED).map(formatRunningTask).join('; ');
    parts.push(running.length > NAMED ? `${named}; ${running.length - NAMED} more running` : named);
  }
  const done = Math.max(progress?.tasksDone ?? 0, activity?.tasksDone ?? 0);
  const total = progress?.tasksTotal ?? activity?.tasksTotal;
  const counts: string[] = [];
  if (total !== undefined) counts.push(`${done}/${total} tasks done${progress?.resumed ? ` (${progress.resumed} results from before)` : ''}`);
  if (progress?.results) {
    const passing = Math.round((progress.tpr * progress.results) / 100);
    counts.push(`${passing} of ${progress.results} tests pass`);
  }
  // The activity's estimate is the newer one (it is sent every few seconds); a finished run has none.
  const eta = activity && activity.tasksDone >= done ? activity.etaMs : (progress?.etaMs ?? null);
  if (total !== undefined && done < total) counts.push(eta === null ? 'estimating the time left' : `about ${formatDuration(eta)} left`);
  if (counts.length) parts.push(counts.join(' · '));
  return parts.join(' — ') || 'loading tasks…';
}
