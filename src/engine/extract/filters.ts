import type { FunctionInfo, LanguageAdapter, LanguageId } from '../languages/types';

/** The drop rules, in the order they are applied: a function is counted under the first that drops it. */
export const DROP_RULES = ['test-code', 'tool-ignored', 'cfg-excluded', 'entry-point', 'php-visibility', 'name', 'parse-error', 'min-lines', 'max-lines', 'no-return'] as const;
export type DropRule = (typeof DROP_RULES)[number];

export interface FilterConfig {
  /** Fewest non-comment lines (the release: 20). */
  minLines: number;
  /** Most non-comment lines (the release: 50). */
  maxLines: number;
  /** The release's name exclusions (`_x`, `$x`, `getX`, `setX`). */
  excludeNames: boolean;
  /** PHP private, protected and abstract methods. */
  excludeHiddenPhpMethods: boolean;
  requireOutput: boolean;
  /** Line bounds for one language, over `minLines`/`maxLines` (the release's config.json allows this too). */
  perLanguage?: Partial<Record<LanguageId, { minLines?: number; maxLines?: number }>>;
}

/** The public release's defaults (notes/xrepotest-release.md §2). */
export const RELEASE_FILTERS: FilterConfig = {
  minLines: 20,
  maxLines: 50,
  excludeNames: true,
  excludeHiddenPhpMethods: true,
  requireOutput: true,
};

const EXCLUDED_NAME = /^([_$]|(get|set)[A-Z])/;

export interface FilterInput {
  fn: FunctionInfo;
  adapter: LanguageAdapter;
  /** The file, relative to the repository root, '/'-separated. */
  relPath: string;
  inTestFile: boolean;
  nonCommentLines: number;
}

/** The rule that drops this function, or null to keep it. */
export function dropRule({ fn, adapter, relPath, inTestFile, nonCommentLines }: FilterInput, config: FilterConfig): DropRule | null {
  if (inTestFile || fn.isTestCode) return 'test-code';
  // Code the language's own tool never builds (Go: `_x/`, `.x/`, `testdata/`) cannot be tested in place.
  if (adapter.ignoredByTool?.(relPath)) return 'tool-ignored';
  // Code a test build on Linux never compiles, whatever features are passed (Rust: another target, Miri).
  if (fn.excludedByConfiguration !== undefined) return 'cfg-excluded';
  // Entry points a unit test cannot call (Go: `init`, and `main`).
  if (adapter.isEntryPoint?.(fn)) return 'entry-point';
  if (config.excludeHiddenPhpMethods && fn.isHiddenMethod) return 'php-visibility';
  if (config.excludeNames && EXCLUDED_NAME.test(fn.bareName)) return 'name';
  if (fn.node.hasError) return 'parse-error';
  const bounds = config.perLanguage?.[adapter.id];
  if (nonCommentLines < (bounds?.minLines ?? config.minLines)) return 'min-lines';
  if (nonCommentLines > (bounds?.maxLines ?? config.maxLines)) return 'max-lines';
  if (config.requireOutput && !adapter.hasOutput(fn)) return 'no-return';
  return null;
}

export function emptyDropCounts(): Record<DropRule, number> {
  return Object.fromEntries(DROP_RULES.map((r) => [r, 0])) as Record<DropRule, number>;
}
