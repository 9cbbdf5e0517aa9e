import type { FailureCategory } from './types';

/*
 * What a language contributes to failure classification (score/failure.ts), below both sides: the
 * language folders import these types, the classifier looks the rules up on the language's adapter.
 */

/** The paper's Appendix J.3 sub-categories of API Hallucination. */
export type ApiHallucinationKind = 'phantom-library' | 'non-existent-api' | 'signature-mismatch' | 'other';

/** Which phase's output a pattern reads: the compile phase, or the test run. */
export type FailurePhase = 'compile' | 'runtime';

/** One recognisable error in a tool's output. */
export interface FailurePattern {
  /** Stable id, reported as the verdict's `rule` (`go-undefined`, `rust-E0308`, …). */
  id: string;
  phase: FailurePhase;
  // Never 'environment': a log the test's code shaped (its own compile errors) must not take its slot out of N.
  category: Exclude<FailureCategory, 'test-design-mocking' | 'tampering' | 'environment'>;
  /** Only for API hallucination, where the message tells which kind it is. */
  subcategory?: ApiHallucinationKind;
  /** Matched against the readable log (multi-line allowed); must not be global or sticky. */
  regex: RegExp;
}

/** Everything a language contributes to failure classification. */
export interface LanguageFailureRules {
  /**
   * J.2: whether compiling includes type checking and name resolution (Rust, Go), which decides the
   * order categories are tried in; elsewhere compiling is a syntax check.
   */
  typeCheckedCompile: boolean;
  patterns: readonly FailurePattern[];
  /**
   * The text the tool meant for people, from a phase's raw output. Tools that speak JSON (cargo's
   * `--message-format=json`, `go test -json`) carry the real messages inside strings, next to text
   * (rustc's error explanations) that would match patterns it has nothing to do with.
   */
  readableLog?(phase: FailurePhase, output: string): string;
}
