import { adapterFor } from '../languages';
import type { LanguageId } from '../languages/types';
import type { ApiHallucinationKind, FailurePattern, FailurePhase, LanguageFailureRules } from './failure-rules';
import type { FailureCategory } from './types';

export type { ApiHallucinationKind, FailurePattern, FailurePhase, LanguageFailureRules };

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

/** The language's failure rules, from its adapter (languages/<id>/failures.ts). */
export function failureRulesFor(language: LanguageId): LanguageFailureRules {
  return adapterFor(language).failureRules;
}

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
  const rules = failureRulesFor(input.language);
  // J.2: where compiling includes type checking and name resolution, its errors are tried first.
  const isStatic = rules.typeCheckedCompile;
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
