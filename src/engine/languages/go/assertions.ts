import type { LanguageAssertions } from '../../score/assertions';

/**
 * Go: testing.T's failures (`t.Errorf`, `t.Fatal`, `t.Fail()`…, on any receiver name), testify's
 * `assert.` / `require.`, and Gomega's `Expect(`. `err.Error()` (no argument) is a method call, not a check.
 */
export const goAssertions: LanguageAssertions = {
  checks: [/\.(Errorf|Fatal|Fatalf|Fail|FailNow)\s*\(/, /\.Error\s*\(\s*[^)\s]/, /\b(assert|require)\.[A-Z]\w*\s*\(/, /\bExpect\s*\(/],
  lineComments: ['//'],
  blockComments: [['/*', '*/']],
};
