import type { Node } from 'web-tree-sitter';
import type { LspSyntax } from '../context/lsp/syntax-kit';
import type { ServerSpec } from '../context/lsp/server-kit';
import type { PhaseCommand } from '../execute/types';
import type { EnvironmentProblem } from '../score/types';
import type { LanguageId } from './ids';

/**
 * The parts of a language adapter that run and show its tests: images, the host's tools, the
 * repository doctor, LSP and the editor. Types only, below both the languages and the engine modules
 * that look them up (execute/images.ts, execute/local.ts, execute/host-view.ts, doctor-repo.ts,
 * context/lsp/*, server/*), so neither side imports the other's values.
 */

/** How the language's container images are made (docker/<id>/Dockerfile.official and .debian). */
export interface LanguageImage {
  /** The official image Dockerfile.official starts from when a registry answers. */
  officialBase: string;
  /** Why there is no Debian variant (Julia: "Debian has no Julia package"); absent when there is one. */
  noDebianVariant?: string;
  /** The dependency manifest an environment image installs from (`go.mod`). */
  manifest: string;
  /** Manifests below the first one are projects of their own (Go modules); else the first covers everything under it. */
  nestedManifests?: boolean;
  /** The files whose content decides an environment image (manifest and lock file). */
  lockFiles: readonly string[];
  /** Folders of a repository an environment image neither searches for manifests nor copies (build output, vendored or test data). */
  skippedDirs?: readonly string[];
  /** Whether a manifest folder asks only for what the language image already has (nothing to fetch). */
  dependenciesProvided?(dir: string): boolean;
  /**
   * The shell command that fetches one manifest folder's dependencies while an environment image is
   * built. `cd` enters the folder; `depsDir` is the image's dependency folder for it; `quote` shell-quotes.
   */
  installCommand(how: { cd: string; depsDir: string; quote: (s: string) => string }): string;
  /** Environment variables that point the dependency fetcher at a CA bundle (cargo's CARGO_HTTP_CAINFO), set while an image installs. */
  caBundleEnv?: readonly string[];
  /**
   * Folders of the image the test phase must write (Go: the build cache `go test` fills). The docker
   * executor opens them to the test user and never reuses a container for such a language (a test
   * could plant an entry a later slot would use); every other image folder is read-only to tests.
   */
  testPhaseWrites?: readonly string[];
  /** Shell printing `tool=version` lines: the docker executor's `info`. */
  versionScript: string;
  /** Shell printing `missing=<what>` for each tool the phases need that an image lacks (published images). */
  toolChecks: string;
}

/** What the local executor needs of this machine for the language. */
export interface LocalTools {
  /** The commands the phases call, and how to get each. */
  required: ReadonlyArray<{ cmd: string; install: string }>;
  /**
   * How a user installs the toolchain on their own machine (Debian/Ubuntu and macOS), in words and
   * commands they can copy: what "Check the environment" and an environment verdict say.
   */
  howToInstall: string;
  /** Version commands for `info` (first line of the output, by command). */
  versionCommands: ReadonlyArray<readonly [string, readonly string[]]>;
  /** More `info` versions (PHP: the project-local PHPUnits a constraint may pick). */
  moreVersions?(): Record<string, string>;
  /**
   * The commands the sandbox must see (host-view.ts): each one's folder and install are shown
   * read-only; `required` plus what the phases call besides (rustup, bundle).
   */
  hostCommands: readonly string[];
  /** The folders the toolchain reads beyond its commands' (GOROOT, RUSTUP_HOME, gem folders), when `has` one of its commands. */
  hostDirs?(probe: HostProbe): Array<string | undefined | null>;
  /** Host settings the toolchain needs though HOME points into the sandbox (RUSTUP_HOME, GOMODCACHE). */
  hostEnv?(which: (cmd: string) => string | null): Record<string, string>;
}

/** What host-view.ts hands a language probing the folders its toolchain reads. */
export interface HostProbe {
  env: NodeJS.ProcessEnv;
  /** The user's home folder. */
  home: string;
  /** Folders shown empty in the sandbox (a toolchain folder under one is not bound). */
  homes: readonly string[];
  /** Whether PATH has the command (among every language's hostCommands). */
  has(cmd: string): boolean;
  /** A toolchain's answer, asked from `/` with no toolchain switching, as trimmed non-empty lines. */
  outputLines(cmd: string, args: string[]): string[];
  isUnder(p: string, dir: string): boolean;
}

/** `xrepotest doctor --repo`: how the language checks an untouched repository before a run. */
export interface RepositoryDoctor {
  /**
   * The project's own code compiled or syntax-checked the way a run does, in the copy `base.cwd`;
   * `scratch` is our folder inside it, `env` its HOME/TMPDIR/LANG, `sources(ext)` a `find` printing
   * the project's files of that extension (NUL-separated). null: the language has no build step.
   */
  buildCommand(how: DoctorBuild): PhaseCommand | null;
  /** What to do about a build that fails, in words. */
  fix(repoDir: string): string;
  /** Before the build: what a run does first (Rust: the trusted fetch); its result goes to `explainFailure`. */
  prepare?(copy: string, how: DoctorContext): Promise<unknown>;
  /** A failed build's problem when the language can say more than "does not build" (Rust: unresolvable dependencies). */
  explainFailure?(output: string, repoDir: string, prepared: unknown): EnvironmentProblem | undefined;
  /** What else the language checks in the repository (PHP's runner and classmap, Ruby's bundle, Rust's features). */
  repositoryFacts?(check: DoctorCheck, repoDir: string, how: DoctorContext): Promise<void>;
  /** Lines under the language's line in the printed check, for what `repositoryFacts` added. */
  formatFacts?(check: DoctorCheck): string[];
}

export interface DoctorBuild {
  base: Pick<PhaseCommand, 'phase' | 'cwd' | 'timeoutMs'>;
  scratch: string;
  env: Record<string, string>;
  sources(ext: string): string;
}

/** What `doctor --repo` found for one language of the repository. */
export interface DoctorCheck {
  language: LanguageId;
  /** The trusted build of the untouched project, as run (null when the toolchain is missing or the image failed). */
  build: { command: string; exitCode: number | null; timedOut: boolean; output: string } | null;
  problems: EnvironmentProblem[];
  /** What else the language's checks found (PHP: the runner for the constraint, the classmap). */
  notes?: string[];
  /** What a language's checks found under a name of its own (Rust: `rustFeatures`), printed by its `formatFacts`, in `--json` as is. */
  [fact: string]: unknown;
}

export interface DoctorContext {
  /** Whether the executor runs phases with this machine's toolchains (Executor.capabilities). */
  hostToolchains: boolean;
  /**
   * Set when the executor runs trusted steps on the host (its `hostFetch` capability): the bubblewrap
   * (null: unconfined) and host view to confine them with. null otherwise (images fetch when built).
   */
  hostFetch: { bubblewrap: string | null; hostView?: readonly string[] } | null;
  /** The release's task extraction of the repository for this language (parsing only). */
  extract(repoDir: string): Promise<{ tasks: ReadonlyArray<{ metadata: Record<string, unknown> }>; summary: { dropped: Record<string, number> } }>;
  signal?: AbortSignal;
}

/** LSP context: the grammar's parts and the language server the engine starts itself. */
export interface LanguageLsp {
  syntax: LspSyntax;
  /** The server for the language, or a ServerMissingError naming what to install. */
  resolveServer(): ServerSpec;
  /** The name the server goes by in messages ("gopls"). */
  serverName: string;
  /** How a user installs the server (the LSP context mode only), for "Check the environment". */
  howToInstall: string;
  /** Ask typeDefinition before definition for parameter types (Ruby: a parameter's definition is itself). */
  typeDefinitionFirst?: boolean;
  /** Test code inside a source file that the syntax alone shows (Rust `#[test]`, `#[cfg(test)] mod`). */
  isTestCodeNode?(node: Node): boolean;
}

/** A test-only item inside a source file, from its doc comments and attributes to its end. */
export interface TestOnlyItem {
  /** [start, end) offsets in the source. */
  startIndex: number;
  endIndex: number;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
}

/** Where a scored test is kept when the user accepts it in the editor. */
export interface AcceptedPlacement {
  relPath: string;
  code: string;
  append: boolean;
  notes: string[];
}

/** The editor's side of the language. */
export interface LanguageEditor {
  /** VS Code's language ids of the language's documents. */
  languageIds: readonly string[];
  /** The editor extension that brings the language's server (the one most users install). */
  serverExtension: { name: string; id: string };
  /**
   * Where an accepted test goes and what it looks like there (default: where the run put it).
   * `dir` is the run's test folder, `focalBase` the focal file's name without extension, `fn` the
   * function's name in snake case.
   */
  acceptedPlacement?(run: { relPath: string; code: string; dir: string; focalRelPath: string; focalBase: string; fn: string }): AcceptedPlacement;
}

/**
 * The language's own test command with coverage, as a person runs it in their own warm checkout right
 * after writing a test: the reference `bench/execute.ts` times the scored evaluation against (its
 * "native" column). Nothing here is read back for a score; only the exit status (0 for a passing test).
 */
export interface NativeTestCommand {
  /** The test with a comment holding `marker` inside it, so that each round's file differs and no build cache serves it unchanged. */
  mark(testCode: string, marker: string): string;
  /**
   * Writes the (marked) test where the language's conventions put it in `how.projectRoot` — a copy the
   * caller owns, which this changes — and returns the commands to time; `restore` undoes the change.
   */
  prepare(how: NativeSetup): Promise<NativeRun>;
}

export interface NativeSetup {
  /** The project's root in the caller's copy (absolute): the nearest folder at or above the focal file with a manifest. */
  projectRoot: string;
  /** The focal file in that copy (absolute). */
  focalFile: string;
  /** The focal function's task record. */
  task: import('../tasks/record').TaskRecord;
  /** The test, as `mark` returned it. */
  testCode: string;
  /** A folder outside the copy for coverage files and helper files (it exists). */
  outDir: string;
}

/** One command of a native run; `argv[0]` is looked up on PATH. */
export interface NativeStep {
  argv: string[];
  cwd: string;
  env?: Record<string, string>;
}

export interface NativeRun {
  /** Where the test went (absolute). */
  testFile: string;
  /**
   * The test command with coverage, then what turns its raw output into a report (Rust's
   * llvm-profdata/llvm-cov): run in order, each must exit 0. A step given as a function is made when its
   * turn comes, from the standard output of the steps before it, in order.
   */
  withCoverage: Array<NativeStep | ((earlierStdout: readonly string[]) => NativeStep)>;
  /**
   * The report file the coverage run leaves (absolute), checked after each run: some runners exit 0
   * when only the report failed (PHPUnit). Absent where the last step prints the report instead.
   */
  report?: string;
  /** The plain test command, without coverage (the old "native" column). */
  plain: NativeStep[];
  /** Puts the copy back as it was before `prepare` (removes the test file, or the module appended to the focal file). */
  restore(): void;
  /**
   * Untimed, after `restore`: what brings the copy's build state back to the code without the test, as
   * in a person's checkout before they write one (Rust: rustc's incremental state would otherwise hold
   * this very test from the run before, and the next run recompile almost nothing). Each must exit 0.
   */
  settle?: NativeStep[];
}
