import type { LanguageSuite } from '../types';
import { mergeByConcatenation } from '../../generate/suite-text';

/** Julia: one file, each test's `@testset` after the other; a `using`/`import` made before is not repeated. */
export const juliaSuite: LanguageSuite = {
  async merge(tests) {
    return mergeByConcatenation(tests, /^\s*(using|import)\s.*$/);
  },
};
