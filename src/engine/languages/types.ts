import type { Node, Tree } from 'web-tree-sitter';
import type { Toolchain } from '../execute/toolchain';
import type { MutationEditsFor } from '../mutate/types';
import type { LanguageId } from '../parse/grammars';
import type { LanguagePrompt } from '../prompt/language-prompt';
import type { LanguageAssertions } from '../score/assertions';
import type { LanguageFailureRules } from '../score/failure-rules';
import type { LanguageInvocation } from '../score/invocation-target';
import type { LanguageTamperingRules } from '../score/tampering-rules';
import type { TaskRecord } from '../tasks/record';
import type { LanguageEditor, LanguageImage, LanguageLsp, LocalTools, NativeTestCommand, RepositoryDoctor, TestOnlyItem } from './execution-types';

export type { LanguageId };

/** Where a language records the code unit a function lives in (the release's metadata key). */
export type ScopeKey = 'package' | 'module' | 'namespace';

/** One function or method as a language adapter sees it, before any filter. */
export interface FunctionInfo {
  /** The syntax node of the whole definition; valid while its tree is alive. */
  node: Node;
  /** The name as the release records it (Julia keeps `Base.show`). */
  name: string;
  /** The identifier alone, for the name rule and for finding calls (`show` for `Base.show`). */
  bareName: string;
  signature: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  /** The enclosing package / module / namespace ('' where there is none). */
  scope: string;
  className: string;
  classSignature: string;
  /** Language-specific metadata added to the record (Ruby `method_kind`). */
  extraMetadata?: Record<string, string | string[]>;
  /** Test code inside a source file: Rust `#[test]` / `#[cfg(test)] mod`, PHP classes extending TestCase. */
  isTestCode: boolean;
  /** PHP private / protected / abstract methods, and methods without a body. */
  isHiddenMethod: boolean;
  /** Never compiled by a run whatever we pass (Rust: a cfg gate for another target or Miri): the gate, as written. */
  excludedByConfiguration?: string;
  /** Rust: compiled only by a nightly rustc (the crate's `#![feature]` applies to it): that attribute, as written. */
  needsNightly?: string;
  /** A declaration with nothing to run (PHP: an abstract method, an interface's method). */
  hasNoBody?: boolean;
}

/** What the extractor needs of a language: finding functions and the paper's per-language rules. */
export interface LanguageExtraction {
  id: LanguageId;
  displayName: string;
  /** File extensions, with the dot. */
  extensions: readonly string[];
  /** The release's metadata key for the enclosing code unit. */
  scopeKey: ScopeKey;
  /** Node types that are comments (for counting non-comment lines). */
  commentTypes: ReadonlySet<string>;
  /** A test file, by its path relative to the repository root ('/'-separated). */
  isTestFile(relPath: string): boolean;
  /**
   * A file the language's own build tool skips (Go: under `_x/`, `.x/` or `testdata/`), or a script
   * the project's tests never load (Ruby, PHP, Julia: `bin/`, `examples/`; PHP front controllers).
   */
  ignoredByTool?(relPath: string): boolean;
  /**
   * The folder (relative to `root`, '/'-separated) of a project nested below `root` that holds the
   * file and that the root's build never builds (Go: a directory with its own go.mod); undefined
   * when there is none. Reads the files under `root`.
   */
  nestedProject?(root: string, relPath: string): string | undefined;
  /** A function the runtime calls and a unit test cannot (Go: `init`, `main`; Rust: a binary's `main`). */
  isEntryPoint?(fn: FunctionInfo, relPath: string): boolean;
  /**
   * Every function and method the paper's extractor considers, in source order. `fileScope` is what
   * `fileScope()` said for the file ('' where the adapter has none).
   */
  listFunctions(tree: Tree, source: string, fileScope?: string, inherited?: unknown): FunctionInfo[];
  /**
   * What a file inherits from the rest of the project, read from the files under `root`, handed to
   * `listFunctions` as `inherited` (Rust: the cfg gates from the crate root down to the file).
   */
  inheritedContext?(root: string, relPath: string): Promise<unknown>;
  /**
   * The code unit a file belongs to when its text does not say (a Julia file `include`d into the
   * package module names no module itself). Reads the project's files under `root`.
   */
  fileScope?(root: string, relPath: string): string;
  /** An explicit return, or an output expression where the language has one (the last expression). */
  hasOutput(fn: FunctionInfo): boolean;
}

/**
 * Everything the engine knows about one language, assembled in `languages/<id>/index.ts` and looked up
 * with `adapterFor(id)`. Adding a language means one folder here, one grammar under grammars/, one image
 * recipe under docker/ and one fixture (docs/architecture.md).
 */
export interface LanguageAdapter extends LanguageExtraction {
  /** Placing, compiling, running and measuring a generated test (docs/execution.md). */
  toolchain: Toolchain;

  // -- scoring: failure rules, invocation finder, tampering checks, mutation operators, baseline, prompt --
  /** The compiler's and runner's messages that tell a failure's category (Appendix J; score/failure.ts classifies). */
  failureRules: LanguageFailureRules;
  /** Whether a test calls the focal function, and how a call site spells it (METRICS.md IR; score/invocation.ts parses). */
  invocation: LanguageInvocation;
  /** The known ways a test forges its score in this runner (score/tampering.ts adds the generic cross-checks). */
  tampering: LanguageTamperingRules;
  /** The mutation operators' edits of the focal function (METRICS.md item 6; mutate/mutants.ts filters and caps). */
  mutationOperators: MutationEditsFor;
  /** What a check looks like in this language's tests: a test with none is shown as a smoke test (score/assertions.ts). */
  assertions: LanguageAssertions;
  /** The offline baseline: one deterministic test from the task record alone (generate/baseline/ serves it as a provider). */
  baseline(task: TaskRecord): Promise<string>;
  /**
   * Improvement rounds' offline proposal (optional): a test aimed at focal lines the suite does not run
   * yet (an argument that takes an uncovered branch), or null when the builder has no idea for them.
   */
  baselineForLines?(task: TaskRecord, uncoveredLines: readonly number[]): Promise<string | null>;
  /** The paper's prompt template and the fences replies are read by (prompt/templates.ts, prompt/extract-test.ts). */
  prompt: LanguagePrompt;
  /** Kept tests merged into one test file by the language's conventions (improvement rounds' suite). */
  suite: LanguageSuite;

  // -- execution and editor: image recipe, local tools, LSP, editor language ids, doctor checks --

  /** How its container images are made (execute/images.ts, published-images.ts, docker.ts). */
  image: LanguageImage;
  /** What the local executor needs of the host (execute/local.ts, host-view.ts). */
  local: LocalTools;
  /** `doctor --repo`: the untouched project's build and the language's own checks (doctor-repo.ts). */
  doctor: RepositoryDoctor;
  /** LSP context: grammar parts and the headless server (context/lsp/). */
  lsp: LanguageLsp;
  /** Test-only items of a source file, stripped from file context and left out of retrieval (Rust `#[cfg(test)]`). */
  testOnlyItems?(root: Node): TestOnlyItem[];
  /** The editor's language ids, server extension and accepted-test placement (server/). */
  editor: LanguageEditor;
  /** The language's own test command with coverage in a person's checkout: the benchmark's reference (bench/execute.ts). */
  native: NativeTestCommand;
}

/**
 * How a language merges several tests of one focal function into one test file that its toolchain
 * places and runs as it would any generated test (task/improve-suite.ts scores the merged file itself).
 */
export interface LanguageSuite {
  /**
   * The tests, first one first, as one test file: their declarations kept, names that collide
   * renamed. Tests are attacker-controlled text; a merge that does not build is scored as such.
   */
  merge(tests: readonly string[]): Promise<string>;
}

type Described = Pick<FunctionInfo, 'name' | 'signature' | 'scope' | 'className' | 'classSignature'> &
  Partial<Pick<FunctionInfo, 'bareName' | 'extraMetadata' | 'isTestCode' | 'isHiddenMethod' | 'hasNoBody'>>;

/** A FunctionInfo for a definition node: lines from the node, the bare name defaulting to the name. */
export function describeFunction(node: Node, d: Described): FunctionInfo {
  return {
    node,
    bareName: d.name,
    isTestCode: false,
    isHiddenMethod: false,
    ...d,
    startLine: node.startPosition.row + 1,
    endLine: node.endPosition.row + 1,
  };
}

/** Path segments, for the test-file rules. */
export function segments(relPath: string): string[] {
  return relPath.split('/');
}

export function underDir(relPath: string, dirs: readonly string[]): boolean {
  const parts = segments(relPath);
  return parts.slice(0, -1).some((p) => dirs.includes(p));
}

/**
 * A file in one of the project's script or example folders (`bin/`, `examples/`), unless that folder
 * is inside a source root (`lib/examples/` is library code): programs run by hand, which no test loads.
 */
export function inScriptDir(relPath: string, scriptDirs: readonly string[], sourceRoots: readonly string[]): boolean {
  const dirs = segments(relPath).slice(0, -1);
  const at = dirs.findIndex((d) => scriptDirs.includes(d));
  return at >= 0 && !dirs.slice(0, at).some((d) => sourceRoots.includes(d));
}
