import { verdictOfProblem } from '../environment';
import { mapSandboxPaths } from '../execute/sandbox-paths';
import { adapterFor, parseLanguageId } from '../languages';
import { hasAssertions } from '../score/assertions';
import type { ResultRecord } from '../store/results';
import { pathInRepository } from '../tasks/task-path';

/**
 * One scored test as an agent reads it: the paper's metrics for this one test (CSR: it compiled, TPR:
 * it passed, Cov: the focal function's executable lines it ran and those it did not, IR: it calls the
 * focal function), the failure category and the runner's message. Made from the stored result record,
 * so a fresh scoring and one read back later (coverage, current scores) say the same.
 */
export interface ToolScore {
  function: string;
  /** Relative to the workspace. */
  file: string;
  startLine: number;
  endLine: number;
  language: string;
  /** CSR for this test. */
  compiled: boolean;
  /** TPR for this test: compiled, ran at least one test case, none failed. */
  passed: boolean;
  testsRan: number;
  testsPassed: number;
  coverage: ToolCoverage;
  /** IR: the test calls the focal function; `invokedStrict` also checks the receiver or module. */
  invoked: boolean;
  invokedStrict: boolean;
  /** Appendix J.2's category of a failure (plus ours: tampering, flaky, environment); null when it passed. */
  failureCategory: string | null;
  failureLabel: string | null;
  /** Why it did not pass, in a sentence; null when it passed. */
  reason: string | null;
  /** What the compiler or runner said about the failure (trimmed, workspace paths); null when it passed. */
  runnerMessage: string | null;
  failingCases: Array<{ name: string; status: string; message?: string }>;
  /** False for a smoke test: it checks no result (the offline baseline writes such tests). */
  hasAssertions: boolean;
  /** The machine, not the test, failed before the test ran: nothing was measured. */
  environment: { cause: string; fix: string } | null;
  /** Who wrote the test, and which of its tries this is. */
  author: { provider: string | null; model: string | null; sample: number; round: number };
  testHash: string;
}

/** The focal function's executable lines (as its language's coverage tool marks them) that the test ran, and the rest. */
export interface ToolCoverage {
  /** Covered over executable, in percent (0 where nothing is executable or nothing ran). */
  percent: number;
  executableLines: number[];
  coveredLines: number[];
  uncoveredLines: number[];
}

export function coverageOf(record: ResultRecord): ToolCoverage {
  const stats = record.coverage_stats[0];
  const covered = new Set(stats.covered_line_numbers);
  return {
    percent: stats.coverage,
    executableLines: stats.executable_line_numbers,
    coveredLines: stats.covered_line_numbers,
    uncoveredLines: stats.executable_line_numbers.filter((l) => !covered.has(l)),
  };
}

/** A result record of a workspace function as a ToolScore; `root` maps sandbox paths in messages back to the workspace. */
export function toolScoreOf(record: ResultRecord, root: string, executorKind: string): ToolScore {
  const x = record.xrt;
  const map = (text: string | null): string | null => (text === null ? null : mapSandboxPaths(text, root));
  const language = parseLanguageId(record.language);
  // The runner's message as a terminal shows it: Go's `go test -json` events and cargo's JSON build messages decoded (the editor's displayText).
  const display = (text: string | null): string | null =>
    text === null || !language ? text : (adapterFor(language).toolchain.displayText?.(record.checks[0].compilation ? 'test' : 'compile', text) ?? text).trim();
  const environment =
    x.failure_category === 'environment' && language
      ? (({ cause, fix }) => ({ cause, fix }))(verdictOfProblem({ cause: x.failure_rule ?? 'environment', reason: map(x.reason) ?? '' }, language, executorKind))
      : null;
  return {
    function: record.function_name,
    file: pathInRepository(record),
    startLine: record.function_component.start_line,
    endLine: record.function_component.end_line,
    language: record.language,
    compiled: record.checks[0].compilation,
    passed: record.checks[0].tests,
    testsRan: x.test_report.ran,
    testsPassed: x.test_report.passed,
    coverage: coverageOf(record),
    invoked: record.checks[0].invocation,
    invokedStrict: x.invocation_strict,
    failureCategory: x.failure_category,
    failureLabel: x.failure_label,
    reason: map(x.reason),
    runnerMessage: map(display(x.feedback)),
    failingCases: x.test_report.cases
      .filter((c) => c.status === 'failed' || c.status === 'errored')
      .map((c) => ({ name: c.name, status: c.status, ...(c.message !== undefined ? { message: map(c.message)! } : {}) })),
    hasAssertions: !x.baseline && !!language && hasAssertions(adapterFor(language).assertions, record.test[0] ?? ''),
    environment,
    author: { provider: x.provider, model: x.model, sample: x.sample, round: x.round },
    testHash: x.test_hash,
  };
}

const yes = (b: boolean): string => (b ? 'yes' : 'no');

/** `1, 3-5, 9`: line numbers as ranges. */
export function lineRanges(lines: readonly number[]): string {
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    let j = i;
    while (j + 1 < lines.length && lines[j + 1] === lines[j] + 1) j++;
    out.push(i === j ? `${lines[i]}` : `${lines[i]}-${lines[j]}`);
    i = j;
  }
  return out.join(', ');
}

/** A score in words: the verdict first, then each metric with its meaning, then what the runner said. */
export function scoreText(s: ToolScore): string {
  const where = `${s.function} (${s.file}:${s.startLine}-${s.endLine})`;
  if (s.environment) return `The test of ${where} could not run here: ${s.environment.cause}. Nothing was measured. How to fix: ${s.environment.fix}.`;
  const verdict = s.passed ? (s.hasAssertions ? 'PASSED' : 'PASSED (smoke test: it checks no result)') : s.compiled ? 'FAILED' : 'DID NOT COMPILE';
  const lines = [
    `Test of ${where}: ${verdict}.`,
    `- compiled (CSR): ${yes(s.compiled)}`,
    `- passed (TPR): ${yes(s.passed)}${s.testsRan ? `, ${s.testsPassed} of ${s.testsRan} test cases passed` : ''}`,
    `- focal line coverage (Cov): ${s.coverage.percent}% (${s.coverage.coveredLines.length} of ${s.coverage.executableLines.length} executable lines)` +
      (s.coverage.uncoveredLines.length ? `; lines not run: ${lineRanges(s.coverage.uncoveredLines)}` : ''),
    `- calls ${s.function} (IR): ${yes(s.invoked)}`,
  ];
  if (s.failureCategory) lines.push(`- failure category: ${s.failureLabel ?? s.failureCategory}`);
  // The runner's message usually starts with the reason: said once.
  if (s.reason && !s.runnerMessage?.startsWith(s.reason)) lines.push(`- why: ${s.reason}`);
  if (s.runnerMessage) lines.push('', 'What the compiler or runner said:', s.runnerMessage);
  return lines.join('\n');
}
