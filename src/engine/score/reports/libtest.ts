import type { TestCaseResult, TestReport } from '../types';
import { reportFromCases, withDetails, type ExpectedActual } from './report';

export const LIBTEST_RUNNING = /^running (\d+) tests?$/;
/** libtest's summary of one executable's run; its counts are read where they are all there. */
export const LIBTEST_SUMMARY = /^test result: (ok|FAILED)\.(?: (\d+) passed; (\d+) failed; (\d+) ignored; (\d+) measured; \d+ filtered out;)?/;
const FAILURE_HEADER = /^---- (.+) std(?:out|err) ----$/;
const BACKTRACE_NOTE = /^note: run with `RUST_BACKTRACE=1`/;

/**
 * One verdict line of libtest's human output (rustc 1.85–1.97, captured in test/data/captured/rust):
 *   test m::a ... ok                              test m::b - should panic ... FAILED
 *   test m::c ... ignored, needs a network        test src/lib.rs - f (line 5) - compile fail ... ok
 *   test m::bench_x    ... bench:   0.69 ns/iter (+/- 0.43)          test m::a ... ok <0.000s>
 * The name runs to the first ` ... ` (a Rust path has no spaces, a doc-test's name has), padded under
 * `cargo bench`. libtest appends the test's mode to the name it prints here (` - should panic`,
 * ` - compile fail`, ` - compile`), never to a failure's header: the mode is left off, so a test has
 * one name. `--report-time` adds `<time>`, `--ensure-time` a reason in parentheses.
 */
const RESULT_LINE = /^test (.+?)(?: - (?:should panic|compile fail|compile))? +\.\.\. (ok|FAILED|ignored|bench:)(.*)$/;
const AFTER_VERDICT: Record<string, RegExp> = {
  ok: /^(?: (?:<[\d.]+s>|\([^()]*\)))*$/,
  FAILED: /^(?: (?:<[\d.]+s>|\([^()]*\)))*$/,
  ignored: /^(?:, .*)?$/,
  'bench:': /^ .*\S/,
};

export interface LibtestResult {
  name: string;
  status: TestCaseResult['status'];
  /** What the line says besides the verdict: an ignored test's reason, a benchmark's time. */
  note?: string;
}

/**
 * A verdict line -> the test's result, or null for any other line. A measured benchmark ran and did
 * not fail: passed (libtest counts it as "measured", not "passed").
 */
export function libtestResultLine(line: string): LibtestResult | null {
  const m = RESULT_LINE.exec(line);
  if (!m || !AFTER_VERDICT[m[2]].test(m[3])) return null;
  const [, name, verdict, rest] = m;
  if (verdict === 'ok') return { name, status: 'passed' };
  if (verdict === 'FAILED') return { name, status: 'failed' };
  if (verdict === 'bench:') return { name, status: 'passed', note: `bench:${rest}` };
  return rest ? { name, status: 'skipped', note: `ignored: ${rest.slice(2)}` } : { name, status: 'skipped' };
}

/** The number of results a summary counts (passed, failed, ignored, measured), when it has them all. */
function summaryCount(m: RegExpExecArray): number | null {
  return m[2] === undefined ? null : Number(m[2]) + Number(m[3]) + Number(m[4]) + Number(m[5]);
}

/** A Debug value as assert_eq! prints it: the old format wrapped it in backticks and ended it with a comma. */
function debugValue(lines: string[]): string {
  return lines.join('\n').trim().replace(/,$/, '').replace(/^`([\s\S]*)`$/, '$1');
}

/**
 * `left`/`right` of an assert_eq!/assert_ne! panic, as actual/expected (assert_eq!(actual, expected)
 * is the usual order). A value may span lines when it is pretty-printed, so each runs to the next label.
 */
export function assertEqPair(message: string): ExpectedActual | undefined {
  const lines = message.split('\n');
  const left = lines.findIndex((l) => /^\s*left: /.test(l));
  const right = lines.findIndex((l, i) => i > left && /^\s*right: /.test(l));
  if (left < 0 || right < 0) return undefined;
  let end = right + 1;
  while (end < lines.length && lines[end].trim() !== '' && !/^\s*(at |note: |stack backtrace:)/.test(lines[end])) end++;
  const strip = (l: string, label: string) => l.replace(new RegExp(`^\\s*${label}: `), '');
  return {
    actual: debugValue([strip(lines[left], 'left'), ...lines.slice(left + 1, right)]),
    expected: debugValue([strip(lines[right], 'right'), ...lines.slice(right + 1, end)]),
  };
}

/** A case with its failure message (else its line's note), and assert_eq!'s pair where the message has one. */
function detailed(c: LibtestResult, failure: string | undefined): TestCaseResult {
  const message = failure || c.note;
  return withDetails({ name: c.name, status: c.status }, message, failure ? assertEqPair(failure) : undefined);
}

/**
 * libtest's human output, possibly of several test executables one after another -> TestReport.
 * Cases come from the verdict lines (`libtestResultLine`), messages from the `---- <name> stdout
 * ----` blocks. An executable that announced its tests but never printed `test result:` died mid-run
 * (abort, stack overflow, timeout): one error outside the tests. So is a summary that counts another
 * number of results than the verdict lines read since `running N tests`: a line in a form this parser
 * does not know (or that a test's own raw output garbled) is never dropped silently.
 */
export function parseLibtestOutput(output: string): TestReport {
  const lines = output.replace(/\r\n/g, '\n').split('\n');
  const cases: LibtestResult[] = [];
  const messages = new Map<string, string[]>();
  let openBlocks = 0;
  let unread = 0;
  let readInBlock = 0;
  let failureOf: string | undefined;

  for (const line of lines) {
    if (LIBTEST_RUNNING.test(line)) {
      openBlocks++;
      readInBlock = 0;
      failureOf = undefined;
      continue;
    }
    const summary = LIBTEST_SUMMARY.exec(line);
    if (summary) {
      openBlocks = Math.max(0, openBlocks - 1);
      const counted = summaryCount(summary);
      if (counted !== null && counted !== readInBlock) unread++;
      readInBlock = 0;
      failureOf = undefined;
      continue;
    }
    const header = FAILURE_HEADER.exec(line);
    if (header) {
      failureOf = header[1];
      if (!messages.has(failureOf)) messages.set(failureOf, []);
      continue;
    }
    if (failureOf !== undefined) {
      if (line === 'failures:' || line === 'successes:') failureOf = undefined;
      else if (!BACKTRACE_NOTE.test(line)) messages.get(failureOf)!.push(line);
      continue;
    }
    const result = libtestResultLine(line);
    if (result) {
      cases.push(result);
      readInBlock++;
    }
  }

  return reportFromCases(
    cases.map((c) => detailed(c, messages.get(c.name)?.join('\n').trim() || undefined)),
    openBlocks + unread,
  );
}

interface JsonEvent {
  type?: unknown;
  event?: unknown;
  name?: unknown;
  message?: unknown;
  stdout?: unknown;
  median?: unknown;
  deviation?: unknown;
  passed?: unknown;
  failed?: unknown;
  ignored?: unknown;
  measured?: unknown;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** One JSON event -> a result, or null for the events that carry none (started, timeout warnings). */
function jsonResult(e: JsonEvent): { result: LibtestResult; failure?: string } | null {
  if (typeof e.name !== 'string') return null;
  if (e.type === 'bench' && typeof e.median === 'number') {
    return { result: { name: e.name, status: 'passed', note: `bench: ${e.median} ns/iter (+/- ${typeof e.deviation === 'number' ? e.deviation : '?'})` } };
  }
  if (e.type !== 'test') return null;
  if (e.event === 'ok') return { result: { name: e.name, status: 'passed' } };
  if (e.event === 'ignored') return { result: e.message ? { name: e.name, status: 'skipped', note: `ignored: ${text(e.message)}` } : { name: e.name, status: 'skipped' } };
  if (e.event === 'failed') {
    const failure = [text(e.stdout).replace(/^note: run with `RUST_BACKTRACE=1`.*$/m, ''), text(e.message)].map((s) => s.trim()).filter(Boolean).join('\n');
    return { result: { name: e.name, status: 'failed' }, failure };
  }
  return null;
}

/**
 * libtest's JSON (`-Z unstable-options --format json`: nightly, or stable with RUSTC_BOOTSTRAP=1),
 * one event per line -> TestReport, with the same rules as the human form: a suite that started and
 * never finished, or whose finishing counts disagree with the results read, is an error outside the
 * tests. Only lines that are JSON events are read; the engine itself runs the human form (docs/execution.md).
 */
export function parseLibtestJson(output: string): TestReport {
  const cases: TestCaseResult[] = [];
  let openBlocks = 0;
  let unread = 0;
  let readInBlock = 0;
  for (const line of output.replace(/\r\n/g, '\n').split('\n')) {
    if (!line.startsWith('{')) continue;
    let e: JsonEvent;
    try {
      e = JSON.parse(line) as JsonEvent;
    } catch {
      continue;
    }
    if (!e || typeof e !== 'object') continue;
    if (e.type === 'suite') {
      if (e.event === 'started') {
        openBlocks++;
        readInBlock = 0;
      } else if (e.event === 'ok' || e.event === 'failed') {
        openBlocks = Math.max(0, openBlocks - 1);
        const counts = [e.passed, e.failed, e.ignored, e.measured];
        if (counts.every((n) => typeof n === 'number') && (counts as number[]).reduce((a, b) => a + b, 0) !== readInBlock) unread++;
        readInBlock = 0;
      }
      continue;
    }
    const r = jsonResult(e);
    if (!r) continue;
    cases.push(detailed(r.result, r.failure || undefined));
    readInBlock++;
  }
  return reportFromCases(cases, openBlocks + unread);
}
