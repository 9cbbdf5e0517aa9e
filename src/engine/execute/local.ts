import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { adapterFor, LANGUAGE_IDS, type LanguageId } from '../languages';
import { localHostViewArgs } from './host-view';
import { CgroupPool, cgroupSupport, reapStaleCgroups, type CgroupKind, type CommandCgroup } from './command-cgroup';
import { CappedOutput, readOutput } from './output';
import { memorySandboxParent } from './memory-folder';
import type { Executor, ExecutorCapabilities, ExecutorInfo, OverlayMount, PhaseCommand, PhaseResult, Session, SessionLease, SessionSpec, SharedCache } from './types';
import { sandboxRemovalsDone } from './sandbox';
import { seal } from './warm-environment';
import { which } from '../util/which';

/**
 * Runs phases on the host's toolchains, in the disposable copy. Generated tests are hostile, so where
 * bubblewrap is installed every command runs inside it: of the host only the system and toolchain
 * folders, read-only (host-view.ts), then the sandbox, a private /tmp, no network, its own PID
 * namespace (nothing survives the command), killed with its parent. Memory and process limits come from cgroups where this process may make them
 * (root), else from rlimits. Without bubblewrap the copy and the limits still hold, but network and
 * writes elsewhere are not prevented: `info()` says so. Warm environments (warm-environment.ts) are
 * shown to a slot's phases copy-on-write: an overlay mounted per command, in a mount namespace of its
 * own, before bubblewrap (0.8 has no overlay option); where none can be mounted, sealed hard links or
 * a copy made once per slot (`sharedCache().share`).
 */
export interface LocalExecutorOptions {
  /** 'auto' uses bubblewrap when installed; 'none' runs unconfined (for debugging only). */
  isolation?: 'auto' | 'bubblewrap' | 'none';
  /** Build caches shared across tasks (default: ~/.cache/xrepotest/local). */
  cacheRoot?: string;
  /** Sandboxes of languages that write little in memory where a tmpfs allows it (default true; memory-folder.ts). */
  memorySandboxes?: boolean;
  /** `Executor.toolsInBackground` (default false: slots wait for the engine's tools). */
  toolsInBackground?: boolean;
}

function firstLine(cmd: string, args: string[]): string | null {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 20_000 });
  if (r.status !== 0) return null;
  return (r.stdout || r.stderr).trim().split('\n').find((l) => l.trim()) ?? null;
}


/**
 * Whether this process can give each phase its own overlay mount (as root, in a private mount namespace
 * made with `unshare`, before bubblewrap starts): tried once on scratch folders.
 */
function overlaySupport(): boolean {
  if (process.getuid?.() !== 0 || !which('unshare') || !which('mount')) return false;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-overlay-probe-'));
  try {
    for (const d of ['lower', 'upper', 'work', 'dest']) fs.mkdirSync(path.join(dir, d));
    fs.writeFileSync(path.join(dir, 'lower', 'f'), 'x');
    const r = spawnSync('unshare', ['--mount', '--propagation', 'private', '--', '/bin/sh', '-c', `${OVERLAY_SCRIPT} && test -f "$1/f"`, 'xrt-overlay', ...['lower', 'upper', 'work', 'dest'].map((d) => path.join(dir, d)), '--', path.join(dir, 'dest')], {
      timeout: 20_000,
    });
    return r.status === 0;
  } catch {
    return false;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Mounts each (lower, upper, work, dest) given as arguments up to `--`; what follows is the command. */
const OVERLAY_SCRIPT =
  'while [ "$1" != -- ]; do mount -t overlay xrt-warm -o "nosuid,nodev,lowerdir=$1,upperdir=$2,workdir=$3" "$4" || exit 125; shift 4; done; shift';

/**
 * mount(8) runs before the confinement and follows links: every folder it is given must still be the
 * real folder the engine made (nothing in the sandbox replaced one, or a folder above it, by a link).
 */
function spoiledOverlay(overlays: readonly OverlayMount[]): string | null {
  for (const dir of overlays.flatMap((o) => [o.dest, o.upper, o.work])) {
    let real: string | null = null;
    try {
      real = fs.lstatSync(dir).isDirectory() ? fs.realpathSync(dir) : null;
    } catch {
      /* gone */
    }
    if (real !== dir) return `the sandbox's folder ${dir} of a warm environment was replaced or removed; the phase cannot see the warm environment`;
  }
  return null;
}

/** Paths an overlay's options can carry (a comma or colon would split them). */
const MOUNTABLE = /^\/[^,:\\\s]*$/;

/**
 * The fallback where no overlay can be mounted: the slot's own view of a warm entry's folder, made now.
 * As root, where the toolchain never rewrites a file in place (Go's build cache), sealed hard links:
 * the shared files are owned by nobody and read-only, and sandboxed commands run without capabilities,
 * so they can add entries to their view but not change a shared one. Otherwise a full copy (reflinked
 * where the file system can: free on btrfs/xfs).
 */
function seedView(lower: string, target: string, rewritesInPlace: boolean, confined: boolean): 'hard links' | 'copy' {
  fs.rmSync(target, { recursive: true, force: true });
  // Unconfined (isolation 'none'), the commands keep root's capabilities: a sealed file would not hold.
  if (!rewritesInPlace && confined && seal(lower)) {
    const r = spawnSync('cp', ['-al', lower, target]);
    if (r.status === 0) return 'hard links';
    fs.rmSync(target, { recursive: true, force: true });
  }
  fs.mkdirSync(target, { recursive: true });
  // Modes and times kept (cargo compares times), owners not: the copy is the slot's own.
  const r = spawnSync('cp', ['-R', '--no-dereference', '--reflink=auto', '--preserve=mode,timestamps', `${lower}/.`, `${target}/`], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`could not copy the warm environment ${lower}: ${(r.stderr || r.error?.message || '').trim()}`);
  return 'copy';
}

/**
 * Where a command that asks for it (`PhaseCommand.fixedPath`) sees its sandbox: the same path for every
 * slot and run (each command has a mount namespace of its own), so build caches that hold absolute
 * paths — cargo's fingerprints and incremental state — built there by a warm-up serve every slot. It
 * exists only inside the confinement (bubblewrap's root is empty but for what is bound).
 */
export const FIXED_SANDBOX_PATH = '/xrt/sandbox';

/** Where commands' views go (`PhaseCommand.view`): like the fixed path, only inside bubblewrap's root. */
export const COMMAND_VIEWS = '/xrt/views';

/** The most a sealed channel keeps (`PhaseCommand.sealedChannel`): the line tracer's report is a few kilobytes. */
const SEALED_BYTES = 1024 * 1024;

/** A view's folders: under COMMAND_VIEWS, mountable paths with nothing to resolve, sources outside the sandbox. */
function viewProblem(view: NonNullable<PhaseCommand['view']>, sandboxDir: string): string | null {
  const clean = (p: string): boolean => MOUNTABLE.test(p) && path.posix.normalize(p) === p && !p.split('/').includes('..');
  const under = (p: string, dir: string): boolean => p.startsWith(dir + '/');
  if (!clean(view.dir) || !under(view.dir, COMMAND_VIEWS)) return `a view's folder must be under ${COMMAND_VIEWS}: ${view.dir}`;
  for (const v of view.readOnly) {
    if (!clean(v.dest) || !under(v.dest, view.dir)) return `a view's mount must be inside its folder ${view.dir}: ${v.dest}`;
    if (!clean(v.source) || v.source === sandboxDir || under(v.source, sandboxDir)) return `a view shows trusted host folders, not the sandbox: ${v.source}`;
  }
  return null;
}

/** Every mention of the sandbox's host path in a string, as the same path under `view`. */
function atView(sandboxDir: string, view: string): (s: string) => string {
  const mention = new RegExp(`${sandboxDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=/|$)`, 'g');
  return (s) => s.replace(mention, view);
}

/** The `hostFetch` capability, its `hostView` read (and probed, once per process) on first use. */
function lazyHostFetch(bwrap: string | null): NonNullable<ExecutorCapabilities['hostFetch']> {
  return {
    bubblewrap: bwrap,
    get hostView() {
      return bwrap ? localHostViewArgs() : undefined;
    },
  };
}

/** Host settings the toolchains need though HOME points into the sandbox (each language's `local.hostEnv`). */
function hostToolchainEnv(): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin' };
  for (const id of LANGUAGE_IDS) Object.assign(env, adapterFor(id).local.hostEnv?.(which));
  return env;
}

export class LocalExecutor implements Executor {
  readonly kind = 'local' as const;
  private readonly bwrap: string | null;
  private readonly memorySandboxes: boolean;
  readonly toolsInBackground: boolean;
  private readonly cgroups: CgroupKind;
  /** Emptied cgroups kept for the next command (command-cgroup.ts). */
  private readonly cgroupPool: CgroupPool | null;
  private readonly versions = new Map<LanguageId, Record<string, string>>();
  private hostEnv: Record<string, string> | undefined;
  private bwrapVersion: string | undefined;
  private readonly cacheRoot: string;
  private overlays: boolean | undefined;

  constructor(options: LocalExecutorOptions = {}) {
    this.memorySandboxes = options.memorySandboxes ?? true;
    this.toolsInBackground = options.toolsInBackground ?? false;
    this.cacheRoot = options.cacheRoot ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'xrepotest', 'local');
    const isolation = options.isolation ?? 'auto';
    this.bwrap = isolation === 'none' ? null : which('bwrap');
    if (isolation === 'bubblewrap' && !this.bwrap) {
      throw new Error('the local executor was asked for bubblewrap isolation, but `bwrap` is not installed (Debian: apt-get install bubblewrap)');
    }
    this.cgroups = cgroupSupport();
    if (this.cgroups) reapStaleCgroups(this.cgroups);
    this.cgroupPool = this.cgroups ? new CgroupPool(this.cgroups) : null;
  }

  get isolated(): boolean {
    return this.bwrap !== null;
  }

  get capabilities(): ExecutorCapabilities {
    return {
      hostToolchains: true,
      // The host's view is probed (every language's toolchain asked for its folders: a Ruby start, `go
      // env`…) when a trusted step first reads it, not whenever a caller looks at the capabilities.
      hostFetch: lazyHostFetch(this.bwrap),
      // Each command is its own process group (and PID namespace, and cgroup where there are some),
      // killed with all it started when it ends, never another command's.
      concurrentCommands: true,
      // Only bubblewrap can show the sandbox elsewhere (a mount namespace per command).
      ...(this.bwrap ? { fixedSandboxPath: FIXED_SANDBOX_PATH, commandViews: COMMAND_VIEWS } : {}),
      sealedChannel: true,
    };
  }

  /** The bubblewrap this executor confines commands with, or null when it runs them unconfined. */
  get bubblewrap(): string | null {
    return this.bwrap;
  }

  /** The bubblewrap and the host's view it shows (host-view.ts), for trusted steps confined the same way; null when unconfined. */
  get confinement(): { bwrap: string; hostView: readonly string[] } | null {
    return this.bwrap ? { bwrap: this.bwrap, hostView: localHostViewArgs() } : null;
  }

  /** Whether each phase can mount warm environments copy-on-write (bubblewrap, root, overlays mountable). */
  get overlayMounts(): boolean {
    this.overlays ??= this.bwrap !== null && overlaySupport();
    return this.overlays;
  }

  sharedCache(language: LanguageId): SharedCache {
    const dir = path.join(this.cacheRoot, language);
    fs.mkdirSync(dir, { recursive: true });
    return {
      dir,
      share: (lower, target, how) => {
        if (!this.overlayMounts || !MOUNTABLE.test(lower) || !MOUNTABLE.test(target)) {
          seedView(lower, target, how.rewritesInPlace, this.bwrap !== null);
          return null;
        }
        // The slot's writes and the overlay's scratch, next to the mount point in the sandbox's .xrt
        // (same file system), read-only to the test phase like the rest of .xrt, gone with the sandbox.
        const layers = path.join(path.dirname(target), `.overlay-${path.basename(target)}`);
        const overlay: OverlayMount = { lower, dest: target, upper: path.join(layers, 'upper'), work: path.join(layers, 'work') };
        fs.rmSync(target, { recursive: true, force: true });
        fs.rmSync(layers, { recursive: true, force: true });
        for (const d of [target, overlay.upper, overlay.work]) fs.mkdirSync(d, { recursive: true });
        return overlay;
      },
    };
  }

  async unavailable(language: LanguageId): Promise<string | null> {
    const missing = adapterFor(language).local.required.filter((t) => !which(t.cmd));
    if (!missing.length) return null;
    return `the local executor cannot run ${language} here: ${missing.map((t) => `${t.cmd} is not installed (${t.install})`).join('; ')}`;
  }

  async info(language: LanguageId): Promise<ExecutorInfo> {
    let versions = this.versions.get(language);
    if (!versions) {
      versions = {};
      const tools = adapterFor(language).local;
      for (const [cmd, args] of tools.versionCommands) {
        const v = firstLine(cmd, [...args]);
        if (v) versions[cmd] = v;
      }
      // What else the language reports (PHP: the project-local PHPUnits a constraint may pick).
      Object.assign(versions, tools.moreVersions?.());
      this.versions.set(language, versions);
    }
    // Probed once: info() is asked for every slot.
    if (this.bwrap) this.bwrapVersion ??= firstLine(this.bwrap, ['--version']) ?? 'bubblewrap';
    const isolation = this.bwrap
      ? `${this.bwrapVersion} (host: system and toolchain folders read-only, home folders empty; no network; own PID namespace)`
      : 'NOT isolated: install bubblewrap to stop network access and writes outside the copy';
    const limits = this.cgroups ? `cgroup ${this.cgroups} memory/pids limits` : 'rlimit memory/process limits';
    const warm = this.overlayMounts
      ? 'warm environments copy-on-write (an overlay per phase)'
      : process.getuid?.() === 0 && this.bwrap
        ? 'warm environments as sealed hard links (Go) or copies (Rust): no overlay can be mounted here'
        : 'warm environments copied per task: overlays and sealed hard links need root and bubblewrap';
    return { kind: 'local', engine: `local: ${isolation}; ${limits}; ${warm}`, versions };
  }

  /** Waits for the sandboxes still being deleted in the background, and removes the cgroups kept for reuse. */
  async close(): Promise<void> {
    await sandboxRemovalsDone();
    this.cgroupPool?.close();
  }

  async open(spec: SessionSpec): Promise<Session> {
    this.hostEnv ??= hostToolchainEnv();
    return new LocalSession(spec, this.bwrap, this.cgroupPool, this.hostEnv);
  }

  /**
   * Where a slot's sandbox goes: in memory (memory-folder.ts) for a language whose phases write little
   * into the copy (`Toolchain.smallCopyWrites`), where bubblewrap confines it (a write there counts
   * against the phase's memory limit, which only a cgroup enforces for files); else the temporary folder.
   */
  async lease(spec: Omit<SessionSpec, 'sandboxDir'>): Promise<SessionLease> {
    const inMemory = this.memorySandboxes && this.bwrap && this.cgroups && adapterFor(spec.language).toolchain.smallCopyWrites ? memorySandboxParent() : null;
    let session: Session | undefined;
    return {
      sandboxParent: inMemory ?? os.tmpdir(),
      open: async (sandboxDir) => (session = await this.open({ ...spec, sandboxDir })),
      close: async () => session?.close(),
    };
  }
}

class LocalSession implements Session {
  private readonly running = new Set<() => void>();
  private closed = false;

  constructor(
    private readonly spec: SessionSpec,
    private readonly bwrap: string | null,
    private readonly cgroupPool: CgroupPool | null,
    private readonly hostEnv: Record<string, string>,
  ) {}

  private wrap(cmd: PhaseCommand, cgroup: CommandCgroup | null): string[] {
    const { limits, sandboxDir } = this.spec;
    // Without cgroups, rlimits still bound memory and processes (RLIMIT_AS is coarse: address space).
    const rlimits = cgroup ? [] : ['prlimit', `--as=${limits.memoryBytes * 2}`, `--nproc=${limits.pids}`, '--'];
    // At the fixed path (and at its own: the engine's scripts name it), every mention translated.
    const view = cmd.fixedPath && this.bwrap ? FIXED_SANDBOX_PATH : null;
    const shown = view ? atView(sandboxDir, view) : (s: string): string => s;
    const inner = [...rlimits, ...cmd.argv.map(shown)];
    // The test phase gets a read-only copy but for the folders its runner writes (cmd.sandboxWritable);
    // trusted binds (a warm-up's entry) go over folders of the copy. Bound recursively: overlays mounted
    // at the host path before bubblewrap appear at the fixed one too.
    const sandboxAt = (at: (s: string) => string): string[] => [
      ...(cmd.sandboxWritable
        ? ['--ro-bind', sandboxDir, at(sandboxDir), ...cmd.sandboxWritable.flatMap((d) => ['--bind', d, at(d)])]
        : ['--bind', sandboxDir, at(sandboxDir)]),
      ...(cmd.binds ?? []).flatMap((b) => ['--bind', b.source, at(b.dest)]),
    ];
    const confined = this.bwrap
      ? [
          this.bwrap,
          // Not the host's root: system and this language's toolchain folders read-only, home folders empty (host-view.ts).
          ...localHostViewArgs(this.spec.language),
          '--dev', '/dev',
          '--proc', '/proc',
          '--tmpfs', '/tmp',
          ...sandboxAt((s) => s),
          ...(view ? sandboxAt(shown) : []),
          ...(cmd.writable ?? []).flatMap((d) => ['--bind', d, d]),
          // A folder of this command's own (gone with it), trusted folders read-only in it.
          ...(cmd.view ? ['--tmpfs', cmd.view.dir, ...cmd.view.readOnly.flatMap((v) => ['--ro-bind', v.source, v.dest])] : []),
          '--unshare-net', '--unshare-pid', '--unshare-ipc', '--unshare-uts',
          '--die-with-parent', '--new-session',
          // Root in the sandbox without capabilities: no kernel modules, mounts, or writes to others' files.
          '--cap-drop', 'ALL',
          '--chdir', shown(cmd.cwd),
          '--',
          ...inner,
        ]
      : inner;
    const overlays = cmd.overlays ?? [];
    if (overlays.length && !this.bwrap) throw new Error('overlays were declared for a phase the local executor does not confine');
    if (cmd.binds?.length && !this.bwrap) throw new Error('binds were declared for a phase the local executor does not confine');
    if (cmd.view && !this.bwrap) throw new Error('a view was declared for a phase the local executor does not confine');
    const badView = cmd.view ? viewProblem(cmd.view, sandboxDir) : null;
    if (badView) throw new Error(badView);
    // Each overlay mounted in a mount namespace of this command's own (gone with it), bubblewrap inside it.
    const mounted = overlays.length
      ? ['unshare', '--mount', '--propagation', 'private', '--', '/bin/sh', '-c', `${OVERLAY_SCRIPT} && exec "$@"`, 'xrt-overlay', ...overlays.flatMap((o) => [o.lower, o.upper, o.work, o.dest]), '--', ...confined]
      : confined;
    if (!cgroup) return mounted;
    // Join the cgroups before exec, so no child can start outside them.
    const { files, value } = cgroup.join;
    const join = files.map((_, i) => `echo ${value} > "$${i + 1}"`).join(' && ');
    return ['/bin/sh', '-c', `${join} && shift ${files.length} && exec "$@"`, 'xrt-join', ...files, ...mounted];
  }

  async run(cmd: PhaseCommand, signal?: AbortSignal): Promise<PhaseResult> {
    return readOutput(cmd, await this.runRaw(cmd, signal), this.spec.limits.outputBytes);
  }

  private async runRaw(cmd: PhaseCommand, signal?: AbortSignal): Promise<PhaseResult> {
    if (this.closed) throw new Error('this execution session is closed');
    signal?.throwIfAborted();
    fs.mkdirSync(cmd.cwd, { recursive: true });
    const spoiled = spoiledOverlay(cmd.overlays ?? []);
    // The slot's own failure (its earlier phases damaged its sandbox), never the executor's.
    if (spoiled) return { phase: cmd.phase, argv: cmd.argv, exitCode: 125, signal: null, timedOut: false, outputTruncated: false, output: `[xrepotest: ${spoiled}]\n`, durationMs: 0 };
    const cgroup = this.cgroupPool?.take(this.spec.limits) ?? null;
    const argv = this.wrap(cmd, cgroup);
    const output = new CappedOutput(this.spec.limits.outputBytes);
    const started = Date.now();
    // A clean environment: the host's (API keys included) never reaches generated code.
    const env = { LANG: 'C.UTF-8', ...this.hostEnv, ...this.shownEnv(cmd) };
    return await new Promise<PhaseResult>((resolve) => {
      let timedOut = false;
      let finished = false;
      // Descriptor 3, where asked: bubblewrap passes it to the command and its own init closes it.
      const child = spawn(argv[0], argv.slice(1), { cwd: cmd.cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe', cmd.sealedChannel ? 'pipe' : 'ignore'] });
      const sealed = cmd.sealedChannel ? new CappedOutput(SEALED_BYTES) : null;
      const sealedPipe = child.stdio[3];
      if (sealed && sealedPipe) sealedPipe.on('data', (b: Buffer) => sealed.push(b));
      const kill = (): void => {
        try {
          if (child.pid) process.kill(-child.pid, 'SIGKILL');
        } catch {
          /* already gone */
        }
        cgroup?.killAll();
      };
      this.running.add(kill);
      let stalled = false;
      const timer = setTimeout(() => {
        timedOut = true;
        kill();
      }, cmd.timeoutMs);
      // A build's progress limit: restarted by every chunk it prints.
      const silence = cmd.silenceMs
        ? setTimeout(() => {
            timedOut = stalled = true;
            kill();
          }, cmd.silenceMs)
        : null;
      const onAbort = (): void => kill();
      signal?.addEventListener('abort', onAbort, { once: true });
      const onOutput = (b: Buffer): void => {
        silence?.refresh();
        output.push(b);
        cmd.onOutput?.(b.toString('utf8'));
      };
      child.stdout?.on('data', onOutput);
      child.stderr?.on('data', onOutput);
      const finish = async (exitCode: number | null, sig: string | null, error?: Error): Promise<void> => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        if (silence) clearTimeout(silence);
        signal?.removeEventListener('abort', onAbort);
        kill(); // background processes the command left behind
        // Resolved only once every process of the command is gone (its cgroup kept for another, or removed).
        if (cgroup) await this.cgroupPool!.give(cgroup);
        this.running.delete(kill);
        if (error) output.push(Buffer.from(`\n[xrepotest: could not start ${argv[0]}: ${error.message}]\n`));
        resolve({
          phase: cmd.phase,
          argv: cmd.argv,
          exitCode: timedOut || signal?.aborted ? null : exitCode,
          signal: sig,
          timedOut,
          ...(stalled ? { stalled } : {}),
          outputTruncated: output.truncated,
          output: output.text(),
          durationMs: Date.now() - started,
          ...(sealed ? { sealed: sealed.text() } : {}),
        });
      };
      child.on('error', (e) => void finish(null, null, e));
      child.on('close', (code, sig) => void finish(code, sig));
    });
  }

  /** The command's own environment, its mentions of the sandbox at the fixed path where it runs there. */
  private shownEnv(cmd: PhaseCommand): Record<string, string> {
    if (!cmd.fixedPath || !this.bwrap) return cmd.env;
    const shown = atView(this.spec.sandboxDir, FIXED_SANDBOX_PATH);
    return Object.fromEntries(Object.entries(cmd.env).map(([k, v]) => [k, shown(v)]));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const kill of [...this.running]) kill();
  }
}
