import type { TestReport } from './types';

/*
 * What a language contributes to the tampering checks (score/tampering.ts), below both sides: the
 * language folders import these types, the checks look the rules up on the language's adapter.
 */

/** One known trick, found in the test's code with comments blanked out. */
export interface TamperingSign {
  /** Stable id, reported as the verdict's `rule` (`go-testmain-no-run`, `ruby-at-exit`, …). */
  id: string;
  /** Matched against the code without comments and string literals; must not be global or sticky. */
  regex: RegExp;
  /** Match against the code with its string literals (a report's file name, a runner's line). */
  inStrings?: boolean;
  /** What the trick does, completing "the test tampered with the harness: …". */
  says: string;
}

/** What one language adds to the generic cross-checks. */
export interface LanguageTamperingRules {
  signs: readonly TamperingSign[];
  /** Signs that need the syntax tree (Go: a TestMain that never calls m.Run). */
  treeSigns?(code: string): Promise<Finding[]>;
  /**
   * Whether a test the runner reported can come from this code, and if not, why (a name the code does
   * not declare, more examples than it can make). Null: nothing wrong, or nothing can be told.
   */
  unknownTests?(code: string, report: TestReport, sandbox?: { dir: string; focalFile: string }): Promise<Finding | null>;
  /** The runner's own printed output disagrees with the report it wrote (PHPUnit's, RSpec's summary). */
  outputDisagrees?(output: string, report: TestReport, outputTruncated: boolean): Finding | null;
  /**
   * What the runner printed when its tests ended disagrees with a report file read after the process
   * exited (Go: the testing package's `coverage: N% of statements` against the cover profile). The
   * file is the process's to write until it exits, so code that runs after the runner wrote it (a
   * TestMain after m.Run) can rewrite it; what was printed went into the engine's pipe at that moment
   * and cannot be taken back. `readReport`: a report file of the slot, read safely, null when absent.
   */
  reportsDisagree?(output: string, readReport: (name: string) => string | null, outputTruncated: boolean): Finding | null;
  /**
   * The focal lines the coverage counts against those a program outside the test's process saw run
   * (the line tracer's report, on the test phase's sealed channel: `PhaseResult.sealed`). Called only
   * when the test phase ran under the tracer and ended by itself (not at its time limit).
   */
  tracedCoverage?(sealed: string, covered: readonly number[]): Finding | null;
}

/** One sign of tampering in a run: the rule, what the trick did in words, and the line that shows it. */
export interface Finding {
  rule: string;
  says: string;
  evidence?: string;
}
