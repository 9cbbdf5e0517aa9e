import { goFailureRules } from '../languages/go/failures';
import { juliaFailureRules } from '../languages/julia/failures';
import { phpFailureRules } from '../languages/php/failures';
import { rubyFailureRules } from '../languages/ruby/failures';
import { rustFailureRules } from '../languages/rust/failures';
import type { LanguageId } from '../languages/types';
import type { FailureCategory } from './types';

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
  patterns: readonly FailurePattern[];
  /**
   * The text the tool meant for people, from a phase's raw output. Tools that speak JSON (cargo's
   * `--message-format=json`, `go test -json`) carry the real messages inside strings, next to text
   * (rustc's error explanations) that would match patterns it has nothing to do with.
   */
  readableLog?(phase: FailurePhase, output: string): string;
}

export interface FailureInput {
  language: LanguageId;
  testCode: string;
  compiled: boolean;
  compileLog: string;
  passed: boolean;
  testLog: string;
  coveredLines: number;
  /** The test run was killed at its timeout. */
  timedOut?: boolean;
}

export interface FailureVerdict {
  category: FailureCategory;
  /** The pattern id that matched, or 'fallback' / 'empty-test' / 'zero-coverage'. */
  rule: string;
  /** The matched log line(s), whitespace collapsed. */
  evidence?: string;
  /** J.3 sub-category, for API hallucination when the matching pattern tells. */
  subcategory?: ApiHallucinationKind;
}

const RULES: Record<LanguageId, LanguageFailureRules> = {
  go: goFailureRules,
  rust: rustFailureRules,
  php: phpFailureRules,
  ruby: rubyFailureRules,
  julia: juliaFailureRules,
};

export function failureRulesFor(language: LanguageId): LanguageFailureRules {
  return RULES[language];
}

/** J.2: compilation in Rust and Go includes type checking and name resolution; elsewhere it is a syntax check. */
const STATIC_LANGUAGES: ReadonlySet<LanguageId> = new Set<LanguageId>(['rust', 'go']);

type PatternCategory = FailurePattern['category'];

/** J.2's order of checks, per stage and language kind. The last entry is also the fallback. */
const COMPILE_ORDER_STATIC: readonly PatternCategory[] = ['api-hallucination', 'type-system-memory', 'syntactic-compilation'];
const COMPILE_ORDER_DYNAMIC: readonly PatternCategory[] = ['syntactic-compilation'];
const RUNTIME_ORDER_STATIC: readonly PatternCategory[] = ['type-system-memory', 'logic-assertion'];
const RUNTIME_ORDER_DYNAMIC: readonly PatternCategory[] = ['api-hallucination', 'type-system-memory', 'logic-assertion'];

/**
 * The release allowed one covered line for Ruby (its Coverage ran the `def` line when the file
 * loaded). Ruby's Cov now counts the example phase without the `def` header (METRICS.md), so an
 * unused focal method covers nothing there either, and a one-line method that ran is not "unused".
 */
function maxCoveredLinesOfUnusedFocal(_language: LanguageId): number {
  return 0;
}

const NO_TESTS_GENERATED = /no tests generated/i;

/**
 * The paper's Appendix J.2 decision tree. Categories are tried in J.2's priority order; within a
 * category the error the tool reported FIRST decides the rule (and the J.3 sub-category), with
 * ties on one line going to the pattern listed first (the more specific one).
 * Returns null when there is nothing to report: compiled, passed and the focal code ran.
 */
export function classifyFailure(input: FailureInput): FailureVerdict | null {
  if (input.testCode.trim() === '' || NO_TESTS_GENERATED.test(input.compileLog) || NO_TESTS_GENERATED.test(input.testLog)) {
    return { category: 'syntactic-compilation', rule: 'empty-test' };
  }
  const rules = RULES[input.language];
  const isStatic = STATIC_LANGUAGES.has(input.language);
  if (!input.compiled) {
    return classifyLog(rules, 'compile', input.compileLog, isStatic ? COMPILE_ORDER_STATIC : COMPILE_ORDER_DYNAMIC);
  }
  if (!input.passed || input.timedOut) {
    return classifyLog(rules, 'runtime', input.testLog, isStatic ? RUNTIME_ORDER_STATIC : RUNTIME_ORDER_DYNAMIC);
  }
  if (input.coveredLines <= maxCoveredLinesOfUnusedFocal(input.language)) {
    return { category: 'test-design-mocking', rule: 'zero-coverage' };
  }
  return null;
}

function classifyLog(rules: LanguageFailureRules, phase: FailurePhase, rawLog: string, order: readonly PatternCategory[]): FailureVerdict {
  const log = rules.readableLog ? rules.readableLog(phase, rawLog) : rawLog;
  for (const category of order) {
    const hit = firstHit(rules.patterns.filter((p) => p.phase === phase && p.category === category), log);
    if (hit) {
      const verdict: FailureVerdict = { category, rule: hit.pattern.id, evidence: hit.evidence };
      if (category === 'api-hallucination') verdict.subcategory = hit.pattern.subcategory ?? 'other';
      return verdict;
    }
  }
  return { category: order[order.length - 1], rule: 'fallback' };
}

interface Hit {
  pattern: FailurePattern;
  line: number;
  evidence: string;
}

/** The pattern whose match starts on the earliest line; on the same line, the one listed first. */
export function firstHit(patterns: readonly FailurePattern[], log: string): Hit | null {
  let best: Hit | null = null;
  for (const pattern of patterns) {
    const m = pattern.regex.exec(log);
    if (!m) continue;
    const line = lineOf(log, m.index);
    if (best && best.line <= line) continue;
    best = { pattern, line, evidence: evidenceAt(log, m.index, m.index + m[0].length) };
  }
  return best;
}

function lineOf(text: string, offset: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

const MAX_EVIDENCE = 300;

/** The whole lines a match touches, whitespace collapsed, so a report shows the message, not a fragment. */
function evidenceAt(text: string, start: number, end: number): string {
  const from = text.lastIndexOf('\n', start - 1) + 1;
  const nl = text.indexOf('\n', Math.max(end - 1, start));
  const to = nl === -1 ? text.length : nl;
  const lines = text.slice(from, to).replace(/\s+/g, ' ').trim();
  return lines.length > MAX_EVIDENCE ? `${lines.slice(0, MAX_EVIDENCE - 1)}…` : lines;
}
