import type { LanguageFailureRules } from '../../score/failure-rules';

/**
 * Julia (1.10-1.11) exception messages as `Test` prints them under "Error During Test" or Julia
 * prints an uncaught one (`ERROR: LoadError: …`), and parse errors from the parse check. There is
 * no Julia on these machines: the examples in test/data/failures/julia/ are written by hand in
 * Julia's documented format and say so.
 */
export const juliaFailureRules: LanguageFailureRules = {
  // Compiling is a syntax check only (J.2): API and type errors surface when the test runs.
  typeCheckedCompile: false,
  patterns: [
    // --- compile (parse check): syntax
    {
      // JuliaSyntax (1.10+) says "ParseError:"; the old parser said "syntax: …".
      id: 'julia-parse-error',
      phase: 'compile',
      category: 'syntactic-compilation',
      regex: /ParseError:[^\n]*|\bsyntax: [^\n]*/,
    },
    // --- runtime: API hallucination
    {
      id: 'julia-package-not-found',
      phase: 'runtime',
      category: 'api-hallucination',
      subcategory: 'phantom-library',
      regex: /ArgumentError: Package \S+ not found[^\n]*/,
    },
    {
      // 1.10: "UndefVarError: `len` not defined"; 1.11 adds "in `Main`"; 1.9 had no backquotes.
      id: 'julia-undef-var',
      phase: 'runtime',
      category: 'api-hallucination',
      subcategory: 'non-existent-api',
      regex: /UndefVarError: `?[^\s`]+`? not defined[^\n]*/,
    },
    {
      // Up to 1.11 an ErrorException "type X has no field y"; 1.12 throws FieldError.
      id: 'julia-no-field',
      phase: 'runtime',
      category: 'api-hallucination',
      subcategory: 'non-existent-api',
      regex: /type \S+ has no field \S+/,
    },
    {
      // The function exists (else UndefVarError) but no method takes these arguments: multiple
      // dispatch's signature mismatch, the sub-category J.3 finds most often in Julia.
      id: 'julia-method-error',
      phase: 'runtime',
      category: 'api-hallucination',
      subcategory: 'signature-mismatch',
      regex: /MethodError: no method matching [^\n]*/,
    },
    // --- runtime: type system
    { id: 'julia-inexact-error', phase: 'runtime', category: 'type-system-memory', regex: /InexactError: [^\n]*/ },
    { id: 'julia-bounds-error', phase: 'runtime', category: 'type-system-memory', regex: /BoundsError: [^\n]*/ },
    { id: 'julia-type-error', phase: 'runtime', category: 'type-system-memory', regex: /\bTypeError: [^\n]*/ },
    {
      // Base math throws DomainError where the result exists only in a wider type (sqrt/log of a
      // negative real -> Complex, an integer to a negative power -> Float): a type-stability rule,
      // the same family as InexactError. A DomainError the project throws itself to reject an
      // input carries its own message; the test passed a bad value, and that stays Logic & Assertion.
      id: 'julia-domain-error',
      phase: 'runtime',
      category: 'type-system-memory',
      regex: /DomainError with [^\n]*\n[^\n]*(?:complex|Convert input to float|negative power)[^\n]*/,
    },
  ],
};
