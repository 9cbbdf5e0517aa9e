import type { LanguageFailureRules } from '../../score/failure-rules';

/**
 * Ruby 3.1 exceptions as RSpec's progress formatter prints them (`NoMethodError:` on one line, the
 * message indented on the next) or as Ruby prints an uncaught one (`message (Class)`), and
 * `ruby -c` syntax errors. Patterns key on the message, not on the class name alone: RSpec's
 * "Failure/Error:" block quotes source lines, which may well say `raise ArgumentError`.
 * Ruby 3.4 quotes names with '…' instead of `…' and says "for nil" / "for an instance of X".
 * Captured examples: test/data/failures/ruby/<id>.log.
 */

/** A method name in a NoMethodError message, quoted `x' (Ruby < 3.4) or 'x' (3.4). */
const QUOTED_NAME = "[`'][^`'\\n]+'";

export const rubyFailureRules: LanguageFailureRules = {
  // Compiling is a syntax check only (J.2): API and type errors surface when the test runs.
  typeCheckedCompile: false,
  patterns: [
    // --- compile (`ruby -c`): syntax
    {
      id: 'ruby-syntax-error',
      phase: 'compile',
      category: 'syntactic-compilation',
      regex: /syntax errors?\b[^\n]*/,
    },
    // --- runtime: API hallucination
    {
      // RSpec's old `should` syntax, off unless a project enables it: J.3's "other" (deprecated API).
      id: 'ruby-should-syntax',
      phase: 'runtime',
      category: 'api-hallucination',
      subcategory: 'other',
      regex: new RegExp(`undefined method [\`']should(?:_not|_receive)?' for [^\\n]*`),
    },
    {
      id: 'ruby-load-error',
      phase: 'runtime',
      category: 'api-hallucination',
      subcategory: 'phantom-library',
      regex: /cannot load such file -- \S+/,
    },
    {
      // A constant nobody defines: a class or module of a gem the project does not have (FactoryBot).
      id: 'ruby-uninitialized-constant',
      phase: 'runtime',
      category: 'api-hallucination',
      subcategory: 'phantom-library',
      regex: /uninitialized constant [\w:]+/,
    },
    {
      // Not on nil: that is the Type System case below (J.1).
      id: 'ruby-nomethod',
      phase: 'runtime',
      category: 'api-hallucination',
      subcategory: 'non-existent-api',
      regex: new RegExp(`undefined method ${QUOTED_NAME} for (?!nil\\b)[^\\n]*`),
    },
    {
      id: 'ruby-undefined-local',
      phase: 'runtime',
      category: 'api-hallucination',
      subcategory: 'non-existent-api',
      regex: new RegExp(`undefined local variable or method ${QUOTED_NAME}`),
    },
    {
      id: 'ruby-argument-count',
      phase: 'runtime',
      category: 'api-hallucination',
      subcategory: 'signature-mismatch',
      regex: /wrong number of arguments \(given \d+, expected [^)\n]+\)|(?:missing|unknown) keywords?: :\w+/,
    },
    // --- runtime: type system
    {
      id: 'ruby-nomethod-nil',
      phase: 'runtime',
      category: 'type-system-memory',
      regex: new RegExp(`undefined method ${QUOTED_NAME} for nil\\b[^\\n]*`),
    },
    {
      // RSpec prints the class alone on its line and the message below; Ruby prints `msg (TypeError)`.
      id: 'ruby-type-error',
      phase: 'runtime',
      category: 'type-system-memory',
      regex: /^\s*TypeError:\s*\n[^\n]*|[^\n]*\(TypeError\)$/m,
    },
  ],
};
