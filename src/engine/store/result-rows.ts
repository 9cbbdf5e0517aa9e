import { isResultRecord } from '../report/our-rows';
import { coverageOf, flagOf, focalLineCount } from '../report/slot-fields';
import { FAILURE_CATEGORY_LABELS, type FailureCategory } from '../score/types';
import { type Annotation, resultKey, suiteKey } from './annotations';
import { repositoryLabelOf } from '../tasks/task-path';
import { readLineAt, scanJsonl, type LineAt } from './jsonl-scan';
import type { ResultRecord } from './results';

export type Outcome = 'passed' | 'failed' | 'nocompile';

/** What a list of results shows per result: small, so a big run's list stays small. */
export interface ResultRow {
  key: string;
  language: string;
  repository: string;
  functionName: string;
  filePath: string;
  outcome: Outcome;
  /** 'not-recorded': a failing result whose harness records no category (the release's). */
  category: FailureCategory | 'not-recorded' | null;
  categoryLabel: string | null;
  /** Percent of the focal function's executable lines covered; null where none were measured. */
  coverage: number | null;
  covered: number;
  executable: number;
  /** Why it did not pass, shortened; null when it passed. */
  reason: string | null;
  sample: number;
  round: number;
  model: string | null;
  annotation: Pick<Annotation, 'label' | 'note' | 'time'> | null;
  /** A suite from improvement rounds (how many tests), a row of its own beside the slot's first test; null: one test. */
  suite: number | null;
}

/** Reasons can quote a whole compiler error; the list shows the start, the logs have the rest. */
const MAX_REASON_CHARS = 300;

export function shortReason(reason: string | null): string | null {
  return reason && reason.length > MAX_REASON_CHARS ? `${reason.slice(0, MAX_REASON_CHARS - 1)}…` : reason;
}

export function outcomeOf(r: ResultRecord): Outcome {
  const c = r.checks[0];
  // Only a JSON true counts (a result file is input: "false" is a string, and truthy).
  if (flagOf(c, 'compilation').value !== true) return 'nocompile';
  return flagOf(c, 'tests').value === true ? 'passed' : 'failed';
}

export function resultRow(r: ResultRecord, annotation?: Annotation): ResultRow {
  const cov = Array.isArray(r.coverage_stats) ? r.coverage_stats[0] : null;
  // Shown only when the entry reads as a line count of the focal function (slot-fields.ts); else none.
  const measured = cov && coverageOf(cov, focalLineCount(r.function_component)).value !== null ? cov : null;
  const reason = r.xrt.reason ?? r.xrt.error;
  // A category the engine does not know (a hand-edited file) is shown as none, not as a label-less value.
  const knownCategory = Object.prototype.hasOwnProperty.call(FAILURE_CATEGORY_LABELS, r.xrt.failure_category ?? '') ? r.xrt.failure_category : null;
  return {
    key: resultKey(r),
    language: r.xrt.language,
    repository: repositoryLabelOf(r),
    functionName: r.function_name,
    filePath: r.file_path,
    outcome: outcomeOf(r),
    category: knownCategory,
    categoryLabel: knownCategory ? (r.xrt.failure_label ?? FAILURE_CATEGORY_LABELS[knownCategory]) : null,
    coverage: measured && measured.total_lines ? Math.round((measured.covered_lines / measured.total_lines) * 1000) / 10 : null,
    covered: measured?.covered_lines ?? 0,
    executable: measured?.total_lines ?? 0,
    reason: shortReason(reason),
    sample: r.xrt.sample,
    round: r.xrt.round,
    model: r.xrt.model,
    annotation: annotation ? { label: annotation.label, note: annotation.note, time: annotation.time } : null,
    // The slot's test; its suite is a row of its own (ourLineRows).
    suite: null,
  };
}

/**
 * A record's suite (improvement rounds: the first test and the kept ones merged into one file, scored
 * as one test) as a result of its own, what the annotator shows and opens for the suite's row: its
 * test, outcome, coverage and mutants, keyed by its hash. The merged run's log is not kept in the
 * record: its log says so and lists the rounds.
 */
export function suiteResultView(r: ResultRecord): ResultRecord {
  const s = r.xrt.suite;
  if (!s) throw new Error(`${resultKey(r)} has no suite`);
  const { reruns: _firstTestsReruns, ...xrt } = r.xrt;
  const rounds = s.rounds.map((x) => `# round ${x.improve}: ${x.kept ? 'kept' : 'not kept'} (${x.verdict}): ${x.reason}`);
  return {
    ...r,
    test: [s.test_code],
    logs: [[`# the suite of ${s.tests} tests from improvement rounds, merged into one file and scored as one test (the log of its run is not kept; the first test's is on its own row)`, ...rounds].join('\n')],
    checks: [{ compilation: true, tests: s.passed, coverage: s.coverage.covered_lines > 0, invocation: r.checks[0]?.invocation ?? false }],
    coverage_stats: [s.coverage],
    xrt: {
      ...xrt,
      test_hash: s.test_hash,
      mutation: s.mutation ?? null,
      failure_category: s.passed ? null : xrt.failure_category,
      failure_label: s.passed ? null : xrt.failure_label,
      reason: s.passed ? null : 'the merged suite does not pass',
      feedback: null,
      phases: [],
    },
  };
}

/** Where a result is: its line and, for a row holding several responses (the release's), which one, or that it is the line's suite. */
export interface ResultAt extends LineAt {
  response?: number;
  suite?: true;
}

export interface ScanOutcome {
  rows: number;
  /** Lines that are not result records (hand edits, a torn tail). */
  skipped: number;
  /** Where each result's line is, to read the whole record again when it is opened. */
  index: Map<string, ResultAt>;
}

/** Turns one parsed line into the results it holds; null: not a result line (counted as skipped). */
export type LineRows = (value: unknown, annotationOf: (key: string) => Annotation | undefined) => Array<{ row: ResultRow; response?: number; suite?: true }> | null;

/** Our results.jsonl: one result per line, and the line's suite from improvement rounds as a result of its own. */
export const ourLineRows: LineRows = (value, annotationOf) => {
  if (!isResultRecord(value)) return null;
  const rows: Array<{ row: ResultRow; suite?: true }> = [{ row: resultRow(value, annotationOf(resultKey(value))) }];
  const ofSuite = suiteKey(value);
  if (ofSuite) rows.push({ row: { ...resultRow(suiteResultView(value), annotationOf(ofSuite)), key: ofSuite, suite: value.xrt.suite!.tests }, suite: true });
  return rows;
};

/**
 * Streams a results file into rows, handed over in pages as they come. A key seen twice (a result
 * appended again by hand) is sent again: the later record wins where the rows are kept.
 */
export async function scanResultRows(
  file: string,
  annotationOf: (key: string) => Annotation | undefined,
  onPage: (rows: ResultRow[]) => void | Promise<void>,
  options: { pageSize?: number; signal?: AbortSignal; lineRows?: LineRows } = {},
): Promise<ScanOutcome> {
  const pageSize = options.pageSize ?? 500;
  const lineRows = options.lineRows ?? ourLineRows;
  const outcome: ScanOutcome = { rows: 0, skipped: 0, index: new Map() };
  let page: ResultRow[] = [];
  await scanJsonl(
    file,
    async (text, at) => {
      if (!text.trim()) return;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        outcome.skipped++;
        return;
      }
      const rows = lineRows(value, annotationOf);
      if (!rows) {
        outcome.skipped++;
        return;
      }
      for (const { row, response, suite } of rows) {
        outcome.index.set(row.key, { ...at, ...(response === undefined ? {} : { response }), ...(suite ? { suite } : {}) });
        outcome.rows++;
        page.push(row);
        if (page.length >= pageSize) {
          const full = page;
          page = [];
          await onPage(full);
        }
      }
    },
    options.signal,
  );
  if (page.length) await onPage(page);
  return outcome;
}

/** One whole result, read back from where the scan saw it (a suite's row: the record as its suite). */
export function readResultAt(file: string, at: ResultAt): ResultRecord {
  const value: unknown = JSON.parse(readLineAt(file, at));
  if (!isResultRecord(value) || (at.suite && !value.xrt.suite)) throw new Error(`${file} changed since it was read: reopen the run`);
  return at.suite ? suiteResultView(value) : value;
}
