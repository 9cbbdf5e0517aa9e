import type { LanguageAssertions } from '../../score/assertions';

/** Julia: Test's `@test`, `@test_throws`, `@test_broken`, `@test_warn`, `@test_logs`, `@test_nowarn` (not `@testset`, not `@test_skip`). */
export const juliaAssertions: LanguageAssertions = {
  checks: [/@test(_throws|_broken|_warn|_logs|_nowarn)?(?![\w])/],
  lineComments: ['#'],
  blockComments: [['#=', '=#']],
};
