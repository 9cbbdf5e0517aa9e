import type { LanguageId } from '../parse/grammars';

/** Resource limits for one task's processes (a container, or the local sandbox). */
export interface ExecLimits {
  memoryBytes: number;
  cpus: number;
  pids: number;
  /** stdout + stderr kept per phase; the rest is dropped and `outputTruncated` set. */
  outputBytes: number;
}

export const DEFAULT_LIMITS: ExecLimits = {
  memoryBytes: 2 * 1024 ** 3,
  cpus: 2,
  pids: 512,
  outputBytes: 1024 * 1024,
};

export type PhaseName = 'warm-up' | 'compile' | 'compile-retry' | 'test' | 'coverage';

/** One command of a phase. Paths are absolute and the same on the host and in a container. */
export interface PhaseCommand {
  phase: PhaseName;
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** The most the command may run, however much it prints (a build's wall limit: `PhaseTimeouts.buildMs`). */
  timeoutMs: number;
  /**
   * A build's progress limit: the command is ended as stalled when it prints nothing for this long
   * (cargo names each crate it starts, `go build -v` each package). A slow build that still makes
   * progress is never cut at the old fixed limit; one that hangs silently still ends. Absent: wall time only.
   */
  silenceMs?: number;
  /**
   * Told of the output as it arrives (a build's progress for the editor: crates or packages built).
   * Only an observer: what runs and what is recorded are the same without it.
   */
  onOutput?: (chunk: string) => void;
  /**
   * Host folders this command may write besides the sandbox: only for trusted commands (a warm-up that
   * compiles the project's own code into a shared build cache), never for anything running a test.
   */
  writable?: string[];
  /**
   * When set, the sandbox is read-only to this command except these folders inside it (the test phase:
   * reports, caches, home, tmp, and what the toolchain declares). Absent: the whole sandbox is writable.
   */
  sandboxWritable?: string[];
  /**
   * Copy-on-write views of warm environments (warm-environment.ts), mounted for this command only:
   * the command sees `lower` at `dest`, its writes land in `upper`; `lower` itself never changes.
   * Only the executor that declared them (`SharedCache.share`) gets them.
   */
  overlays?: OverlayMount[];
  /**
   * Host folders shown writable at a place inside the sandbox (`dest`, an empty folder of the copy), for
   * trusted commands only: a warm-up filling a warm entry where the slots will later see it.
   */
  binds?: Array<{ source: string; dest: string }>;
  /**
   * Run with the sandbox at the executor's fixed path (`ExecutorCapabilities.fixedSandboxPath`):
   * every path into the sandbox in argv, env and cwd is given as the same path under the fixed one.
   * For build tools whose caches hold absolute paths (cargo's fingerprints and incremental state, Go's
   * build cache): a warm environment built at the fixed path then serves every slot, whatever its
   * sandbox's host path. The sandbox stays reachable at its host path too (scripts name it).
   */
  fixedPath?: boolean;
  /**
   * Where the executor gives them (`ExecutorCapabilities.commandViews`): `dir`, an empty writable
   * folder outside the sandbox that lives as long as this command (a tmpfs of its own), with trusted
   * host folders shown read-only inside it. For a warm cache a tool insists on finding writable though
   * nothing may change it (PHP's opcache files: PHP refuses a cache folder it cannot write, and any
   * later command reading a changed entry would run code the test wrote).
   */
  view?: { dir: string; readOnly: Array<{ source: string; dest: string }> };
  /**
   * Where the executor gives it (`ExecutorCapabilities.sealedChannel`): a pipe opened as the command's
   * file descriptor 3, read into `PhaseResult.sealed`. For a trusted program the command starts first
   * (the line tracer), which closes it before anything of the test runs: what arrives there was not
   * written by the test. Absent: no descriptor 3.
   */
  sealedChannel?: boolean;
  /**
   * On a phase that runs no test code and is followed by a test phase with these writable folders (a
   * compile): an executor that must open the copy to the test's user before the test phase (docker,
   * root engine) may do it at the end of this command instead of in a command of its own. So the
   * engine makes nothing in those folders between this phase and the test phase (a toolchain makes
   * its test phase's folders before its compile: Rust's profiles).
   */
  beforeTest?: string[];
  /**
   * The command's output as the engine reads it, made on the host once the command ended, from what
   * it printed and its status (Go's test phase: the test binary's raw `-test.v=test2json` lines into
   * `go test -json` events, languages/go/test-events.ts). Pure; it keeps to `maxBytes`, the session's
   * output limit. Applied by every session's `run`, so no caller sees the raw result.
   */
  readOutput?: (raw: PhaseResult, maxBytes: number) => PhaseResult;
}

/** An overlay a phase runs with: a warm entry's folder (`lower`, outside the sandbox) seen copy-on-write at `dest`. */
export interface OverlayMount {
  lower: string;
  /** Inside the sandbox: where the toolchain expects the folder (an empty folder, the mount point). */
  dest: string;
  /** Inside the sandbox's .xrt, on the same file system: the slot's own writes, and the overlay's scratch. */
  upper: string;
  work: string;
}

export interface PhaseResult {
  phase: PhaseName;
  argv: string[];
  /** null when killed (timeout, cancellation, limits). */
  exitCode: number | null;
  signal: string | null;
  /** Ended by a limit: its wall time (`timeoutMs`) or, with `stalled`, its silence (`silenceMs`). */
  timedOut: boolean;
  /** Ended because it printed nothing for `silenceMs` (a build that stopped making progress). */
  stalled?: boolean;
  outputTruncated: boolean;
  /** stdout and stderr interleaved as they arrived (capped at `outputBytes`). */
  output: string;
  /** What arrived on the command's descriptor 3 (`PhaseCommand.sealedChannel`), capped; absent when none was asked for. */
  sealed?: string;
  durationMs: number;
}

export interface SessionSpec {
  language: LanguageId;
  /** The disposable copy (absolute host path); the only writable project folder. */
  sandboxDir: string;
  limits: ExecLimits;
  /** docker: the image to run (a language or repository environment image). */
  image?: string;
}

export interface Session {
  run(cmd: PhaseCommand, signal?: AbortSignal): Promise<PhaseResult>;
  /** Stops everything the session started (processes, the container). Safe to call twice. */
  close(): Promise<void>;
  /**
   * What the long-lived environment this session runs in (a reused container) already holds, by warm
   * key: a warm-up that passed there, and what it answered. Later slots of the key skip the warm-up
   * (its caches are still in the environment). Absent where the environment lives for one slot only.
   */
  readonly warmed?: Map<string, unknown>;
  /**
   * Warm-ups' builds kept on the host across slots and processes for a session whose toolchain is an
   * image's (docker): the language's folder of entries (warm-environment.ts), and the image the
   * session runs (part of every key). A warm-up fills an entry through `PhaseCommand.binds` (the entry
   * mounted at its folder in the sandbox, for that trusted command only); slots get a copy of it
   * (`share`), made before any test exists. Absent where the executor keeps nothing (local: `sharedCache`).
   */
  readonly keptBuilds?: KeptBuilds;
}

/** What a session keeps of warm-ups across processes (`Session.keptBuilds`). */
export interface KeptBuilds extends SharedCache {
  /** What the phases run with that the copy's content does not say: the image's id (its toolchain and caches). */
  identity: string;
}

/**
 * A place to run one slot, taken before its sandbox exists: an executor that reuses its environments
 * (a long-lived container) says where the sandbox must be made so that environment sees it.
 */
export interface SessionLease {
  /** The folder the slot's sandbox is created in (createSandbox's `parent`). */
  sandboxParent: string;
  /**
   * Where exactly the sandbox goes (inside `sandboxParent`), when the environment shows every slot
   * the same path: build caches it keeps between slots hold absolute paths (Go's, cargo's).
   */
  sandboxDir?: string;
  /** The session for the sandbox made in `sandboxParent` (once per lease). */
  open(sandboxDir: string): Promise<Session>;
  /**
   * Ends the lease (and its session, if opened). The sandbox should be removed first: an environment
   * is reused only once the slot's folder is gone, else it is discarded.
   */
  close(): Promise<void>;
}

export interface ExecutorInfo {
  /** The executor's registered kind (create-executor.ts): `local`, `docker`, … */
  kind: string;
  /** e.g. `podman 4.3.1 (Docker API 1.41)` or `bubblewrap 0.8.0`. */
  engine: string;
  /** Tool versions where known: `go1.26.8`, `rustc 1.95.0`, … */
  versions: Record<string, string>;
}

export interface SharedCache {
  /** The host folder holding the language's warm environments (warm-environment.ts), written only by trusted warm-ups. */
  dir: string;
  /**
   * Gives a sandbox its own view of a warm entry's folder `lower` at `target` (inside the sandbox), which
   * nothing in the sandbox can spoil: an overlay every later phase of the slot mounts (returned), or,
   * where the executor cannot mount one, a view made now (sealed hard links where the toolchain never
   * rewrites a file in place and this process may seal them, else a copy; null returned).
   */
  share(lower: string, target: string, how: { rewritesInPlace: boolean }): OverlayMount | null;
}

/**
 * What an executor can do, asked by the engine instead of its class or kind: a new executor states
 * these and every call site follows (docs: "how to add an executor").
 */
export interface ExecutorCapabilities {
  /**
   * Phases run with this machine's installed toolchains, their caches kept in the sandbox (local);
   * false: in images that bring their own toolchains and caches, whose tool versions `info(language,
   * image)` reports (docker).
   */
  hostToolchains: boolean;
  /**
   * Trusted, networked steps the engine runs on the host before the sandboxed phases (Rust's dependency
   * fetch into a warm shared build folder), confined by `bubblewrap` (null: unconfined). Absent where
   * dependencies are fetched elsewhere (an environment image, at build time) or not shared.
   */
  hostFetch?: { bubblewrap: string | null; hostView?: readonly string[] };
  /**
   * Where the executor shows the sandbox to a command that asks for it (`PhaseCommand.fixedPath`): one
   * path for every slot and run, each command in a mount namespace of its own. Absent: commands see the
   * sandbox at its host path only.
   */
  fixedSandboxPath?: string;
  /**
   * Two commands of one session may run at once without seeing each other: each has its own process
   * namespace and cgroup, and what one leaves behind is killed without touching the other (local).
   * Absent: one command at a time (docker: a command's clean-up kills every process of its user).
   */
  concurrentCommands?: boolean;
  /**
   * Where commands may be given views (`PhaseCommand.view`): a folder that exists only inside each
   * command's own mount namespace. Absent: no views (docker, unconfined local).
   */
  commandViews?: string;
  /** Whether commands may ask for a sealed descriptor 3 (`PhaseCommand.sealedChannel`): local. */
  sealedChannel?: boolean;
  /**
   * Builds (or reuses) a repository's environment image, its dependencies fetched once, and names it.
   * Absent where the executor runs no images.
   */
  buildEnvironmentImage?(repoDir: string, language: LanguageId): Promise<string>;
}

export interface Executor {
  /** The registered kind (create-executor.ts); recorded in results, never branched on: ask `capabilities`. */
  readonly kind: string;
  /**
   * Slots do not wait for the engine's own tools to be built (the line tracer, a check of the score):
   * the build goes on in the background and a slot without the tool says so. The editor's executors;
   * a benchmark or `run` waits, so every slot of a run is checked alike.
   */
  readonly toolsInBackground?: boolean;
  readonly capabilities: ExecutorCapabilities;
  /**
   * A build cache kept on the host across tasks (filled only by trusted warm-ups), or null where the
   * executor keeps caches elsewhere (in images).
   */
  sharedCache?(language: LanguageId): SharedCache | null;
  /** What runs a language's phases (docker: `image`, else the language image), with tool versions. */
  info(language: LanguageId, image?: string): Promise<ExecutorInfo>;
  /** Why this executor cannot run a language here (its toolchain or image is missing), or null. */
  unavailable?(language: LanguageId): Promise<string | null>;
  open(spec: SessionSpec): Promise<Session>;
  /**
   * Where the engine runs a slot when the executor reuses environments between slots: the engine
   * leases before it makes the sandbox (in `sandboxParent`), then opens the session through the lease.
   * Absent: sandboxes go anywhere and `open` is used.
   */
  lease?(spec: Omit<SessionSpec, 'sandboxDir'>): Promise<SessionLease>;
  /** Releases what the executor keeps between slots (reused containers); safe to call twice. */
  close?(): Promise<void>;
}

/**
 * Whether a passing test reveals the change it was written for (`run --regression-check`, issue 17):
 * the same test is run against the focal function as it was at the base commit `extract
 * --changed-since` recorded (`changed_since.commit`), in a sandbox of that commit's tree. It is
 * **change-revealing** when it fails there and passes on the new code — the test a reviewer wants on
 * a pull request. A function the base commit does not have is `absent-at-base` (any test of it fails
 * there; counted apart), and a base run the machine could not score says nothing (`not-checked`).
 */
export interface RegressionVerdict {
  /** The base commit the test was run against. */
  base: string | null;
  verdict: 'change-revealing' | 'passes-at-base' | 'absent-at-base' | 'not-checked';
  /** How the base run ended, in words (its reason, or that it passed). */
  reason: string;
}
