import { LIBTEST_RUNNING, LIBTEST_SUMMARY, libtestResultLine } from '../../score/reports/libtest';
import type { Finding, LanguageTamperingRules } from '../../score/tampering-rules';
import { traceDisagrees } from '../../tracer/report';

/**
 * libtest runs inside the test's own executable and prints the verdict to the same stdout the test
 * can write to; `process::exit(0)` ends it before a failure is reported. The signs below are what
 * forging that takes; honest tests have none.
 */

/**
 * A block announcing N tests followed by more than N result lines: some were printed by a test. The
 * lines are counted in every form the report reads (libtest.ts), `- should panic` ones included.
 */
function extraResultLines(output: string): Finding | null {
  let announced: number | null = null;
  let seen = 0;
  for (const line of output.replace(/\r\n/g, '\n').split('\n')) {
    const running = LIBTEST_RUNNING.exec(line);
    if (running) {
      announced = Number(running[1]);
      seen = 0;
    } else if (LIBTEST_SUMMARY.test(line)) {
      announced = null;
    } else if (announced !== null && libtestResultLine(line) && ++seen > announced) {
      return { rule: 'rust-forged-framing', says: `libtest announced ${announced} test(s) but the output has more result lines (the test printed some itself)`, evidence: line.slice(0, 200) };
    }
  }
  return null;
}

export const rustTamperingRules: LanguageTamperingRules = {
  signs: [
    {
      id: 'rust-exit',
      // Also through an alias (`use std::process as p`) and a declared C function (`extern "C" { fn _exit(…) }`).
      regex: /\bprocess::(exit|abort)\b|\blibc::(_exit|exit|abort|kill)\b|\buse\s+(::)?std::process::(exit|abort|\*|\{[^}]{0,500}\b(exit|abort)\b)|\bstd::process\s+as\b|\bfn\s+(_exit|exit|_Exit|abort|kill)\s*\(/,
      says: 'the test ends the test executable early (process::exit / abort), before libtest reports its failure',
    },
    { id: 'rust-framing', inStrings: true, regex: /test result:|running \d+ tests?\b|\.\.\. (ok|FAILED)\b/, says: 'the test prints libtest\'s own lines (`test … ok`, `test result: ok`)' },
    { id: 'rust-report-path', inStrings: true, regex: /\.profraw|LLVM_PROFILE_FILE|__llvm_profile|\.lcov\b|profdata|\bcmdline\b|\.xrt\//, says: 'the test looks for the coverage profiles or the runner\'s command line (to rewrite them)' },
  ],

  async unknownTests(code, report) {
    const fns = new Set([...code.matchAll(/\bfn\s+(?:r#)?([A-Za-z_]\w*)/g)].map((m) => m[1]));
    // A reported name is a module path; test macros (rstest, test_case) add segments after the fn's name.
    const unknown = report.cases.map((c) => c.name).filter((n) => !n.split('::').some((seg) => fns.has(seg)));
    if (!unknown.length) return null;
    return { rule: 'rust-unknown-test', says: `libtest's output reports test(s) the code does not declare: ${unknown.slice(0, 5).join(', ')}` };
  },

  outputDisagrees: (output) => extraResultLines(output),

  // The raw profiles are the test binary's to write (its counters are in its own memory until exit);
  // the line tracer (toolchain.ts) watched the binary from outside.
  tracedCoverage: (sealed, covered) => traceDisagrees(sealed, covered, 'rust-coverage-rewritten'),
};
