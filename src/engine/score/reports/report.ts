import type { TestCaseResult, TestReport } from '../types';

/**
 * Totals from the cases themselves, so they always agree with `cases`. "Ran" leaves skipped cases out:
 * a suite whose every test was skipped must not count as having run (METRICS.md, TPR).
 */
export function reportFromCases(cases: TestCaseResult[], outsideErrors = 0): TestReport {
  const count = (s: TestCaseResult['status']) => cases.filter((c) => c.status === s).length;
  const passed = count('passed');
  const failed = count('failed');
  const errored = count('errored');
  return { ran: passed + failed + errored, passed, failed, errored, skipped: count('skipped'), cases, outsideErrors };
}

export function emptyReport(): TestReport {
  return reportFromCases([]);
}

export interface ExpectedActual {
  expected: string;
  actual: string;
}

/**
 * The first `pattern` that matches `message`, read as (expected, actual) or (actual, expected) by
 * `order`. Patterns are tried in the given order, so callers list the most specific first.
 */
export function firstPair(
  message: string,
  patterns: ReadonlyArray<{ re: RegExp; order: 'expected-actual' | 'actual-expected' }>,
): ExpectedActual | undefined {
  for (const { re, order } of patterns) {
    const m = re.exec(message);
    if (!m) continue;
    const [a, b] = [m[1].trim(), m[2].trim()];
    return order === 'expected-actual' ? { expected: a, actual: b } : { expected: b, actual: a };
  }
  return undefined;
}

/** A case with message/expected/actual set only when present, so deepEqual on cases stays readable. */
export function withDetails(
  base: Pick<TestCaseResult, 'name' | 'status'>,
  message: string | undefined,
  pair: ExpectedActual | undefined,
): TestCaseResult {
  const out: TestCaseResult = { ...base };
  if (message) out.message = message;
  if (pair) {
    out.expected = pair.expected;
    out.actual = pair.actual;
  }
  return out;
}
