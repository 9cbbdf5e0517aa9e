import Ajv from 'ajv';
import * as fs from 'node:fs';
import { describeErrors } from './our-rows';
import { MAX_MUTANTS } from './slot-fields';
import type { Slot } from './slots';

/**
 * The release's summary.json (notes §1): `{total_samples, compiled_rate, line_coverage,
 * test_pass_rate, invocation_rate, mutation_testing?}`, rates in percent, total_samples the number of
 * tasks. Read as it is, and checked key for key against what its rows give when the rows are there:
 * a summary that does not follow from its own rows is said, not averaged away.
 */

const percent = { type: 'number', minimum: 0, maximum: 100 } as const;
const whole = (maximum: number) => ({ type: 'integer', minimum: 0, maximum }) as const;

export const RELEASE_SUMMARY_SCHEMA = {
  type: 'object',
  required: ['total_samples', 'compiled_rate', 'line_coverage', 'test_pass_rate', 'invocation_rate'],
  properties: {
    total_samples: whole(1e9),
    compiled_rate: percent,
    line_coverage: percent,
    test_pass_rate: percent,
    invocation_rate: percent,
    mutation_testing: {
      type: 'object',
      required: ['mutation_tests_run', 'total_mutants_killed', 'total_mutants_count', 'avg_mutation_score', 'mutation_run_rate'],
      properties: {
        mutation_tests_run: whole(1e9),
        total_mutants_killed: whole(MAX_MUTANTS * 1e4),
        total_mutants_count: whole(MAX_MUTANTS * 1e4),
        avg_mutation_score: { type: 'number', minimum: 0, maximum: 1 },
        mutation_run_rate: { type: 'number', minimum: 0, maximum: 1e9 },
      },
    },
  },
} as const;

const ajv = new Ajv({ allErrors: true, strict: false });
const validate = ajv.compile(RELEASE_SUMMARY_SCHEMA);

export interface ReleaseSummary {
  total_samples: number;
  compiled_rate: number;
  line_coverage: number;
  test_pass_rate: number;
  invocation_rate: number;
  mutation_testing?: { mutation_tests_run: number; total_mutants_killed: number; total_mutants_count: number; avg_mutation_score: number; mutation_run_rate: number };
}

/** A summary.json is a few hundred bytes; a bigger one is not the release's. */
const MAX_SUMMARY_BYTES = 1 << 20;

/** Our own summary.json (bench) has per-language blocks and slot counts; the release's has neither. */
const isOurs = (v: unknown): boolean => v !== null && typeof v === 'object' && ('languages' in v || 'total_slots' in v);

/** The release's summary.json at `file`, or why not (ours: `ours` so a folder can pass over it quietly). */
export function readReleaseSummary(file: string): { summary: ReleaseSummary } | { problem: string; ours?: boolean } {
  let text: string;
  try {
    const size = fs.statSync(file).size;
    if (size > MAX_SUMMARY_BYTES) return { problem: `refused: ${size} bytes is not a summary.json (the release's is a few hundred)` };
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    return { problem: `cannot be read (${(e as Error).message})` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    return { problem: `not valid JSON (${(e as Error).message})` };
  }
  if (isOurs(value)) return { problem: "xrepotest's own summary.json: `report` reads the results beside it (results.jsonl), not the summary", ours: true };
  if (!validate(value)) return { problem: `not the release's summary.json: ${describeErrors(validate.errors)}` };
  return { summary: value as unknown as ReleaseSummary };
}

/**
 * The release's summary of a set of its slots, by the formulas of its harness (notes §5, §7):
 * every check over N, coverage the mean of covered/total over N, mutation summed over every entry.
 * Unrounded, as the harness writes it.
 */
export function harnessSummaryOf(slots: readonly Slot[]): ReleaseSummary {
  const n = slots.length;
  const rate = (k: number): number => (n ? (k / n) * 100 : 0);
  const count = (f: (s: Slot) => boolean): number => slots.filter(f).length;
  const passing = count((s) => s.passed);
  const run = count((s) => s.mutationScore !== null);
  const killed = slots.reduce((a, s) => a + (s.mutationCounts?.killed ?? 0), 0);
  const total = slots.reduce((a, s) => a + (s.mutationCounts?.total ?? 0), 0);
  return {
    total_samples: new Set(slots.map((s) => s.row)).size,
    compiled_rate: rate(count((s) => s.compiled)),
    line_coverage: n ? slots.reduce((a, s) => a + s.coverage * 100, 0) / n : 0,
    test_pass_rate: rate(passing),
    invocation_rate: rate(count((s) => s.invoked)),
    ...(run
      ? {
          mutation_testing: {
            mutation_tests_run: run,
            total_mutants_killed: killed,
            total_mutants_count: total,
            avg_mutation_score: total ? killed / total : 0,
            mutation_run_rate: passing ? (run / passing) * 100 : 0,
          },
        }
      : {}),
  };
}

export interface SummaryKeyCheck {
  key: string;
  /** As summary.json says it; null where it has no such key. */
  summary: number | null;
  /** As its rows give it; null where the rows give none. */
  rows: number | null;
  agrees: boolean;
}

/** Floating sums in another order differ in the last digits; a real disagreement is far larger. */
const TOLERANCE = 1e-6;

const flat = (s: ReleaseSummary): Record<string, number> => ({
  total_samples: s.total_samples,
  compiled_rate: s.compiled_rate,
  test_pass_rate: s.test_pass_rate,
  line_coverage: s.line_coverage,
  invocation_rate: s.invocation_rate,
  ...Object.fromEntries(Object.entries(s.mutation_testing ?? {}).map(([k, v]) => [`mutation_testing.${k}`, v])),
});

/** Key for key: the summary's value against the rows'. */
export function checkSummaryAgainstRows(summary: ReleaseSummary, rows: ReleaseSummary): SummaryKeyCheck[] {
  const a = flat(summary);
  const b = flat(rows);
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].map((key) => {
    const s = a[key] ?? null;
    const r = b[key] ?? null;
    return { key, summary: s, rows: r, agrees: s !== null && r !== null && Math.abs(s - r) <= TOLERANCE * Math.max(1, Math.abs(r)) };
  });
}

/** One summary.json read for a report: as given, and checked against its rows where they were loaded. */
export interface ReleaseSummaryInput {
  file: string;
  summary: ReleaseSummary;
  /** The detailed_results.jsonl it was checked against (the file beside it); null when none was loaded. */
  rowsFile: string | null;
  check: SummaryKeyCheck[] | null;
}
