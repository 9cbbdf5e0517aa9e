/**
 * Whether a test checks anything: a test with no assertion can pass while the function returns
 * nonsense (a "smoke" test: it only shows the call does not crash). Each language says what a check
 * looks like in its test frameworks (languages/<id>/assertions.ts); this reads a test's code with them.
 * Editor presentation only: the benchmark's metrics count a smoke test that passes as a pass (METRICS.md).
 */
export interface LanguageAssertions {
  /** What a check looks like in this language's tests (any one found means the test asserts something). */
  checks: readonly RegExp[];
  /** Line comment starts; a comment is dropped when it starts a line or follows white space (not `http://`). */
  lineComments: readonly string[];
  /** Block comment delimiters, dropped before matching (`/*`…`*\/`, Julia's `#=`…`=#`). */
  blockComments?: readonly (readonly [string, string])[];
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The code without its comments, so a commented-out assertion does not count. */
export function withoutComments(rules: LanguageAssertions, code: string): string {
  let out = code;
  for (const [open, close] of rules.blockComments ?? []) out = out.replace(new RegExp(`${escapeRegExp(open)}[\\s\\S]*?${escapeRegExp(close)}`, 'g'), ' ');
  for (const start of rules.lineComments) out = out.replace(new RegExp(`(^|\\s)${escapeRegExp(start)}.*$`, 'gm'), '$1');
  return out;
}

/** True when the test code holds at least one check of its language's test frameworks. */
export function hasAssertions(rules: LanguageAssertions, testCode: string): boolean {
  const code = withoutComments(rules, testCode);
  return rules.checks.some((re) => re.test(code));
}
