import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { adapterFor, LANGUAGE_IDS, type LanguageId } from '../languages';
import { localHostViewArgs } from './host-view';
import { CappedOutput } from './output';
import type { ExecLimits, Executor, ExecutorCapabilities, ExecutorInfo, PhaseCommand, PhaseResult, Session, SessionSpec, SharedCache } from './types';
import { which } from '../util/which';

/**
 * Runs phases on the host's toolchains, in the disposable copy. Generated tests are hostile, so where
 * bubblewrap is installed every command runs inside it: of the host only the system and toolchain
 * folders, read-only (host-view.ts), then the sandbox, a private /tmp, no network, its own PID
 * namespace (nothing survives the command), killed with its parent. Memory and process limits come from cgroups where this process may make them
 * (root), else from rlimits. Without bubblewrap the copy and the limits still hold, but network and
 * writes elsewhere are not prevented: `info()` says so.
 */
export interface LocalExecutorOptions {
  /** 'auto' uses bubblewrap when installed; 'none' runs unconfined (for debugging only). */
  isolation?: 'auto' | 'bubblewrap' | 'none';
  /** Build caches shared across tasks (default: ~/.cache/xrepotest/local). */
  cacheRoot?: string;
}

function firstLine(cmd: string, args: string[]): string | null {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 20_000 });
  if (r.status !== 0) return null;
  return (r.stdout || r.stderr).trim().split('\n').find((l) => l.trim()) ?? null;
}


type CgroupKind = 'v1' | 'v2' | null;

/** Where this process may create cgroups with memory and pids limits (root on v1, a delegated v2 tree). */
function cgroupSupport(): CgroupKind {
  const v2 = '/sys/fs/cgroup/cgroup.controllers';
  try {
    if (fs.existsSync(v2)) {
      const controllers = fs.readFileSync(v2, 'utf8');
      fs.accessSync('/sys/fs/cgroup', fs.constants.W_OK);
      if (/\bmemory\b/.test(controllers) && /\bpids\b/.test(controllers)) return 'v2';
      return null;
    }
    fs.accessSync('/sys/fs/cgroup/pids', fs.constants.W_OK);
    fs.accessSync('/sys/fs/cgroup/memory', fs.constants.W_OK);
    return 'v1';
  } catch {
    return null;
  }
}

/** Removes the (empty) cgroups of runs that were killed before they could remove their own. */
function reapStaleCgroups(kind: 'v1' | 'v2'): void {
  const parents = kind === 'v1' ? ['/sys/fs/cgroup/pids', '/sys/fs/cgroup/memory'] : ['/sys/fs/cgroup'];
  for (const parent of parents) {
    let names: string[] = [];
    try {
      names = fs.readdirSync(parent).filter((n) => n.startsWith('xrepotest-'));
    } catch {
      continue;
    }
    for (const name of names) {
      const pid = Number(/^xrepotest-(\d+)-/.exec(name)?.[1]);
      if (!pid || pid === process.pid) continue;
      try {
        process.kill(pid, 0);
        continue; // its owner is alive
      } catch {
        /* owner gone */
      }
      try {
        fs.rmdirSync(path.join(parent, name));
      } catch {
        /* still has tasks (killed only now) or already gone */
      }
    }
  }
}

/** A cgroup (or a pair, on v1) holding one command's processes, so all of them can be limited and killed. */
class CommandCgroup {
  readonly procsFiles: string[];
  private readonly dirs: string[];

  constructor(kind: 'v1' | 'v2', limits: ExecLimits) {
    const name = `xrepotest-${process.pid}-${randomUUID().slice(0, 8)}`;
    if (kind === 'v1') {
      const pids = path.join('/sys/fs/cgroup/pids', name);
      const mem = path.join('/sys/fs/cgroup/memory', name);
      fs.mkdirSync(pids);
      fs.mkdirSync(mem);
      fs.writeFileSync(path.join(pids, 'pids.max'), String(limits.pids));
      fs.writeFileSync(path.join(mem, 'memory.limit_in_bytes'), String(limits.memoryBytes));
      this.dirs = [pids, mem];
    } else {
      const dir = path.join('/sys/fs/cgroup', name);
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, 'pids.max'), String(limits.pids));
      fs.writeFileSync(path.join(dir, 'memory.max'), String(limits.memoryBytes));
      fs.writeFileSync(path.join(dir, 'memory.swap.max'), '0');
      this.dirs = [dir];
    }
    this.procsFiles = this.dirs.map((d) => path.join(d, 'cgroup.procs'));
  }

  pids(): number[] {
    const out = new Set<number>();
    for (const f of this.procsFiles) {
      try {
        for (const l of fs.readFileSync(f, 'utf8').split('\n')) if (l.trim()) out.add(Number(l));
      } catch {
        /* already gone */
      }
    }
    return [...out];
  }

  /** SIGKILL to every process in the cgroup now (synchronous: timeouts and cancellation call it). */
  killAll(): number {
    const pids = this.pids();
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* exited meanwhile */
      }
    }
    return pids.length;
  }

  /**
   * Kills until the cgroup is empty, then removes it. A killed process stays listed until the kernel
   * has torn it down (a few milliseconds), and a forking one may add a child meanwhile: so kill again
   * on short, growing waits (about a second in all, as before) rather than a fixed 50 ms sleep per round.
   */
  async remove(): Promise<void> {
    for (let waitMs = 1, waited = 0; waited < 1000; waited += waitMs, waitMs = Math.min(waitMs * 2, 50)) {
      if (!this.killAll()) break;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
    for (const d of this.dirs) {
      try {
        fs.rmdirSync(d);
      } catch {
        /* a process may linger a moment in the kernel; the directory is empty of tasks soon */
      }
    }
  }
}

/** The uid that owns sealed cache files: not root, so root without capabilities cannot change them. */
const SEALED_OWNER = 65534;

/**
 * Gives a sandbox the shared build cache. As root, cheaply and safely: the shared files are sealed
 * (owned by nobody, read-only) and hard-linked, and sandboxed commands run without capabilities, so
 * they can add entries to their copy but cannot change a shared one. Otherwise a full copy (slow on
 * big caches, but nothing shared is reachable).
 */
function seedCache(shared: string, target: string): void {
  if (process.getuid?.() === 0) {
    spawnSync('find', [shared, '-type', 'f', '!', '-uid', String(SEALED_OWNER), '-exec', 'chown', `${SEALED_OWNER}:${SEALED_OWNER}`, '{}', '+']);
    spawnSync('find', [shared, '-type', 'f', '-perm', '/222', '-exec', 'chmod', 'a-w', '{}', '+']);
    fs.rmSync(target, { recursive: true, force: true });
    const r = spawnSync('cp', ['-al', shared, target]);
    if (r.status === 0) return;
  }
  fs.cpSync(shared, target, { recursive: true });
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
  private readonly cgroups: CgroupKind;
  private readonly versions = new Map<LanguageId, Record<string, string>>();
  private hostEnv: Record<string, string> | undefined;
  private bwrapVersion: string | undefined;
  private readonly cacheRoot: string;

  constructor(options: LocalExecutorOptions = {}) {
    this.cacheRoot = options.cacheRoot ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'xrepotest', 'local');
    const isolation = options.isolation ?? 'auto';
    this.bwrap = isolation === 'none' ? null : which('bwrap');
    if (isolation === 'bubblewrap' && !this.bwrap) {
      throw new Error('the local executor was asked for bubblewrap isolation, but `bwrap` is not installed (Debian: apt-get install bubblewrap)');
    }
    this.cgroups = cgroupSupport();
    if (this.cgroups) reapStaleCgroups(this.cgroups);
  }

  get isolated(): boolean {
    return this.bwrap !== null;
  }

  get capabilities(): ExecutorCapabilities {
    return { hostToolchains: true, hostFetch: { bubblewrap: this.bwrap, hostView: this.confinement?.hostView } };
  }

  /** The bubblewrap this executor confines commands with, or null when it runs them unconfined. */
  get bubblewrap(): string | null {
    return this.bwrap;
  }

  /** The bubblewrap and the host's view it shows (host-view.ts), for trusted steps confined the same way; null when unconfined. */
  get confinement(): { bwrap: string; hostView: readonly string[] } | null {
    return this.bwrap ? { bwrap: this.bwrap, hostView: localHostViewArgs() } : null;
  }

  sharedCache(language: LanguageId): SharedCache {
    const dir = path.join(this.cacheRoot, language);
    fs.mkdirSync(dir, { recursive: true });
    return { dir, seed: (target) => seedCache(dir, target) };
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
    return { kind: 'local', engine: `local: ${isolation}; ${limits}`, versions };
  }

  async open(spec: SessionSpec): Promise<Session> {
    this.hostEnv ??= hostToolchainEnv();
    return new LocalSession(spec, this.bwrap, this.cgroups, this.hostEnv);
  }
}

class LocalSession implements Session {
  private readonly running = new Set<() => void>();
  private closed = false;

  constructor(
    private readonly spec: SessionSpec,
    private readonly bwrap: string | null,
    private readonly cgroups: CgroupKind,
    private readonly hostEnv: Record<string, string>,
  ) {}

  private wrap(cmd: PhaseCommand, cgroup: CommandCgroup | null): string[] {
    const { limits, sandboxDir } = this.spec;
    // Without cgroups, rlimits still bound memory and processes (RLIMIT_AS is coarse: address space).
    const rlimits = cgroup ? [] : ['prlimit', `--as=${limits.memoryBytes * 2}`, `--nproc=${limits.pids}`, '--'];
    const inner = [...rlimits, ...cmd.argv];
    const confined = this.bwrap
      ? [
          this.bwrap,
          // Not the host's root: system and toolchain folders read-only, home folders empty (host-view.ts).
          ...localHostViewArgs(),
          '--dev', '/dev',
          '--proc', '/proc',
          '--tmpfs', '/tmp',
          // The test phase gets a read-only copy but for the folders its runner writes (cmd.sandboxWritable).
          ...(cmd.sandboxWritable
            ? ['--ro-bind', sandboxDir, sandboxDir, ...cmd.sandboxWritable.flatMap((d) => ['--bind', d, d])]
            : ['--bind', sandboxDir, sandboxDir]),
          ...(cmd.writable ?? []).flatMap((d) => ['--bind', d, d]),
          '--unshare-net', '--unshare-pid', '--unshare-ipc', '--unshare-uts',
          '--die-with-parent', '--new-session',
          // Root in the sandbox without capabilities: no kernel modules, mounts, or writes to others' files.
          '--cap-drop', 'ALL',
          '--chdir', cmd.cwd,
          '--',
          ...inner,
        ]
      : inner;
    if (!cgroup) return confined;
    // Join the cgroups before exec, so no child can start outside them.
    const join = cgroup.procsFiles.map((_, i) => `echo $$ > "$${i + 1}"`).join(' && ');
    return ['/bin/sh', '-c', `${join} && shift ${cgroup.procsFiles.length} && exec "$@"`, 'xrt-join', ...cgroup.procsFiles, ...confined];
  }

  async run(cmd: PhaseCommand, signal?: AbortSignal): Promise<PhaseResult> {
    if (this.closed) throw new Error('this execution session is closed');
    signal?.throwIfAborted();
    fs.mkdirSync(cmd.cwd, { recursive: true });
    const cgroup = this.cgroups ? new CommandCgroup(this.cgroups, this.spec.limits) : null;
    const argv = this.wrap(cmd, cgroup);
    const output = new CappedOutput(this.spec.limits.outputBytes);
    const started = Date.now();
    // A clean environment: the host's (API keys included) never reaches generated code.
    const env = { LANG: 'C.UTF-8', ...this.hostEnv, ...cmd.env };
    return await new Promise<PhaseResult>((resolve) => {
      let timedOut = false;
      let finished = false;
      const child = spawn(argv[0], argv.slice(1), { cwd: cmd.cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      const kill = (): void => {
        try {
          if (child.pid) process.kill(-child.pid, 'SIGKILL');
        } catch {
          /* already gone */
        }
        cgroup?.killAll();
      };
      this.running.add(kill);
      const timer = setTimeout(() => {
        timedOut = true;
        kill();
      }, cmd.timeoutMs);
      const onAbort = (): void => kill();
      signal?.addEventListener('abort', onAbort, { once: true });
      child.stdout.on('data', (b: Buffer) => output.push(b));
      child.stderr.on('data', (b: Buffer) => output.push(b));
      const finish = async (exitCode: number | null, sig: string | null, error?: Error): Promise<void> => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        kill(); // background processes the command left behind
        // Resolved only once every process of the command is gone and its cgroup removed.
        await cgroup?.remove();
        this.running.delete(kill);
        if (error) output.push(Buffer.from(`\n[xrepotest: could not start ${argv[0]}: ${error.message}]\n`));
        resolve({
          phase: cmd.phase,
          argv: cmd.argv,
          exitCode: timedOut || signal?.aborted ? null : exitCode,
          signal: sig,
          timedOut,
          outputTruncated: output.truncated,
          output: output.text(),
          durationMs: Date.now() - started,
        });
      };
      child.on('error', (e) => void finish(null, null, e));
      child.on('close', (code, sig) => void finish(code, sig));
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const kill of [...this.running]) kill();
  }
}
