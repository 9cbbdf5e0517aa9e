import type { LanguageAssertions } from '../../score/assertions';

/** Ruby: RSpec's `expect(…)` / `expect { … }` / `is_expected`, Minitest's `assert*` / `refute*` / `must_*` / `wont_*`, and `should`. */
export const rubyAssertions: LanguageAssertions = {
  checks: [/\bexpect\s*[({]/, /\bis_expected\b/, /\b(assert|refute)(_\w+)?\b/, /\b(must|wont)_\w+/, /\bshould(_not)?\b/],
  lineComments: ['#'],
  blockComments: [['=begin', '=end']],
};
