import type { LanguageSuite } from '../types';
import { unwrapTestModule } from './toolchain';

function indented(text: string, prefix: string): string {
  return text
    .replace(/^\n+|\s+$/g, '')
    .split('\n')
    .map((l) => (l.trim() ? prefix + l : ''))
    .join('\n');
}

/**
 * Rust: one `#[cfg(test)] mod tests`, each test's items (its own `mod tests { … }` unwrapped, as
 * placement does) in a submodule of their own, so names never collide. The outer module imports the
 * focal module's names (`use super::*;`), and a test's own `use super::*;` reaches them through it.
 */
export const rustSuite: LanguageSuite = {
  async merge(tests) {
    if (tests.length <= 1) return tests[0] ?? '';
    const parts: string[] = [];
    for (const [i, code] of tests.entries()) {
      const body = await unwrapTestModule(code);
      parts.push(`    mod suite_${i + 1} {\n        #[allow(unused_imports)]\n        use super::*;\n${indented(body, '        ')}\n    }`);
    }
    return `#[cfg(test)]\nmod tests {\n    #[allow(unused_imports)]\n    use super::*;\n\n${parts.join('\n\n')}\n}\n`;
  },
};
