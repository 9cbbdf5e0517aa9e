import type { FailureCategory } from '../score/types';
import type { ResultRecord } from '../store/results';
import { repositoryLabelOf } from '../tasks/task-path';

/** What the mutation helper stores under `xrt.mutation`; null or absent when mutation testing did not run. */
export interface MutationOutcome {
  mutants: number;
  viable: number;
  killed: number;
  survived: number;
  timed_out: number;
  unviable: number;
  /** killed / viable, 0..1. */
  score: number;
}

/**
 * One evaluated slot (task x sample x round), reduced to what the reports need. Every metric is kept
 * per slot so that aggregates and bootstrap resamples are computed the same way (METRICS.md).
 */
export interface Slot {
  /** Pairs the same task across runs: the stable id when the record has one. */
  taskId: string | null;
  /** `<language>:<task_id>`: the release's join key (task ids restart at 0 per language). */
  languageTaskId: string;
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
  invokedStrict: boolean;
  failure: FailureCategory | null;
  /** Mutation score 0..1 when mutation testing ran with at least one viable mutant; else null. */
  mutationScore: number | null;
  /** Mutation testing ran for this slot (even if it found no viable mutant). */
  mutationRan: boolean;
  /** The suite after improvement rounds (`xrt.suite`); null where none ran. */
  suite: { passed: boolean; coverage: number; mutationScore: number | null; tests: number } | null;
  /** The harness or the machine could not score the slot (failure 'environment'): left out of N. */
  environment: { cause: string; reason: string } | null;
}

export const BASELINE_MODEL = 'baseline';
/** Shown beside anything computed from baseline slots: the baseline is deterministic, not a model. */
export const BASELINE_NOTE = 'offline baseline provider: a lower bound, not a model';

function mutationOf(r: ResultRecord): MutationOutcome | null {
  const m = (r.xrt as { mutation?: MutationOutcome | null }).mutation;
  return m && typeof m === 'object' ? m : null;
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
    mutationScore: m && m.viable > 0 && Number.isFinite(m.score) ? m.score : null,
    tests: typeof s.tests === 'number' ? s.tests : 1,
  };
}

export function toSlot(r: ResultRecord): Slot {
  const x = r.xrt;
  const c = r.coverage_stats?.[0];
  const check = r.checks?.[0];
  const m = mutationOf(r);
  const baseline = x.baseline === true;
  return {
    taskId: typeof r.id === 'string' ? r.id : null,
    languageTaskId: `${x.language}:${String(r.task_id)}`,
    sample: x.sample ?? 0,
    round: x.round ?? 0,
    language: x.language,
    repository: repositoryLabelOf(r),
    // Records written before generation recorded its origin have none: the release's standard prompt.
    mode: x.mode ?? 'standard',
    model: baseline ? BASELINE_MODEL : (x.model ?? x.provider ?? '(unknown)'),
    baseline,
    compiled: !!check?.compilation,
    passed: !!check?.tests,
    coverage: c && c.total_lines ? c.covered_lines / c.total_lines : 0,
    invoked: !!check?.invocation,
    invokedStrict: !!x.invocation_strict,
    failure: x.failure_category ?? null,
    mutationRan: m !== null,
    mutationScore: m && m.viable > 0 && Number.isFinite(m.score) ? m.score : null,
    suite: suiteOf(r),
    environment: x.failure_category === 'environment' ? { cause: x.failure_rule ?? 'unknown', reason: x.reason ?? x.error ?? '' } : null,
  };
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
