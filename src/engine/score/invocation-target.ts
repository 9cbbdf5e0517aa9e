import type { Tree } from 'web-tree-sitter';
import type { InvocationResult } from './types';

/*
 * What a language contributes to the invocation check (score/invocation.ts), below both sides: the
 * language folders import these types, the check looks the finder up on the language's adapter.
 */

/** What a test must call to count as invoking the focal function (METRICS.md, IR). */
export interface InvocationTarget {
  /** `function_name` as recorded: `Push`, `Base.show`, `fn{T}`. */
  name: string;
  /** The name a call site spells: `show` for `Base.show`, `f` for `f{T}`, `==` for `Base.:(==)`. */
  bareName: string;
  /** The method's type, class, trait or module; '' for a free function. */
  className: string;
  /** The enclosing package, module or namespace ('' where there is none). */
  scope: string;
  /** Ruby: `def self.x` and `class << self` methods are singleton methods. */
  methodKind?: 'instance' | 'singleton';
  /**
   * Rust only: the module the focal file itself is (`triangle` for `src/triangle.rs`, '' for the crate
   * root). `metadata.module` records inline `mod`s only, so without this a qualified call
   * `triangle::f()` to a file-level function could not be told from `other::f()`.
   */
  fileModule?: string;
}

export type FindInvocation = (tree: Tree, source: string, target: InvocationTarget) => InvocationResult;

/** A language's part of the invocation check. */
export interface LanguageInvocation {
  /** Whether the parsed test calls the target, and whether strictly (receiver or module matching too). */
  find: FindInvocation;
  /** The name a call site spells, from the recorded one (Julia: `Base.show` -> `show`); default: the name itself. */
  bareName?(recordedName: string): string;
  /** The module the focal file itself is, from its repository path (Rust: `src/triangle.rs` -> `triangle`). */
  fileModule?(filePath: string): string;
}
