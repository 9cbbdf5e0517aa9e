import { FAILURE_CATEGORY_LABELS, type FailureCategory } from '../score/types';
import type { ResultRecord } from '../store/results';
import { repositoryLabelOf } from '../tasks/task-path';
import { coverageOf, fieldProblem, flagOf, focalLineCount, ourMutationOf, type Read } from './slot-fields';

/** What the mutation helper stores under `xrt.mutation` (slot-fields.ts reads it); null or absent when mutation testing did not run. */
export interface MutationOutcome {
  mutants: number;
  viable: number;
  killed: number;
  survived: number;
  timed_out: number;
  unviable: number;
  /** killed / viable, 0..1. */
  score: number;
  /** The test failed on a behaviour-preserving sentinel (mutate/sentinels.ts): it reads the focal source. */
  reads_source?: boolean;
}

/** Which harness scored a slot: ours, or the public release's (its `detailed_results.jsonl`). */
export type Harness = 'xrepotest' | 'release';

/**
 * One evaluated slot (task x sample x round), reduced to what the reports need. Every metric is kept
 * per slot so that aggregates and bootstrap resamples are computed the same way (METRICS.md).
 */
export interface Slot {
  /** Pairs the same task across runs: the stable id when the record has one. */
  taskId: string | null;
  /** `<language>:<task_id>`: the release's join key (task ids restart at 0 per language). */
  languageTaskId: string;
  /** The task row the slot belongs to: one task of one run (a row of the release's detailed_results.jsonl). */
  row: string;
  harness: Harness;
  sample: number;
  round: number;
  language: string;
  /** The first segment of `file_path`. */
  repository: string;
  mode: string;
  /** Who wrote the test: the model, else the provider; the offline baseline is named so. */
  model: string;
  baseline: boolean;
  compiled: boolean;
  passed: boolean;
  /** Focal line coverage, 0..1; 0 where there is no data. */
  coverage: number;
  invoked: boolean;
  /** Null where the harness does not record it (the release's). */
  invokedStrict: boolean | null;
  failure: FailureCategory | null;
  /** False where the harness records no failure category (the release's): a failing slot's category is unknown, not "none". */
  failureRecorded: boolean;
  /** Mutation score 0..1 when mutation testing ran with at least one viable mutant; else null. */
  mutationScore: number | null;
  /** Mutation testing ran for this slot (even if it found no viable mutant). */
  mutationRan: boolean;
  /** The suite after improvement rounds (`xrt.suite`); null where none ran. */
  suite: { passed: boolean; coverage: number; mutationScore: number | null; tests: number } | null;
  /** Killed and generated mutants as the release's summary adds them up (its micro average, METRICS.md item 8). */
  mutationCounts: { killed: number; total: number } | null;
  /** The harness or the machine could not score the slot (failure 'environment'): left out of N. */
  environment: { cause: string; reason: string } | null;
}

export const BASELINE_MODEL = 'baseline';
/** Shown beside anything computed from baseline slots: the baseline is deterministic, not a model. */
export const BASELINE_NOTE = 'offline baseline provider: a lower bound, not a model';

const isFailureCategory = (v: unknown): v is FailureCategory => typeof v === 'string' && Object.prototype.hasOwnProperty.call(FAILURE_CATEGORY_LABELS, v);

/**
 * A record's mutation score, or null where it has none to count (no viable mutant). A test that
 * failed on a sentinel (mutate/sentinels.ts) reads the focal source: it scores 0, counted as such.
 */
function scoredMutation(m: { viable: number; score: number; readsSource?: true; reads_source?: boolean } | null): number | null {
  if (!m) return null;
  if (m.readsSource || m.reads_source === true) return 0;
  return m.viable > 0 && Number.isFinite(m.score) ? m.score : null;
}

/** The improved suite's metrics, read defensively: records are data from a file. */
function suiteOf(r: ResultRecord): Slot['suite'] {
  const s = (r.xrt as { suite?: unknown }).suite as ResultRecord['xrt']['suite'] | undefined;
  if (!s || typeof s !== 'object' || !s.coverage) return null;
  const c = s.coverage;
  const m = s.mutation && typeof s.mutation === 'object' ? s.mutation : null;
  return {
    passed: s.passed === true,
    coverage: c.total_lines ? c.covered_lines / c.total_lines : 0,
    mutationScore: scoredMutation(m),
    tests: typeof s.tests === 'number' ? s.tests : 1,
  };
}

/**
 * A slot from one of our records, and what in it could not be used (each named by field, counted as
 * missing). The loader has checked the record's identity fields (loadResults); the measured ones are
 * read here, so a hand-made or damaged record never crashes a report nor forges a number.
 */
export function toSlotChecked(r: ResultRecord): { slot: Slot; problems: string[] } {
  const problems: string[] = [];
  const use = <T>(field: string, read: Read<T>, fallback: T): T => {
    if (read.problem !== undefined) problems.push(fieldProblem(field, read.problem));
    return read.value ?? fallback;
  };
  const x = r.xrt;
  const check = Array.isArray(r.checks) ? r.checks[0] : undefined;
  const flag = (f: string): boolean => use('checks[0]', flagOf(check, f), false);
  const m = use('xrt.mutation', ourMutationOf((x as { mutation?: unknown }).mutation), null);
  const baseline = x.baseline === true;
  const category = x.failure_category;
  if (category != null && !isFailureCategory(category)) problems.push('xrt.failure_category is not one of the categories');
  const failure = isFailureCategory(category) ? category : null;
  const strict = x.invocation_strict;
  if (strict !== undefined && typeof strict !== 'boolean') problems.push('xrt.invocation_strict is not true or false');
  const task = typeof r.id === 'string' ? r.id : `${x.language}:${String(r.task_id)}`;
  const slot: Slot = {
    taskId: typeof r.id === 'string' ? r.id : null,
    languageTaskId: `${x.language}:${String(r.task_id)}`,
    row: JSON.stringify(['xrepotest', task, x.provider ?? null, x.model ?? null, x.mode ?? null, baseline]),
    harness: 'xrepotest',
    sample: x.sample ?? 0,
    round: x.round ?? 0,
    language: x.language,
    repository: repositoryLabelOf(r),
    // Records written before generation recorded its origin have none: the release's standard prompt.
    mode: x.mode ?? 'standard',
    model: baseline ? BASELINE_MODEL : (x.model ?? x.provider ?? '(unknown)'),
    baseline,
    compiled: flag('compilation'),
    passed: flag('tests'),
    coverage: use('coverage_stats[0]', coverageOf(Array.isArray(r.coverage_stats) ? r.coverage_stats[0] : null, focalLineCount(r.function_component)), 0),
    invoked: flag('invocation'),
    invokedStrict: typeof strict === 'boolean' ? strict : null,
    failure,
    failureRecorded: category === null || failure !== null,
    mutationRan: m !== null,
    mutationScore: scoredMutation(m),
    // Our killed count leaves timed-out mutants apart; the score counts them killed (METRICS.md item 8), so the sum does too.
    mutationCounts: m ? { killed: m.killed + m.timedOut, total: m.mutants } : null,
    suite: suiteOf(r),
    environment: failure === 'environment' ? { cause: x.failure_rule ?? 'unknown', reason: x.reason ?? x.error ?? '' } : null,
  };
  return { slot, problems: [...new Set(problems)] };
}

export function toSlot(r: ResultRecord): Slot {
  return toSlotChecked(r).slot;
}

/** Splits slots by a key, keys sorted so tables and seeds do not depend on input order. */
export function groupBy<T>(items: readonly T[], key: (t: T) => string): Array<[string, T[]]> {
  const groups = new Map<string, T[]>();
  for (const it of items) {
    const k = key(it);
    const g = groups.get(k);
    if (g) g.push(it);
    else groups.set(k, [it]);
  }
  return [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
