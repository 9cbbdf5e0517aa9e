import { adapterFor } from '../languages';
import type { LanguageId } from '../parse/grammars';
import type { EnvironmentProblem } from '../score/types';
import type { TaskRecord } from '../tasks/record';
import { buildTimeKey, buildTimesFile, lastBuildTime, recordBuildTime } from './build-times';
import { evaluateTest, type EvaluateOptions } from './evaluate';

/** What a slot needs before its test exists is ready (`built`: this call ran the build), or why it cannot be. */
export type PreparedEnvironment = { ready: true; built: boolean; durationMs: number } | { ready: false; problem: EnvironmentProblem; durationMs: number };

/** A build's progress as its output shows it: units built so far (`unit`: crates, packages) and the last line it printed. */
export interface BuildProgress {
  built: number;
  unit: string | null;
  lastLine: string;
  /** What this machine measured for this repository's first build last time (build-times.ts); none: no number is shown. */
  last?: { durationMs: number; built: number };
}

export interface PrepareOptions extends Omit<EvaluateOptions, 'warmUpOnly' | 'keepSandbox' | 'onBuildOutput'> {
  onProgress?: (p: BuildProgress) => void;
  /** Where the builds' measures are kept (default: the user's cache folder, build-times.ts). */
  buildTimesFile?: string;
}

/** Stands where a test would be: nothing of it is placed or run (the slot stops after its warm-up). */
const NO_TEST = '// xrepotest: environment check, no test';

/**
 * Everything a scoring checks and builds before a test exists, without a test: the toolchain or image,
 * the project's own constraints (PHP's runner), the checkout, and the warm-up (dependencies resolved
 * and built, kept per key: warm-environment.ts). The editor calls it before asking a model, so no model
 * call is paid for a project that cannot run here, and at a workspace's opening, so the first score
 * finds the build done. A build cut short by a limit is an environment verdict (`build-unfinished`)
 * whose work is kept: the next call continues it.
 */
export async function prepareEnvironment(task: TaskRecord, language: LanguageId, opts: PrepareOptions): Promise<PreparedEnvironment> {
  const started = Date.now();
  const { onProgress, ...rest } = opts;
  const timesFile = opts.buildTimesFile ?? buildTimesFile();
  const key = buildTimeKey(opts.repoDir, language, opts.executor.kind);
  const last = lastBuildTime(key, timesFile);
  let units = 0;
  const counter = buildCounter(language, (p) => {
    units = p.built;
    onProgress?.(last ? { ...p, last: { durationMs: last.durationMs, built: last.built } } : p);
  });
  const e = await evaluateTest(task, language, NO_TEST, { ...rest, warmUpOnly: true, onBuildOutput: counter });
  const durationMs = Date.now() - started;
  const warmUp = e.phases.find((p) => p.phase === 'warm-up');
  // Only a build that ran is measured (a ready entry found is no build); a cut one counts towards the next.
  if (warmUp && !e.error && (!e.environment || e.environment.cause === 'build-unfinished')) {
    recordBuildTime(key, { durationMs, built: units }, !e.environment, timesFile);
  }
  if (e.environment) return { ready: false, problem: e.environment, durationMs };
  // The engine could not use the sandbox (not the project's verdict, and not a ready environment either).
  if (e.error) return { ready: false, problem: { cause: 'executor-error', reason: e.error }, durationMs };
  return { ready: true, built: warmUp !== undefined, durationMs };
}

/** Counts the units a build names as its output arrives (split into lines across chunks). */
export function buildCounter(language: LanguageId, onProgress: (p: BuildProgress) => void): (chunk: string) => void {
  const spec = adapterFor(language).toolchain.buildProgress;
  let partial = '';
  let built = 0;
  let lastLine = '';
  return (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const raw of lines) {
      const line = raw.replace(/\r$/, '');
      if (!line.trim()) continue;
      lastLine = line.trim().slice(0, 160);
      if (spec?.line.test(line)) built++;
    }
    onProgress({ built, unit: spec?.unit ?? null, lastLine });
  };
}
