import type { LanguageId } from '../parse/grammars';
import type { LineHits, TestReport } from '../score/types';
import type { TaskRecord } from '../tasks/record';
import type { Sandbox } from './sandbox';
import type { PhaseCommand, PhaseResult } from './types';

export interface PhaseTimeouts {
  compileMs: number;
  testMs: number;
  coverageMs: number;
}

/** The release used 300 s for Go and Rust and 60–120 s elsewhere; one generous default for all. */
export const DEFAULT_TIMEOUTS: PhaseTimeouts = { compileMs: 300_000, testMs: 300_000, coverageMs: 120_000 };

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
   * Where the phases run. In a container, caches baked into the image can be used as they are: the
   * container's writes vanish with it. On the host, caches live in the sandbox.
   */
  executorKind: 'docker' | 'local';
}

export interface Placement {
  /** Where the test went (absolute, in the sandbox). */
  testFile: string;
  /** The test as written there (renamed class, wrapped module, added require…). */
  writtenCode: string;
  /** Test names found in the code where the runner needs them (Go's -run). */
  testNames: string[];
  notes: string[];
}

/** How one language places, compiles, runs and measures a generated test (docs/execution.md). */
export interface Toolchain {
  /** Files that mark a project root (`go.mod`, `Cargo.toml`…). */
  manifests: readonly string[];
  /**
   * A trusted command on the pristine copy, before the test is placed, that fills a build cache
   * (`cacheDir`) with the project's own build: later phases then copy it instead of starting cold.
   * Where `cacheDir` names the sandbox's own cache, nothing is copied.
   */
  warmUp?(ctx: RunContext, cacheDir: string): PhaseCommand;
  /** Where the phases expect that cache, inside the sandbox. */
  cacheDirInSandbox?(ctx: RunContext): string;
  place(ctx: RunContext): Promise<Placement>;
  compile(ctx: RunContext, placement: Placement): PhaseCommand;
  /**
   * After a failed compile: a change to the sandbox that may let it compile (Go: set the package's
   * broken existing tests aside), described by a note; null when there is nothing to try.
   */
  repairEnvironment?(ctx: RunContext, placement: Placement, failed: PhaseResult): string | null;
  /** The test phase, given the compile result (Rust needs the test executables it listed). */
  test(ctx: RunContext, placement: Placement, compiled: PhaseResult): PhaseCommand;
  /** A phase that turns raw profiles into a report (Rust's llvm-cov export); null where the test phase wrote it. */
  coverage(ctx: RunContext, placement: Placement): PhaseCommand | null;
  /** What the runner reported, from its output or its report file. */
  testReport(ctx: RunContext, placement: Placement, test: PhaseResult): TestReport;
  /** Hits per line of the focal file, from the coverage report; null where there is none. */
  focalHits(ctx: RunContext): LineHits | null;
}

export function phase(phaseName: PhaseCommand['phase'], ctx: RunContext, argv: string[], cwd: string, env: Record<string, string> = {}): PhaseCommand {
  const timeoutMs = phaseName === 'test' ? ctx.timeouts.testMs : phaseName === 'coverage' ? ctx.timeouts.coverageMs : ctx.timeouts.compileMs;
  return { phase: phaseName, argv, cwd, env: { ...ctx.baseEnv, ...env }, timeoutMs };
}

export function emptyReport(outsideErrors = 0): TestReport {
  return { ran: 0, passed: 0, failed: 0, errored: 0, skipped: 0, cases: [], outsideErrors };
}
