import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { looksLikeReleaseRow, readReleaseRow, RELEASE_MISSING_FIELDS, UNKNOWN_EXPERIMENT } from '../report/release-rows';
import { coverageOf, flagOf, focalLineCount } from '../report/slot-fields';
import { annotateOurLine, resultsFile, type AnnotatedSource, type Annotation } from './annotations';
import { readLineAt } from './jsonl-scan';
import { shortReason, type LineRows, type ResultAt, type ResultRow } from './result-rows';

/**
 * The annotator over a folder of the release's pipeline (`results/<lang>/<mode>/<model>/`), whose
 * detailed_results.jsonl holds one row per task with several responses: each response is one
 * result to annotate, keyed as ours are (task, sample, round, the test's hash), with what the
 * harness did not record said as not recorded.
 */

export const RELEASE_RESULTS = 'detailed_results.jsonl';

export function releaseResultsFile(runDir: string): string {
  return path.join(runDir, RELEASE_RESULTS);
}

/** A folder's results: ours (results.jsonl) when it has them, else the release's; null when neither. */
export function resultsOf(runDir: string, ours: string): { file: string; harness: 'xrepotest' | 'release' } | null {
  if (fs.existsSync(ours)) return { file: ours, harness: 'xrepotest' };
  const theirs = releaseResultsFile(runDir);
  return fs.existsSync(theirs) ? { file: theirs, harness: 'release' } : null;
}

/** The same 16 hex digits of SHA-256 that our results carry as `xrt.test_hash` (execute/evaluate.ts). */
const hashOf = (test: string): string => createHash('sha256').update(test).digest('hex').slice(0, 16);

type RawRow = Record<string, unknown> & { task_id: number | string; language: string; test: unknown[]; checks: unknown[]; logs?: unknown[]; coverage_stats?: unknown[]; function_name?: unknown; file_path: string };

const textOf = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The key of response `i` of a row: as ours, `<language>:<task_id>#<sample>#<round>#<test hash>`. */
export function releaseResponseKey(language: string, taskId: number | string, i: number, test: unknown): string {
  return `${language}:${String(taskId)}#${i}#0#${hashOf(textOf(test))}`;
}

/** The counts of a response's coverage entry, where they read as a line count of the focal function. */
function coverageCounts(row: RawRow, i: number): { covered: number; total: number } | null {
  const entry = row.coverage_stats?.[i];
  if (!entry || coverageOf(entry, focalLineCount(row.function_component)).value === null) return null;
  const e = entry as { covered_lines: number; total_lines: number };
  return { covered: e.covered_lines, total: e.total_lines };
}

/** The first line of the log, as the list's "why" of a failing response (the harness keeps no reason). */
const firstLine = (log: unknown): string | null => textOf(log).split('\n').find((l) => l.trim())?.trim() ?? null;

/** The rows of one line of detailed_results.jsonl: one per response it has. */
export function releaseLineRows(file: string): LineRows {
  return (value, annotationOf: (key: string) => Annotation | undefined) => {
    if (!looksLikeReleaseRow(value)) return null;
    const read = readReleaseRow(value, file);
    if ('problem' in read) return null;
    const row = value as RawRow;
    return read.row.present.map((slot, i) => {
      const key = releaseResponseKey(read.row.language, row.task_id, i, row.test[i]);
      const cov = coverageCounts(row, i);
      const annotation = annotationOf(key);
      const result: ResultRow = {
        key,
        language: read.row.language,
        repository: read.row.repository,
        functionName: textOf(row.function_name),
        filePath: row.file_path,
        outcome: !slot.compiled ? 'nocompile' : slot.passed ? 'passed' : 'failed',
        category: slot.passed ? null : 'not-recorded',
        categoryLabel: slot.passed ? null : "Not recorded (the release's harness)",
        coverage: cov && cov.total ? Math.round((cov.covered / cov.total) * 1000) / 10 : null,
        covered: cov?.covered ?? 0,
        executable: cov?.total ?? 0,
        reason: slot.passed ? null : shortReason(firstLine(row.logs?.[i])),
        sample: i,
        round: 0,
        model: slot.model === UNKNOWN_EXPERIMENT ? null : slot.model,
        annotation: annotation ? { label: annotation.label, note: annotation.note, time: annotation.time } : null,
        // The release's pipeline has no improvement rounds.
        suite: null,
      };
      return { row: result, response: i };
    });
  };
}

/** One response of a release row as the annotator's detail reads a result (our record's fields, what the harness lacks as not recorded). */
export interface ReleaseResultView {
  task_id: number | string;
  function_name: string;
  file_path: string;
  file_content: string;
  function_component: { name: string; start_line: number; end_line: number };
  test: string[];
  logs: string[];
  checks: Array<{ compilation: boolean; tests: boolean; coverage: boolean; invocation: boolean }>;
  coverage_stats: Array<{ covered_lines: number; total_lines: number; coverage: number; covered_line_numbers: number[]; executable_line_numbers: number[] }>;
  xrt: {
    sample: number;
    round: number;
    mode: string | null;
    provider: string | null;
    model: string | null;
    language: string;
    reason: string | null;
    failure_category: string | null;
    failure_label: string | null;
    failure_rule: string | null;
    failure_evidence: string | null;
    error: string | null;
    test_report: { cases: Array<{ name: string; status: string; message?: string }> };
    harness: 'release';
    not_recorded: string[];
  };
}

/** Response `at.response` of the row at `at`, read again (the file is input: it is checked as when it was scanned). */
export function readReleaseResultAt(file: string, at: ResultAt): ReleaseResultView {
  const value: unknown = JSON.parse(readLineAt(file, at));
  const read = looksLikeReleaseRow(value) ? readReleaseRow(value, file) : null;
  const i = at.response ?? 0;
  if (!read || 'problem' in read || i >= read.row.present.length) throw new Error(`${file} changed since it was read: reopen the folder`);
  const row = value as RawRow;
  const slot = read.row.present[i];
  const component = (row.function_component ?? {}) as { name?: unknown; start_line?: unknown; end_line?: unknown };
  const cov = coverageCounts(row, i);
  const check = row.checks[i];
  return {
    task_id: row.task_id,
    function_name: textOf(row.function_name),
    file_path: row.file_path,
    file_content: textOf(row.file_content),
    function_component: {
      name: textOf(component.name),
      start_line: Number.isSafeInteger(component.start_line) ? (component.start_line as number) : 1,
      end_line: Number.isSafeInteger(component.end_line) ? (component.end_line as number) : 1,
    },
    test: [textOf(row.test[i])],
    logs: [textOf(row.logs?.[i])],
    checks: [{ compilation: slot.compiled, tests: slot.passed, coverage: flagOf(check, 'coverage').value === true, invocation: slot.invoked }],
    // The release keeps counts only, not which lines ran.
    coverage_stats: cov ? [{ covered_lines: cov.covered, total_lines: cov.total, coverage: cov.total ? Math.round((cov.covered / cov.total) * 10000) / 100 : 0, covered_line_numbers: [], executable_line_numbers: [] }] : [],
    xrt: {
      sample: i,
      round: 0,
      mode: slot.mode === UNKNOWN_EXPERIMENT ? null : slot.mode,
      provider: null,
      model: slot.model === UNKNOWN_EXPERIMENT ? null : slot.model,
      language: read.row.language,
      reason: null,
      failure_category: null,
      failure_label: null,
      failure_rule: null,
      failure_evidence: null,
      error: null,
      test_report: { cases: [] },
      harness: 'release',
      not_recorded: [...RELEASE_MISSING_FIELDS, 'test cases', 'which lines ran'],
    },
  };
}

/**
 * The export of an annotated release folder: each row as it is, with `xrt_annotations` beside its
 * responses (one {label, note, time} or null per response, in `test[]` order).
 */
export function releaseAnnotatedSource(runDir: string): AnnotatedSource {
  const file = releaseResultsFile(runDir);
  return {
    file,
    annotate: (value, store) => {
      if (!looksLikeReleaseRow(value)) return null;
      const read = readReleaseRow(value, file);
      if ('problem' in read) return null;
      const row = value as RawRow;
      const keys = read.row.present.map((_, i) => releaseResponseKey(read.row.language, row.task_id, i, row.test[i]));
      const annotations = keys.map((k) => store.get(k)).map((a) => (a ? { label: a.label, note: a.note, time: a.time } : null));
      return { text: JSON.stringify({ ...row, xrt_annotations: annotations }), keys, annotated: annotations.filter(Boolean).length };
    },
  };
}

/** What an export of `runDir` writes: our results.jsonl with `xrt.annotation`, else the release's rows with `xrt_annotations`. */
export function annotatedSourceOf(runDir: string): AnnotatedSource {
  const found = resultsOf(runDir, resultsFile(runDir));
  return found?.harness === 'release' ? releaseAnnotatedSource(runDir) : { file: resultsFile(runDir), annotate: annotateOurLine };
}
