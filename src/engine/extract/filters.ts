import type { FunctionInfo, LanguageAdapter, LanguageId } from '../languages/types';
import { hostRustChannel, type RustChannel } from '../languages/rust/channel';
import { inScaffoldingFolder } from './scaffolding';

/** The drop rules, in the order they are applied: a function is counted under the first that drops it. */
export const DROP_RULES = ['test-code', 'tool-ignored', 'cfg-excluded', 'nightly-only', 'entry-point', 'scaffolding-folder', 'php-visibility', 'name', 'parse-error', 'min-lines', 'max-lines', 'no-return'] as const;
export type DropRule = (typeof DROP_RULES)[number];

/**
 * The rules that only shape the benchmark (the release's choice of which functions make good tasks):
 * a test can still call a function they drop, so the editor lets a user target it.
 */
export const BENCHMARK_ONLY_RULES = ['scaffolding-folder', 'php-visibility', 'name', 'min-lines', 'max-lines', 'no-return'] as const satisfies readonly DropRule[];

/**
 * Why a function cannot be tested where it is, whatever filter is chosen: no lens, no benchmark task,
 * and the editor refuses it with the reason. `nested-module` and `no-body` are counted under the drop
 * rules `tool-ignored` and `php-visibility`.
 */
export const UNTESTABLE_REASONS = ['test-code', 'tool-ignored', 'nested-module', 'cfg-excluded', 'nightly-only', 'entry-point', 'no-body', 'parse-error'] as const;
export type UntestableReason = (typeof UNTESTABLE_REASONS)[number];

export function isBenchmarkOnly(rule: DropRule): boolean {
  return (BENCHMARK_ONLY_RULES as readonly DropRule[]).includes(rule);
}

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
  /**
   * Functions under benchmark, documentation, example, experiment and tooling folders outside the
   * language's source roots (./scaffolding.ts); not one of the release's rules (docs/metrics.md).
   */
  excludeScaffolding: boolean;
  /**
   * The channel of the rustc that builds the tests: on `stable`, code that needs a crate's
   * `#![feature]` is `nightly-only`. Default: the host's (`rustc -vV`).
   */
  rustChannel?: RustChannel;
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
  excludeScaffolding: true,
};

const EXCLUDED_NAME = /^([_$]|(get|set)[A-Z])/;

export interface FilterInput {
  fn: FunctionInfo;
  adapter: LanguageAdapter;
  /** The file, relative to the repository root, '/'-separated. */
  relPath: string;
  inTestFile: boolean;
  nonCommentLines: number;
  /**
   * The folder (relative to the root) of a project nested below the root that the root's build never
   * builds (Go: a directory with its own go.mod), when the file is in one.
   */
  nestedProject?: string;
  /** The compiler cannot build `#![feature]` code (set when a function needs it and the channel is stable). */
  stableRust?: boolean;
}

/**
 * Why this function cannot be tested in place, or null when a test can call it (whether or not the
 * benchmark's filter keeps it). Checked in the drop rules' order, so the reason agrees with the rule
 * `dropRule` counts it under.
 */
export function untestableReason({ fn, adapter, relPath, inTestFile, nestedProject, stableRust }: FilterInput): UntestableReason | null {
  if (inTestFile || fn.isTestCode) return 'test-code';
  // Code the language's own tool never builds (Go: `_x/`, `.x/`, `testdata/`) cannot be tested in place.
  if (adapter.ignoredByTool?.(relPath)) return 'tool-ignored';
  // `go test ./...` at the root stops at a nested go.mod: the root's build never compiles that code.
  if (nestedProject !== undefined) return 'nested-module';
  // Code a test build on Linux never compiles, whatever features are passed (Rust: another target, Miri).
  if (fn.excludedByConfiguration !== undefined) return 'cfg-excluded';
  // A stable rustc refuses `#![feature]`: the crate (or the features this item needs) does not build.
  if (fn.needsNightly !== undefined && stableRust) return 'nightly-only';
  // Entry points a unit test cannot call (Go: `init`, and `main`).
  if (adapter.isEntryPoint?.(fn, relPath)) return 'entry-point';
  // An abstract method or an interface's has nothing to run (its implementations do).
  if (fn.hasNoBody) return 'no-body';
  if (fn.node.hasError) return 'parse-error';
  return null;
}

/** The drop rule an untestable reason is counted under in the extraction summary. */
const COUNTED_AS: Record<UntestableReason, DropRule> = {
  'test-code': 'test-code',
  'tool-ignored': 'tool-ignored',
  'nested-module': 'tool-ignored',
  'cfg-excluded': 'cfg-excluded',
  'nightly-only': 'nightly-only',
  'entry-point': 'entry-point',
  'no-body': 'php-visibility',
  'parse-error': 'parse-error',
};

/** The rule that drops this function, or null to keep it. */
export function dropRule(input: FilterInput, config: FilterConfig): DropRule | null {
  const { fn, adapter, nonCommentLines } = input;
  const untestable = untestableReason(input);
  // The release's order, where a name or visibility rule is counted before a parse error.
  if (untestable && untestable !== 'parse-error' && untestable !== 'no-body') return COUNTED_AS[untestable];
  if (config.excludeScaffolding && inScaffoldingFolder(adapter.id, input.relPath)) return 'scaffolding-folder';
  if (config.excludeHiddenPhpMethods && fn.isHiddenMethod) return 'php-visibility';
  if (config.excludeNames && EXCLUDED_NAME.test(fn.bareName)) return 'name';
  if (untestable) return COUNTED_AS[untestable];
  const bounds = config.perLanguage?.[adapter.id];
  if (nonCommentLines < (bounds?.minLines ?? config.minLines)) return 'min-lines';
  if (nonCommentLines > (bounds?.maxLines ?? config.maxLines)) return 'max-lines';
  if (config.requireOutput && !adapter.hasOutput(fn)) return 'no-return';
  return null;
}

/** Whether `#![feature]` code cannot be built by the toolchain the filters name (or the host's). */
export function buildsOnStableRust(config: Pick<FilterConfig, 'rustChannel'>): boolean {
  return (config.rustChannel ?? hostRustChannel()) === 'stable';
}

export function emptyDropCounts(): Record<DropRule, number> {
  return Object.fromEntries(DROP_RULES.map((r) => [r, 0])) as Record<DropRule, number>;
}
