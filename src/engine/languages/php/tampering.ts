import type { Finding, LanguageTamperingRules } from '../../score/tampering-rules';
import { stripVTControlCharacters as stripAnsi } from 'node:util';
import { cloverLineTotals } from '../../score/coverage/clover';
import { inheritedMethods } from './inherited-tests';

/**
 * PHPUnit writes its JUnit and Clover files from inside the test's own PHP process, before the
 * shutdown functions run: a test can rewrite both and choose the exit status. What PHPUnit printed to
 * stdout before that cannot be taken back, so its summary is checked against the report file.
 */

const FAILED_SUMMARY = /^(FAILURES!|ERRORS!)\s*$|^Tests: \d+, Assertions: \d+.*\b(Failures|Errors): [1-9]/m;
const ANY_SUMMARY = /^OK \(\d+ tests?, \d+ assertions?\)\s*$|^Tests: \d+, Assertions: \d+/m;

/**
 * Errors of PHPUnit itself (10 and later: an invalid data provider, e.g. one that is not static) are
 * printed under "There was 1 PHPUnit error:" and counted in the summary's Errors, but are no test case
 * of the JUnit report. The report's outside errors carry them (toolchain.ts); a test printing that
 * header itself is caught by the `php-framing` sign.
 */
export function phpunitRunnerErrors(raw: string): number {
  const m = /^There (?:was|were) (\d+) PHPUnit errors?:\s*$/m.exec(stripAnsi(raw));
  return m ? Number(m[1]) : 0;
}

/** The summary's failures and errors are all PHPUnit's own errors, which the report holds as outside errors. */
function onlyRunnerErrors(output: string, outsideErrors: number): boolean {
  const runner = phpunitRunnerErrors(output);
  if (runner === 0 || outsideErrors < runner) return false;
  const line = /^Tests: \d+, Assertions: \d+.*$/m.exec(output)?.[0] ?? '';
  const count = (what: string) => Number(new RegExp(`\\b${what}: (\\d+)`).exec(line)?.[1] ?? 0);
  return count('Failures') === 0 && count('Errors') <= runner;
}

function summaryDisagrees(raw: string, report: { ran: number; failed: number; errored: number; outsideErrors: number }, truncated: boolean): Finding | null {
  const output = stripAnsi(raw);
  const failedLine = FAILED_SUMMARY.exec(output);
  if (failedLine && report.failed + report.errored === 0 && report.ran > 0 && !onlyRunnerErrors(output, report.outsideErrors)) {
    return { rule: 'php-report-rewritten', says: 'PHPUnit printed failures, but the JUnit report it wrote says every test passed (the report was rewritten)', evidence: failedLine[0].trim() };
  }
  if (!truncated && report.ran > 0 && !ANY_SUMMARY.test(output)) {
    return { rule: 'php-no-summary', says: 'the JUnit report has tests, but PHPUnit never printed its summary (the run was cut short or its output swallowed)' };
  }
  return null;
}

/**
 * The Clover file read after PHP exited, against the summary PHPUnit printed when it wrote it
 * (`--coverage-text`, toolchain.ts: `Lines:   61.90% (39/63)`), from the same data. A destructor of an
 * object the test kept alive, a shutdown function or a finalizer runs after both: it can rewrite the
 * file but not take back the printed lines. Every summary printed must agree, and a Clover file needs
 * one (unless the output was cut). Residual: a test that rewrites PHPUnit's coverage data in memory
 * before the reports are made (reflection on its CodeCoverage object) makes both agree (docs/execution.md).
 */
function cloverDisagrees(raw: string, readReport: (name: string) => string | null, truncated: boolean): Finding | null {
  const clover = readReport('clover.xml');
  if (clover === null) return null;
  const written = cloverLineTotals(clover);
  if (!written || written.executable === 0) return null;
  const printed = [...stripAnsi(raw).matchAll(/^\s*Lines:\s+[\d.]+%\s+\(\s*(\d+)\/\s*(\d+)\)/gm)];
  for (const m of printed) {
    if (Number(m[1]) !== written.executed || Number(m[2]) !== written.executable) {
      return {
        rule: 'php-coverage-rewritten',
        says: `the Clover file says ${written.executed} of ${written.executable} lines ran, but PHPUnit printed ${m[1]} of ${m[2]} when it wrote it: the file was rewritten after PHPUnit finished`,
        evidence: m[0].trim(),
      };
    }
  }
  if (!printed.length && !truncated) {
    return { rule: 'php-coverage-rewritten', says: `a Clover file (${written.executed} of ${written.executable} lines run) is there, but PHPUnit printed no coverage summary: it was not written by PHPUnit's own run` };
  }
  return null;
}

export const phpTamperingRules: LanguageTamperingRules = {
  signs: [
    { id: 'php-exit', regex: /(?<![\w$>:\\])(exit|die)\s*(\(|;)/i, says: 'the test ends PHP early with exit()/die(), choosing the exit status' },
    { id: 'php-shutdown', regex: /\bregister_shutdown_function\b|\bpcntl_|\bposix_kill\b/i, says: 'the test registers code to run after PHPUnit has finished (register_shutdown_function) or signals processes' },
    {
      id: 'php-report-path',
      inStrings: true,
      // Not $argv / $_SERVER['argv'] alone: tests of command-line code set them honestly.
      regex: /junit|clover|--log-|--coverage|\bcmdline\b|\.xrt\/|phpunit\.xml/,
      says: 'the test looks for PHPUnit\'s report files or its command line (to rewrite them)',
    },
    { id: 'php-coverage-driver', regex: /\bpcov\\|\bpcov_|\bxdebug_(start|stop|get)_code_coverage\b/i, says: 'the test drives the coverage driver itself' },
    {
      id: 'php-runner-internals',
      regex: /PHPUnit\\(TextUI|Runner|Util\\Log|Logging|Event|Framework\\TestResult)\b/,
      says: 'the test reaches into PHPUnit\'s runner, printer or loggers',
    },
    { id: 'php-framing', inStrings: true, regex: /FAILURES!|OK \(\d+ tests?|Tests: \d+, Assertions:|PHPUnit errors?:/, says: 'the test prints PHPUnit\'s summary lines' },
  ],

  async unknownTests(code, report, sandbox) {
    const functions = new Set([...code.matchAll(/\bfunction\s+&?\s*([A-Za-z_]\w*)/g)].map((m) => m[1].toLowerCase()));
    const classes = new Set([...code.matchAll(/\bclass\s+([A-Za-z_]\w*)/g)].map((m) => m[1].toLowerCase()));
    // Test methods our class inherits from the package's own test classes (looked up only when needed).
    let inherited: Map<string, Set<string>> | undefined;
    const inheritedBy = (cls: string, method: string): boolean => {
      if (!sandbox) return false;
      inherited ??= inheritedMethods(code, sandbox.dir, sandbox.focalFile);
      return inherited.get(cls)?.has(method) ?? false;
    };
    const unknown = report.cases
      .map((c) => c.name)
      .filter((name) => {
        const [cls, method = ''] = name.split('::');
        // PHPUnit's own stand-ins (WarningTestCase for a class without tests, a broken data provider).
        if (cls.startsWith('PHPUnit\\')) return false;
        const bare = method.replace(/ with data set .*$/, '').toLowerCase();
        const shortClass = cls.split('\\').pop()!.toLowerCase();
        if (cls && !classes.has(shortClass)) return true;
        return method !== '' && !functions.has(bare) && !inheritedBy(shortClass, bare);
      });
    if (!unknown.length) return null;
    return { rule: 'php-unknown-test', says: `the JUnit report names test(s) the code does not declare: ${unknown.slice(0, 5).join(', ')}` };
  },

  outputDisagrees: summaryDisagrees,

  reportsDisagree: cloverDisagrees,
};
