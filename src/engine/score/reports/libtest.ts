import type { TestCaseResult, TestReport } from '../types';
import { reportFromCases, withDetails, type ExpectedActual } from './report';

const RUNNING = /^running (\d+) tests?$/;
const RESULT_LINE = /^test (\S+) \.\.\. (ok|FAILED|ignored\b.*)$/;
const FAILURE_HEADER = /^---- (\S+) std(?:out|err) ----$/;
const SUMMARY = /^test result: (ok|FAILED)\./;
const BACKTRACE_NOTE = /^note: run with `RUST_BACKTRACE=1`/;

function statusOf(word: string): TestCaseResult['status'] {
  if (word === 'ok') return 'passed';
  if (word === 'FAILED') return 'failed';
  return 'skipped';
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

/**
 * libtest's human output, possibly of several test executables one after another -> TestReport.
 * Cases come from the `test <name> ... ok|FAILED|ignored` lines, messages from the `---- <name> stdout
 * ----` blocks. An executable that announced its tests but never printed `test result:` died mid-run
 * (abort, stack overflow, timeout): one error outside the tests.
 */
export function parseLibtestOutput(output: string): TestReport {
  const lines = output.replace(/\r\n/g, '\n').split('\n');
  const cases: TestCaseResult[] = [];
  const messages = new Map<string, string[]>();
  let openBlocks = 0;
  let failureOf: string | undefined;

  for (const line of lines) {
    if (RUNNING.test(line)) {
      openBlocks++;
      failureOf = undefined;
      continue;
    }
    if (SUMMARY.test(line)) {
      openBlocks = Math.max(0, openBlocks - 1);
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
    const result = RESULT_LINE.exec(line);
    if (result) cases.push({ name: result[1], status: statusOf(result[2]) });
  }

  const detailed = cases.map((c) => {
    const message = messages.get(c.name)?.join('\n').trim() || undefined;
    return withDetails(c, message, message ? assertEqPair(message) : undefined);
  });
  return reportFromCases(detailed, openBlocks);
}
