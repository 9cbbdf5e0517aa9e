import type { LanguageAssertions } from '../../score/assertions';

/** Rust: the assert macros (debug ones too), `panic!`, and `#[should_panic]` (the panic is the check). */
export const rustAssertions: LanguageAssertions = {
  checks: [/\b(debug_)?assert(_eq|_ne|_matches)?!/, /\bpanic!/, /#\[\s*should_panic/],
  lineComments: ['//'],
  blockComments: [['/*', '*/']],
};
