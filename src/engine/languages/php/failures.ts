import type { LanguageFailureRules } from '../../score/failure-rules';

/**
 * PHP 8.2 errors as PHPUnit 9.6 prints them (`<Class>: <message>` under each numbered failure) and
 * `php -l` parse errors. Captured examples: test/data/failures/php/<id>.log.
 */

/** PHPUnit APIs removed by PHPUnit 9: calling them is J.3's "other" (deprecated API), not an invented one. */
const REMOVED_PHPUNIT_METHODS = [
  'assertInternalType',
  'assertNotInternalType',
  'assertAttribute\\w*',
  'readAttribute',
  'getObjectAttribute',
  'assertArraySubset',
  'setExpectedException\\w*',
  'expectExceptionMessageRegExp',
  'getMockWithoutInvokingTheOriginalConstructor',
];

export const phpFailureRules: LanguageFailureRules = {
  // Compiling is a syntax check only (J.2): API and type errors surface when the test runs.
  typeCheckedCompile: false,
  patterns: [
    // --- compile (`php -l`): syntax
    {
      id: 'php-parse-error',
      phase: 'compile',
      category: 'syntactic-compilation',
      regex: /(?:PHP )?Parse error: [^\n]*/,
    },
    // --- runtime: API hallucination
    {
      // PHP 8 quotes the name with ", PHP 7 with '. A class nobody defines is, in practice, a library
      // the project does not have (Faker, Mockery, an old PHPUnit_Framework_* name).
      id: 'php-class-not-found',
      phase: 'runtime',
      category: 'api-hallucination',
      subcategory: 'phantom-library',
      regex: /(?:Class|Interface|Trait|Enum) ["'][^"'\n]+["'] not found/,
    },
    {
      id: 'php-removed-phpunit-api',
      phase: 'runtime',
      category: 'api-hallucination',
      subcategory: 'other',
      regex: new RegExp(`Call to undefined method [^\\s(]+::(?:${REMOVED_PHPUNIT_METHODS.join('|')})\\(\\)`),
    },
    {
      id: 'php-undefined-method',
      phase: 'runtime',
      category: 'api-hallucination',
      subcategory: 'non-existent-api',
      regex: /Call to undefined method [^\s(]+\(\)/,
    },
    {
      id: 'php-undefined-function',
      phase: 'runtime',
      category: 'api-hallucination',
      subcategory: 'non-existent-api',
      regex: /Call to undefined function [^\s(]+\(\)/,
    },
    {
      id: 'php-undefined-constant',
      phase: 'runtime',
      category: 'api-hallucination',
      subcategory: 'non-existent-api',
      regex: /Undefined (?:class )?constant \S+/,
    },
    {
      // User functions throw "Too few arguments to function f(), 0 passed … expected"; built-ins throw
      // ArgumentCountError "f() expects exactly 1 argument, 2 given".
      id: 'php-argument-count',
      phase: 'runtime',
      category: 'api-hallucination',
      subcategory: 'signature-mismatch',
      regex: /ArgumentCountError: [^\n]*|Too few arguments to function [^\n]*/,
    },
    // --- runtime: type system
    {
      id: 'php-member-on-null',
      phase: 'runtime',
      category: 'type-system-memory',
      regex: /Call to a member function \S+ on null/,
    },
    {
      id: 'php-type-error',
      phase: 'runtime',
      category: 'type-system-memory',
      regex: /\bTypeError: [^\n]*/,
    },
  ],
};
