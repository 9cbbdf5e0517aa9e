import type { LanguageSuite } from '../types';
import { mergeByConcatenation } from '../../generate/suite-text';

/**
 * Ruby: one RSpec file, the tests' example groups one after the other (RSpec runs every top-level
 * `describe`); a `require` an earlier test made is not repeated.
 */
export const rubySuite: LanguageSuite = {
  async merge(tests) {
    return mergeByConcatenation(tests, /^\s*(require|require_relative)\b.*$|^\s*#\s*frozen_string_literal:.*$/);
  },
};
