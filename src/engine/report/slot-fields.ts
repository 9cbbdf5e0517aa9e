import { validatorOf } from '../util/lazy-validator';

/**
 * One slot's measured fields as a result row stores them — ours or the release harness's — read with
 * the row treated as hostile: a value of the wrong type or out of range is *missing* (it counts as the
 * harness counts a missing value: not compiled, no coverage, no mutation score), never coerced into a
 * number ("5" / 10 would be 0.5 in JavaScript) and never a crash (the release writes `null` for the
 * coverage of a slot that did not compile). Each reader says why a value was not used, so the loader
 * can tell the user once per file instead of silently dropping it.
 */

/** More focal lines than any function has; a larger count is not a line count. */
export const MAX_LINES = 100_000;
/** More mutants than any focal function yields. */
export const MAX_MUTANTS = 1_000_000;

const count = (maximum: number) => ({ type: 'integer', minimum: 0, maximum }) as const;

const validCoverage = validatorOf({
  type: 'object',
  required: ['covered_lines', 'total_lines'],
  properties: { covered_lines: count(MAX_LINES), total_lines: count(MAX_LINES) },
});

const validMutation = validatorOf({
  type: 'object',
  required: ['killed_count', 'total_count'],
  properties: {
    // The release's per-slot score is on 0..1 in every language (Go, Rust, Ruby); a percentage is not read as one.
    mutation_score: { type: 'number', minimum: 0, maximum: 1 },
    killed_count: count(MAX_MUTANTS),
    total_count: count(MAX_MUTANTS),
  },
});

/** A field read, or why it could not be. */
export type Read<T> = { value: T; problem?: undefined } | { value: null; problem: string };

/** "checks[0].tests is not …" / "coverage_stats[0] is not …": a reader's problem said of the field it read. */
export function fieldProblem(field: string, problem: string): string {
  return problem.startsWith('.') ? `${field}${problem}` : `${field} ${problem}`;
}

/** `checks[i].<field>`: only a JSON boolean counts; null or absent is false (the release's defaults), anything else is missing. */
export function flagOf(check: unknown, field: string): Read<boolean> {
  if (check === null || typeof check !== 'object' || Array.isArray(check)) return { value: null, problem: 'is not an object' };
  const v = (check as Record<string, unknown>)[field];
  if (v === true || v === false) return { value: v };
  if (v === null || v === undefined) return { value: false };
  return { value: null, problem: `.${field} is not true, false or null` };
}

/**
 * Focal line coverage of one `coverage_stats` entry, 0..1. Null entry: nothing was measured (the
 * release writes null where the test did not compile): 0, not a problem. A count above the focal
 * function's own line count cannot be a count of its lines (every harness intersects coverage with
 * the function's range), so it is refused rather than believed.
 */
export function coverageOf(entry: unknown, focalLines: number | null): Read<number> {
  if (entry === null || entry === undefined) return { value: 0 };
  if (!validCoverage(entry)) return { value: null, problem: 'is not {covered_lines, total_lines} with whole numbers' };
  const { covered_lines: covered, total_lines: total } = entry as { covered_lines: number; total_lines: number };
  if (covered > total) return { value: null, problem: 'has more covered lines than lines' };
  if (focalLines !== null && total > focalLines) return { value: null, problem: `counts ${total} lines in a focal function of ${focalLines}` };
  return { value: total ? covered / total : 0 };
}

export interface MutationEntry {
  /** The harness's own per-slot score, 0..1 (null where the entry has none). */
  score: number | null;
  killed: number;
  total: number;
}

/** One `mutation_scores` entry of the release; null: the phase did not run for the slot. */
export function mutationEntryOf(entry: unknown): Read<MutationEntry | null> {
  if (entry === null || entry === undefined) return { value: null };
  if (!validMutation(entry)) return { value: null, problem: 'is not {killed_count, total_count, mutation_score 0..1} with whole counts' };
  const e = entry as { mutation_score?: number; killed_count: number; total_count: number };
  if (e.killed_count > e.total_count) return { value: null, problem: 'kills more mutants than it has' };
  return { value: { score: e.mutation_score ?? null, killed: e.killed_count, total: e.total_count } };
}

const validOurMutation = validatorOf({
  type: 'object',
  required: ['mutants', 'viable', 'killed', 'unviable', 'score'],
  properties: {
    mutants: count(MAX_MUTANTS),
    viable: count(MAX_MUTANTS),
    killed: count(MAX_MUTANTS),
    timed_out: count(MAX_MUTANTS),
    unviable: count(MAX_MUTANTS),
    score: { type: 'number', minimum: 0, maximum: 1 },
  },
});

/** Our `xrt.mutation` (mutate/run.ts), as the report reads it. */
export interface OurMutation {
  mutants: number;
  viable: number;
  killed: number;
  timedOut: number;
  score: number;
  /** The test failed on a sentinel (mutate/sentinels.ts): it reads the focal source. */
  readsSource?: true;
}

/** `xrt.mutation`: null or absent when mutation testing did not run for the slot. */
export function ourMutationOf(m: unknown): Read<OurMutation | null> {
  if (m === null || m === undefined) return { value: null };
  if (!validOurMutation(m)) return { value: null, problem: 'is not {mutants, viable, killed, unviable, score 0..1} with whole counts' };
  const v = m as { mutants: number; viable: number; killed: number; timed_out?: number; unviable: number; score: number; reads_source?: unknown };
  const timedOut = v.timed_out ?? 0;
  if (v.viable + v.unviable > v.mutants || v.killed + timedOut > v.viable) return { value: null, problem: 'has counts that do not add up (killed + timed out > viable, or viable + unviable > mutants)' };
  return { value: { mutants: v.mutants, viable: v.viable, killed: v.killed, timedOut, score: v.score, ...(v.reads_source === true ? { readsSource: true as const } : {}) } };
}

/** How many lines the focal function spans, when the row says so sensibly; null otherwise (no bound is applied). */
export function focalLineCount(component: unknown): number | null {
  if (component === null || typeof component !== 'object') return null;
  const { start_line: start, end_line: end } = component as { start_line?: unknown; end_line?: unknown };
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end)) return null;
  const n = (end as number) - (start as number) + 1;
  return n >= 1 ? n : null;
}
