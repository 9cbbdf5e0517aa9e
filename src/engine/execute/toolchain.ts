import type { LanguageId } from '../parse/grammars';
import type { EnvironmentProblem, LineHits, TestReport } from '../score/types';
import type { TaskRecord } from '../tasks/record';
import * as path from 'node:path';
import { readSandboxFile, SandboxFileError, writeSandboxFile } from './safe-fs';
import type { Sandbox } from './sandbox';
import type { Executor, KeptBuilds, OverlayMount, PhaseCommand, PhaseName, PhaseResult } from './types';

export interface PhaseTimeouts {
  /**
   * A build (the warm-up, a compile) is measured against its progress, not its wall time alone: it is
   * ended as stalled when it prints nothing for this long (the release's 300 s compile limit, which a
   * healthy cold build of a crate with heavy dev-dependencies outlasts while it still prints crates).
   */
  compileMs: number;
  /** The most a build may take however much it prints (a build that never ends still ends). */
  buildMs: number;
  testMs: number;
  coverageMs: number;
}

/**
 * The release used 300 s for Go and Rust and 60–120 s elsewhere; one generous default for all. Builds
 * get 300 s of silence and an hour in all: a cold build of a real crate took 331 s here on a loaded machine.
 */
export const DEFAULT_TIMEOUTS: PhaseTimeouts = { compileMs: 300_000, buildMs: 3_600_000, testMs: 300_000, coverageMs: 120_000 };

/** The phases that build (the project, the test): limited by their progress (`PhaseTimeouts.compileMs`) and `buildMs`. */
export const isBuildPhase = (p: PhaseName): boolean => p === 'warm-up' || p === 'compile' || p === 'compile-retry';

/** Everything a toolchain needs to place and run one generated test. */
export interface RunContext {
  task: TaskRecord;
  language: LanguageId;
  testCode: string;
  /** 12 hex digits from the test code: names our files and modules. */
  id: string;
  sandbox: Sandbox;
  timeouts: PhaseTimeouts;
  /** HOME, TMPDIR, LANG pointing into the sandbox: every phase gets them. */
  baseEnv: Record<string, string>;
  /**
   * Where the phases run (the executor's `capabilities.hostToolchains`): on this machine's toolchains,
   * caches live in the sandbox; in an image, caches baked into it can be used as they are (the
   * container's writes vanish with it), and the image brings its own tools.
   */
  hostToolchains: boolean;
  /**
   * Folders inside the sandbox the test and coverage phases may write (absolute): `.xrt/home`,
   * `.xrt/tmp`, the report folder, and the toolchain's `writableDirs`. The rest of the copy is
   * read-only to them where the executor can make it so.
   */
  writableDirs: string[];
  /**
   * Copy-on-write views of the slot's warm environment (warm-environment.ts), filled when it is shared
   * with the slot (before the test exists): every phase made after that mounts them (`phase`).
   */
  overlays: OverlayMount[];
  /**
   * The executor's fixed path for the sandbox, when this toolchain asks for one (`Toolchain.fixedPath`)
   * and the executor gives one: every phase runs there (`PhaseCommand.fixedPath`), and what runners
   * report names files under it (`runnerPath`). Null: runners see the host path.
   */
  fixedPath: string | null;
}

export interface Placement {
  /** Where the test went (absolute, in the sandbox). */
  testFile: string;
  /** The test as written there (renamed class, wrapped module, added require…). */
  writtenCode: string;
  /** Test names found in the code where the runner needs them (Go's -run). */
  testNames: string[];
  /** Tests renamed in our file to avoid the project's names (Go): name run -> name the test gave. */
  renamedTests?: Record<string, string>;
  /**
   * Where `writtenCode` went into the focal file (a character offset into the task's file_content)
   * when the test joins the focal file (Rust: the end of the innermost module holding the focal item);
   * absent when it was appended at the end or went into a file of its own.
   */
  insertedAt?: number;
  /** Arguments the toolchain's build and test commands add, decided at placement from the pristine copy (Rust: `--features`). */
  buildArgs?: string[];
  /**
   * Known at placement, from the pristine copy and the task alone (never from anything the test wrote):
   * the focal code cannot be built under the configuration a run uses. The slot is an environment verdict.
   */
  environment?: EnvironmentProblem;
  notes: string[];
}

/** How one language places, compiles, runs and measures a generated test (docs/execution.md). */
export interface Toolchain {
  /** Files that mark a project root (`go.mod`, `Cargo.toml`…). */
  manifests: readonly string[];
  /**
   * The build's caches hold absolute paths (cargo's fingerprints and incremental state): the phases
   * run with the sandbox at the executor's fixed path where it has one (`RunContext.fixedPath`).
   */
  fixedPath?: boolean;
  /**
   * Its phases write little into the copy (reports, a test binary; no build products of the size of a
   * Rust target): the local executor may make its sandboxes in memory (execute/memory-folder.ts),
   * where creating the copy's files costs a tenth of a disk's. What a phase writes there counts against
   * its memory limit.
   */
  smallCopyWrites?: boolean;
  /**
   * A trusted command on the pristine copy, before the test is placed, that fills a build cache
   * (`cacheDir`) with the project's own build. With `warmIdentity`, on an executor that keeps caches
   * (local), it runs once per key into a warm environment later slots see copy-on-write
   * (warm-environment.ts); else into the sandbox's own cache, every slot.
   */
  warmUp?(ctx: RunContext, cacheDir: string): PhaseCommand;
  /**
   * What a warm environment's key holds besides the pristine copy's content (warm-environment.ts):
   * `toolchain`, the tool versions and the flags that change every artifact (entries of one toolchain
   * may start from each other), `scope`, what part of the project the warm-up builds (Go: the package).
   * Absent: the warm-up runs in every slot, into the slot's own cache.
   */
  warmIdentity?(ctx: RunContext): { toolchain: string; scope: string };
  /**
   * Why a failed warm-up failed, when the toolchain can tell from the project's own output (Ruby: a gem
   * the spec helper cannot load, `dependencies-unresolvable`); null: the default `project-does-not-build`.
   */
  warmUpProblem?(ctx: RunContext, warm: PhaseResult, repoDir: string): EnvironmentProblem | null;
  /**
   * How the warm-up's output shows its progress: one line per unit it built (cargo's `Compiling x v1`,
   * `go build -v`'s package paths), for the editor's "37 crates compiled". Absent: no count is shown.
   */
  buildProgress?: { unit: string; line: RegExp };
  /** Where the phases expect that cache, inside the sandbox; absent: the warm-up fills none (Ruby's checks the bundle). */
  cacheDirInSandbox?(ctx: RunContext): string;
  /**
   * Instead of warmUp: the toolchain prepares the pristine copy itself (Rust: a trusted, networked
   * dependency fetch, then a warm build kept per key and shared copy-on-write, warm-environment.ts). Returns the warm-up phase
   * it ran (null when the cache was already warm), or the environment problem that stops the slot.
   */
  prepareSandbox?(ctx: RunContext, with_: PrepareWith): Promise<PhaseResult | EnvironmentProblem | null>;
  /**
   * Folders inside the sandbox (absolute) a runner must write during the test phase besides `.xrt/home`,
   * `.xrt/tmp` and the report folder (Rust's target folder, Go's build cache); made if missing.
   */
  writableDirs?(ctx: Omit<RunContext, 'writableDirs' | 'overlays'>): string[];
  /**
   * Checked on the pristine copy before anything runs: a problem of the environment this toolchain can
   * see from the project alone (PHP: no runner within composer.json's PHPUnit constraint). The slot is
   * then an environment verdict with that reason, never the test's failure.
   */
  environmentProblem?(ctx: RunContext, executorVersions?: Record<string, string>): EnvironmentProblem | null;
  place(ctx: RunContext): Promise<Placement>;
  compile(ctx: RunContext, placement: Placement): PhaseCommand;
  /**
   * The compile phase only checks the placed test (a parser's verdict: `php -l`, `ruby -c`): it writes
   * nothing, and the test phase needs nothing of it (`test` is then given no compile result). Where
   * the executor keeps commands apart (`concurrentCommands`), both start at once (execute/evaluate.ts).
   */
  compileOnlyChecks?: boolean;
  /**
   * With `compileOnlyChecks`: the test phase runs first, and the check runs only when the runner's own
   * report does not already answer it. A file that does not parse runs no test (PHP and Ruby parse the
   * whole file before any of it runs), so a report with tests run and no error outside them means the
   * check would pass: it is then recorded as passed without running (a process less on a 2-core
   * machine, an exec less in a container). Otherwise it runs after the test phase, on the file the
   * test phase could only read, and its verdict decides as before (a failed check drops the test phase).
   */
  checkOnlyWithoutTests?: boolean;
  /**
   * After a failed compile: a change to the sandbox that may let it compile (Go: rename what our test
   * redeclares, or set the package's broken existing tests aside), described by a note; null when there
   * is nothing to try. Called again after each retry that fails, a few rounds at most.
   */
  repairEnvironment?(ctx: RunContext, placement: Placement, failed: PhaseResult): string | null | Promise<string | null>;
  /** The test phase, given the compile result (Rust needs the test executables it listed; none where `compileOnlyChecks`). */
  test(ctx: RunContext, placement: Placement, compiled: PhaseResult | undefined): PhaseCommand;
  /** A phase that turns raw profiles into a report (Rust's llvm-cov export); null where the test phase wrote it. */
  coverage(ctx: RunContext, placement: Placement): PhaseCommand | null;
  /**
   * A phase's output as a person reads it, where the runner writes machine-readable lines (Go's test
   * phase: `go test -json` events; Rust's compile phase: cargo's JSON messages). Pure, for the editor's
   * Test Results; the raw output stays in the phase and the stored records. Absent: the output is text.
   */
  displayText?(phase: PhaseName, output: string): string;
  /** What the runner reported, from its output or its report file. */
  testReport(ctx: RunContext, placement: Placement, test: PhaseResult): TestReport;
  /**
   * Hits per executable line of the focal file, from the coverage report; null where there is none.
   * May be async: Go parses the task's focal source to find its statement lines.
   */
  focalHits(ctx: RunContext): LineHits | null | Promise<LineHits | null>;
  /**
   * After a test phase whose build succeeded: why the test itself was not built after all (Rust: no
   * test of our module ran in any test binary), or null. Such a slot is scored as not compiled.
   */
  notBuilt?(ctx: RunContext, placement: Placement, test: PhaseResult, report: TestReport): string | null;
}

/** What a toolchain's own preparation gets from the engine. */
export interface PrepareWith {
  executor: Executor;
  /** Runs a phase in the slot's session (recorded with its phases). */
  run(cmd: PhaseCommand): Promise<PhaseResult>;
  /** The checkout the slot was copied from, as the engine names it in reasons' fixes. */
  repoDir?: string;
  /** What the reused environment the slot runs in already holds, by warm key (`Session.warmed`). */
  warmed?: Map<string, unknown>;
  /** Warm-ups' builds the session keeps on the host across processes (`Session.keptBuilds`: docker). */
  kept?: KeptBuilds;
}

/** The focal file as the toolchain placed the test into it: the task's file with `writtenCode` inserted or appended. */
export function focalWithTest(fileContent: string, placement: Pick<Placement, 'writtenCode' | 'insertedAt'>): string {
  const at = placement.insertedAt ?? fileContent.length;
  return fileContent.slice(0, at) + placement.writtenCode + fileContent.slice(at);
}

export function phase(phaseName: PhaseCommand['phase'], ctx: RunContext, argv: string[], cwd: string, env: Record<string, string> = {}): PhaseCommand {
  const build = isBuildPhase(phaseName);
  const timeoutMs = phaseName === 'test' ? ctx.timeouts.testMs : phaseName === 'coverage' ? ctx.timeouts.coverageMs : ctx.timeouts.buildMs;
  const cmd: PhaseCommand = { phase: phaseName, argv, cwd, env: { ...ctx.baseEnv, ...env }, timeoutMs };
  if (build) cmd.silenceMs = ctx.timeouts.compileMs;
  // Untrusted code runs in the test phase (and the coverage phase reads what it left): the copy is
  // read-only to both but for the folders runners write.
  if (phaseName === 'test' || phaseName === 'coverage') cmd.sandboxWritable = ctx.writableDirs;
  // A compile is followed by the test phase: an executor may open the copy to the test at its end.
  if (phaseName === 'compile' || phaseName === 'compile-retry') cmd.beforeTest = ctx.writableDirs;
  // Every phase after the warm environment was shared sees it copy-on-write (the warm-up itself does not).
  if (ctx.overlays.length) cmd.overlays = [...ctx.overlays];
  if (ctx.fixedPath) cmd.fixedPath = true;
  return cmd;
}

/** A sandbox path (absolute, on the host) as the phases' runners see it: under the fixed path where they run at one. */
export function runnerPath(ctx: Pick<RunContext, 'sandbox' | 'fixedPath'>, abs: string): string {
  if (!ctx.fixedPath) return abs;
  const rel = path.relative(ctx.sandbox.dir, abs);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return abs;
  return rel ? path.join(ctx.fixedPath, rel) : ctx.fixedPath;
}

/** A sandbox path as the safe reader wants it: relative to the sandbox root, '/'-separated. */
export function sandboxRel(ctx: RunContext, abs: string): string {
  const rel = path.relative(ctx.sandbox.dir, abs);
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) throw new SandboxFileError(`${abs} is not inside the sandbox`);
  return rel.split(path.sep).join('/');
}

/** A report or profile the runner wrote into the report folder, read safely; null when absent. */
export function readReport(ctx: RunContext, name: string, maxBytes?: number): string | null {
  return readSandboxFile(ctx.sandbox.dir, sandboxRel(ctx, path.join(ctx.sandbox.out, name)), maxBytes);
}

/** Any file of the sandbox, read safely (no links followed, regular files only, capped); null when absent. */
export function readInSandbox(ctx: RunContext, abs: string, maxBytes?: number): string | null {
  return readSandboxFile(ctx.sandbox.dir, sandboxRel(ctx, abs), maxBytes);
}

/** Writes a file of the engine's own into the sandbox without following links (scripts, configurations). */
export function writeInSandbox(ctx: RunContext, abs: string, data: string): void {
  writeSandboxFile(ctx.sandbox.dir, sandboxRel(ctx, abs), data);
}

export function emptyReport(outsideErrors = 0): TestReport {
  return { ran: 0, passed: 0, failed: 0, errored: 0, skipped: 0, cases: [], outsideErrors };
}
