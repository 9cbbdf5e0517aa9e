import { systemPrompt, type LanguagePrompt } from '../../prompt/language-prompt';

/** Rust's prompt (the paper's Appendix K template), the adapter's `prompt`. */
export const rustPrompt: LanguagePrompt = {
  fence: 'rust',
  fenceTags: new Set(['rust', 'rs']),
  wrapsMethodInClass: true,
  system: systemPrompt(
    'Rust',
    [
      'Put the tests in a `#[cfg(test)] mod tests` module next to the code under test',
      'Mark each test function with `#[test]` and give it a name that says what it checks',
      'Check results with `assert_eq!`, `assert_ne!` and `assert!`',
      'Use `#[should_panic]` (with `expected = "..."` when the panic message is known) for inputs that must panic',
      'Respect ownership and borrowing: build fresh values for each test instead of sharing mutable state',
    ],
    'rust',
    [
      '#[cfg(test)]',
      'mod tests {',
      '    use super::*;',
      '',
      '    #[test]',
      '    fn divides_evenly() {',
      '        assert_eq!(checked_div(10, 2), Some(5));',
      '    }',
      '',
      '    #[test]',
      '    fn division_by_zero_gives_none() {',
      '        assert_eq!(checked_div(1, 0), None);',
      '    }',
      '',
      '    #[test]',
      '    #[should_panic(expected = "empty slice")]',
      '    fn first_of_empty_slice_panics() {',
      '        first(&[] as &[i32]);',
      '    }',
      '}',
    ].join('\n'),
  ),
  requirements: () => [
    'Start the test module with `use super::*;` so the items under test are in scope',
    'Use `assert_eq!` for expected values and `assert_ne!` where a result must differ from a value',
    'Give each test a `///` doc comment that says what behaviour it checks',
  ],
};
