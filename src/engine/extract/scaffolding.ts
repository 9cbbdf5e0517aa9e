import type { LanguageId } from '../languages/types';

/*
 * Scaffolding: folders of benchmarks, documentation, examples, experiments and the project's own
 * tooling. Their code is not the library a test suite tests (issue 32), so the benchmark leaves it out
 * under the counted rule `scaffolding-folder`. A folder of such a name inside a source root is the
 * library's own module (`lib/x/tools/`, `src/bench/`, `src/Tools/`) and stays.
 */

/** Folder names, compared case-insensitively (`Tools/`, `Docs/`). */
const SCAFFOLDING_DIRS: ReadonlySet<string> = new Set([
  'benchmark', 'benchmarks', 'bench', 'benches', 'experiments', 'experiment', 'website', 'docs',
  'examples', 'example', 'tools', 'scripts', 'script',
  'xtask', // Rust: cargo's build-automation crate convention
]);

/**
 * Where each language keeps its library code: a scaffolding name counts only before the first of
 * these in the path. Go has none (any package folder can be library code, so a `docs` or `tools`
 * package anywhere is left out; `cmd/` is program code and stays).
 */
const SOURCE_ROOTS: Record<LanguageId, readonly string[]> = {
  rust: ['src'],
  go: [],
  php: ['src', 'lib'],
  ruby: ['lib'],
  julia: ['src'],
};

/** Whether the file (relative to the repository root, '/'-separated) is under a scaffolding folder. */
export function inScaffoldingFolder(language: LanguageId, relPath: string): boolean {
  const roots = SOURCE_ROOTS[language];
  for (const dir of relPath.split('/').slice(0, -1)) {
    if (roots.includes(dir)) return false;
    if (SCAFFOLDING_DIRS.has(dir.toLowerCase())) return true;
  }
  return false;
}
