import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import { Writable } from 'node:stream';
import type Dockerode from 'dockerode';
import { adapterFor, type LanguageId } from '../languages';
import { connectEngine, type ConnectedEngine } from './docker-engine';
import { buildEnvImage, findLanguageImage } from './images';
import { CappedOutput } from './output';
import type { Executor, ExecutorCapabilities, ExecutorInfo, PhaseCommand, PhaseResult, Session, SessionSpec } from './types';

/** Labels on every container we start; `reapStaleContainers` finds leftovers of crashed runs by them. */
export const CONTAINER_LABEL = {
  marker: 'xrepotest',
  ownerPid: 'xrepotest.owner-pid',
  ownerHost: 'xrepotest.owner-host',
  session: 'xrepotest.session',
} as const;

/** `timeout --kill-after` inside the container: the grace between TERM and KILL. */
const KILL_AFTER_S = 2;
/** The host's backstop fires this long after the in-container timeout should have killed everything. */
const DEFAULT_BACKSTOP_GRACE_MS = 3000;
/** The engine's own short commands in a container (permissions before a test phase, reaping after any). */
const QUIET_EXEC_MS = 120_000;

// The container's main process only keeps it alive; exec'd commands do the work. `Init` puts an init
// (catatonit, docker-init) in front of it so orphans of those commands are reaped and free their pids.
const KEEP_ALIVE = ['sleep', 'infinity'];

const SIGNALS: Record<number, string> = { 1: 'SIGHUP', 2: 'SIGINT', 6: 'SIGABRT', 9: 'SIGKILL', 11: 'SIGSEGV', 13: 'SIGPIPE', 15: 'SIGTERM' };

export interface DockerExecutorOptions {
  /** An engine already connected (else `connectEngine()`). */
  engine?: ConnectedEngine;
  /** The image per language when a session's spec names none (default: the language image here). */
  images?: Partial<Record<LanguageId, string>>;
  /** How long after a command's deadline the host kills the container if it is still running. */
  backstopGraceMs?: number;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'; // alive, someone else's
  }
}

/**
 * Removes our containers whose owner process (on this host) is gone: a run that crashed or was killed
 * leaves its containers behind, and they would keep their memory and processes forever (`sleep infinity`).
 * Returns the ids removed.
 */
export async function reapStaleContainers(docker: Dockerode): Promise<string[]> {
  const host = os.hostname();
  const containers = await docker.listContainers({ all: true, filters: JSON.stringify({ label: [`${CONTAINER_LABEL.marker}=1`] }) });
  const removed: string[] = [];
  for (const c of containers) {
    const labels = c.Labels ?? {};
    if (labels[CONTAINER_LABEL.ownerHost] && labels[CONTAINER_LABEL.ownerHost] !== host) continue;
    const pid = Number(labels[CONTAINER_LABEL.ownerPid]);
    if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) continue;
    try {
      await docker.getContainer(c.Id).remove({ force: true });
      removed.push(c.Id);
    } catch {
      // removed meanwhile by another run's reaper
    }
  }
  return removed;
}

/** The host user as a container `User`, so files written in the sandbox belong to the user; none for root. */
function hostUser(): string | undefined {
  if (typeof process.getuid !== 'function' || typeof process.getgid !== 'function') return undefined;
  const uid = process.getuid();
  return uid === 0 ? undefined : `${uid}:${process.getgid()}`;
}

/**
 * Who runs the test and coverage phases when the engine is root: `nobody`, which owns nothing in the
 * copy (it belongs to root), so the copy is read-only to it but for the folders made writable for it.
 * A non-root engine runs everything as the host user (rootless engines map ids their own way), and the
 * copy stays writable to the test there (docs/execution.md).
 */
export const UNPRIVILEGED_USER = '65534:65534';

/** Whether test phases can run as another user than the copy's owner (the engine runs as root). */
export function confinesTests(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/**
 * Run as root in the container before a test phase, while nothing untrusted runs (every earlier
 * exec's processes were reaped): the copy readable but not writable to others, `.xrt` not listable
 * (the report folder's name stays secret), the runner's folders writable to all, and the image's
 * caches (/xrt/cache: GOCACHE, CARGO_HOME…, the container's own) writable. `chmod -R` follows no link
 * it meets while walking; a writable folder that is itself a link is skipped. Files the test user
 * made earlier cannot be changed by root without capabilities: those are only in writable folders.
 */
const OPEN_FOR_TEST = [
  'd=$1; shift',
  'chmod -R o+rX,o-w "$d" 2>/dev/null',
  'chmod 0311 "$d/.xrt" 2>/dev/null',
  'for w in "$@"; do [ -L "$w" ] || chmod -R a+rwX "$w" 2>/dev/null; done',
  '[ -d /xrt/cache ] && chmod -R a+rwX /xrt/cache 2>/dev/null',
  'exit 0',
].join('\n');

/**
 * Run after every exec as the exec's user: kills whatever that exec left running (a background
 * process a test started must not live on into the next phase), sparing the container's init (1),
 * its keep-alive process (`$1`) and itself. Only shell builtins, so it starts no process of its own.
 * Twice, for what forked while the first pass ran.
 */
const REAP = ['keep=$1', 'for n in 1 2; do for p in /proc/[0-9]*; do i=${p#/proc/}; [ "$i" = 1 ] || [ "$i" = "$$" ] || [ "$i" = "$keep" ] || kill -9 "$i" 2>/dev/null; done; done', 'exit 0'].join('\n');

/**
 * Runs each task in its own container through the Docker Engine API (Docker, or Podman's API
 * service): the sandbox bind-mounted at its host path, no network, memory/CPU/process limits, no
 * capabilities. Commands are `exec`s in that container; the container is removed on `close()`.
 */
export class DockerExecutor implements Executor {
  readonly kind = 'docker' as const;
  private readonly versions = new Map<string, Promise<Record<string, string>>>();

  constructor(
    readonly engine: ConnectedEngine,
    private readonly options: DockerExecutorOptions = {},
  ) {}

  /** Connects (unless given an engine) and clears containers that crashed runs left behind. */
  static async create(options: DockerExecutorOptions = {}): Promise<DockerExecutor> {
    const engine = options.engine ?? (await connectEngine());
    await reapStaleContainers(engine.docker);
    return new DockerExecutor(engine, options);
  }

  get capabilities(): ExecutorCapabilities {
    return { hostToolchains: false, buildEnvironmentImage: (repoDir, language) => buildEnvImage(this.engine.docker, repoDir, language, { onProgress: () => undefined }) };
  }

  private async imageFor(language: LanguageId, explicit?: string): Promise<string> {
    const image = explicit ?? this.options.images?.[language] ?? (await findLanguageImage(this.engine.docker, language));
    if (!image) throw new Error(`no ${language} image: run \`xrepotest images build --lang ${language}\` first`);
    return image;
  }

  async unavailable(language: LanguageId): Promise<string | null> {
    if (this.options.images?.[language] || (await findLanguageImage(this.engine.docker, language))) return null;
    return `the docker executor has no ${language} image: run \`xrepotest images build --lang ${language}\` first`;
  }

  async info(language: LanguageId, image_?: string): Promise<ExecutorInfo> {
    const image = await this.imageFor(language, image_);
    let versions = this.versions.get(image);
    if (!versions) {
      versions = this.probeVersions(image, language);
      this.versions.set(image, versions);
      versions.catch(() => this.versions.delete(image)); // a failed probe is retried next time
    }
    return { kind: 'docker', engine: `${this.engine.engine} at ${this.engine.endpoint}, image ${image}`, versions: await versions };
  }

  /** Tool versions from a throwaway container of the image (once per image). */
  private async probeVersions(image: string, language: LanguageId): Promise<Record<string, string>> {
    const docker = this.engine.docker;
    const container = await docker.createContainer({
      Image: image,
      // Our own entrypoint: a published image's ENTRYPOINT would otherwise wrap the command.
      Entrypoint: ['sh'],
      Cmd: ['-c', adapterFor(language).image.versionScript],
      Labels: ownerLabels(randomUUID()),
      HostConfig: { NetworkMode: 'none', Ulimits: defaultUlimits() },
    });
    try {
      await container.start();
      await container.wait();
      const logs = (await container.logs({ stdout: true, stderr: false })) as unknown as Buffer;
      const versions: Record<string, string> = {};
      for (const line of demuxBuffer(logs).split('\n')) {
        const m = /^([\w-]+)=(.+)$/.exec(line.trim());
        if (m) versions[m[1]] = m[2].trim();
      }
      return versions;
    } finally {
      await container.remove({ force: true }).catch(() => undefined);
    }
  }

  async open(spec: SessionSpec): Promise<DockerSession> {
    const docker = this.engine.docker;
    const image = await this.imageFor(spec.language, spec.image);
    const sessionId = randomUUID();
    const dir = spec.sandboxDir;
    const { limits } = spec;
    const container = await docker.createContainer({
      Image: image,
      // Our own entrypoint: a published image's ENTRYPOINT would otherwise receive `sleep infinity` as arguments.
      Entrypoint: KEEP_ALIVE.slice(0, 1),
      Cmd: KEEP_ALIVE.slice(1),
      WorkingDir: dir,
      User: hostUser(),
      Labels: ownerLabels(sessionId),
      NetworkDisabled: true,
      HostConfig: {
        Binds: [`${dir}:${dir}:rw`],
        NetworkMode: 'none',
        Init: true,
        Memory: limits.memoryBytes,
        MemorySwap: limits.memoryBytes, // equal: no swap, so the limit is real
        NanoCpus: Math.round(limits.cpus * 1e9),
        PidsLimit: limits.pids,
        Ulimits: defaultUlimits(),
        CapDrop: ['ALL'],
        SecurityOpt: ['no-new-privileges'],
      },
    });
    try {
      await container.start();
    } catch (e) {
      await container.remove({ force: true }).catch(() => undefined);
      throw new Error(`could not start a container of ${image}: ${(e as Error).message}`);
    }
    const session = new DockerSession(docker, container, sessionId, spec, this.options.backstopGraceMs ?? DEFAULT_BACKSTOP_GRACE_MS, confinesTests());
    try {
      await session.findKeepAlive();
    } catch (e) {
      await session.close().catch(() => undefined);
      throw e;
    }
    return session;
  }
}

export function ownerLabels(sessionId: string): Record<string, string> {
  return {
    [CONTAINER_LABEL.marker]: '1',
    [CONTAINER_LABEL.ownerPid]: String(process.pid),
    [CONTAINER_LABEL.ownerHost]: os.hostname(),
    [CONTAINER_LABEL.session]: sessionId,
  };
}

/**
 * Explicit rlimits: runc under Podman fails to start a container without them ("error setting rlimit
 * type 7"). nproc counts every process of the uid on the whole host (containers run as host root or as
 * the host user), so it is set high; the pids cgroup limit is the real bound. Both stay below what the
 * engine itself may raise to (Podman's service runs with nproc 32768; without CAP_SYS_RESOURCE a
 * container cannot go above that: "error setting rlimit type 6").
 */
function defaultUlimits(): Array<{ Name: string; Soft: number; Hard: number }> {
  return [
    { Name: 'nofile', Soft: 4096, Hard: 4096 },
    { Name: 'nproc', Soft: 16384, Hard: 16384 },
  ];
}

/** Stdout+stderr from a non-TTY container log (8-byte frame headers), as text. */
function demuxBuffer(buf: Buffer): string {
  const parts: Buffer[] = [];
  let i = 0;
  while (i + 8 <= buf.length) {
    const size = buf.readUInt32BE(i + 4);
    parts.push(buf.subarray(i + 8, i + 8 + size));
    i += 8 + size;
  }
  return Buffer.concat(parts).toString('utf8');
}

export class DockerSession implements Session {
  private closed = false;
  /** Set when the container was killed (timeout backstop, abort): later runs fail with this reason. */
  private deadReason: string | undefined;

  constructor(
    private readonly docker: Dockerode,
    private readonly container: Dockerode.Container,
    /** The `xrepotest.session` label of its container. */
    readonly id: string,
    private readonly spec: SessionSpec,
    private readonly backstopGraceMs: number,
    /** Test and coverage phases run as `UNPRIVILEGED_USER` on a copy read-only to it (engine is root). */
    readonly confined: boolean,
  ) {}

  /** The keep-alive process's pid in the container (init's child), which reaping must spare. */
  private keepAlive = '';

  /** Finds the keep-alive process, before anything else runs in the container. */
  async findKeepAlive(): Promise<void> {
    const r = await this.quietExec(['cat', '/proc/1/task/1/children'], undefined);
    const pid = /^\s*(\d+)/.exec(r.output)?.[1];
    if (r.code !== 0 || !pid) throw new Error(`could not find the container's keep-alive process: ${r.output.trim().slice(0, 200)}`);
    this.keepAlive = pid;
  }

  /**
   * A trusted command of the engine's own in the container: output (capped) and exit code. One that
   * outlives `QUIET_EXEC_MS` (a container that no longer answers) kills the container, like a phase.
   */
  private async quietExec(argv: string[], user: string | undefined): Promise<{ code: number | null; output: string }> {
    const exec = await this.container.exec({ Cmd: argv, User: user, AttachStdout: true, AttachStderr: true, AttachStdin: false, Tty: false });
    const stream = await exec.start({ hijack: true, stdin: false, Detach: false, Tty: false });
    const output = new CappedOutput(64 * 1024);
    let stuck = false;
    const deadline = setTimeout(() => {
      stuck = true;
      void this.killContainer(`the engine's own command \`${argv[0]}\` did not end within ${QUIET_EXEC_MS} ms`).then(() =>
        (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.(),
      );
    }, QUIET_EXEC_MS);
    try {
      await this.drain(stream, output);
    } finally {
      clearTimeout(deadline);
    }
    if (stuck) throw new Error(`this session's container was killed (${this.deadReason})`);
    return { code: await exitCodeOf(exec), output: output.text() };
  }

  private drain(stream: NodeJS.ReadableStream, output: CappedOutput): Promise<void> {
    return new Promise<void>((resolve) => {
      const sink = new Writable({
        write(chunk: Buffer, _enc, done): void {
          output.push(chunk);
          done();
        },
      });
      this.docker.modem.demuxStream(stream, sink, sink);
      stream.on('end', resolve);
      stream.on('close', resolve);
      stream.on('error', () => resolve());
    });
  }

  private async killContainer(reason: string): Promise<void> {
    this.deadReason ??= reason;
    // Removed, not only killed: a cancelled run may never reach close(), and nothing must linger.
    await this.container.remove({ force: true }).catch(() => undefined);
  }

  async run(cmd: PhaseCommand, signal?: AbortSignal): Promise<PhaseResult> {
    if (this.closed) throw new Error('this execution session is closed');
    if (this.deadReason) throw new Error(`this session's container was killed (${this.deadReason}); open a new session`);
    signal?.throwIfAborted();
    // A test phase on a copy read-only to it: opened up by root first, then run as nobody.
    const user = this.confined && cmd.sandboxWritable ? UNPRIVILEGED_USER : undefined;
    if (user) {
      const r = await this.quietExec(['sh', '-c', OPEN_FOR_TEST, 'xrt-open', this.spec.sandboxDir, ...cmd.sandboxWritable!], '0:0');
      if (r.code !== 0) throw new Error(`could not prepare the container for the ${cmd.phase} phase: ${r.output.trim().slice(0, 200)}`);
      signal?.throwIfAborted();
    }
    const started = Date.now();
    const seconds = (Math.max(cmd.timeoutMs, 1) / 1000).toFixed(3);
    // The in-container timeout kills the command's whole process group; the host backstop below is
    // for when that cannot work (the engine hangs, the command escapes its group).
    const exec = await this.container.exec({
      Cmd: ['timeout', `--kill-after=${KILL_AFTER_S}s`, `${seconds}s`, ...cmd.argv],
      WorkingDir: cmd.cwd,
      User: user,
      Env: [`LANG=C.UTF-8`, ...Object.entries(cmd.env).map(([k, v]) => `${k}=${v}`)],
      AttachStdout: true,
      AttachStderr: true,
      AttachStdin: false,
      Tty: false,
    });
    const stream = await exec.start({ hijack: true, stdin: false, Detach: false, Tty: false });
    const output = new CappedOutput(this.spec.limits.outputBytes);
    let killedBy: 'timeout' | 'abort' | undefined;
    let killing: Promise<void> | undefined;

    const ended = new Promise<void>((resolve) => {
      const sink = new Writable({
        write(chunk: Buffer, _enc, done): void {
          output.push(chunk); // over the cap it is counted and dropped: the stream is always drained
          done();
        },
      });
      this.docker.modem.demuxStream(stream, sink, sink);
      stream.on('end', resolve);
      stream.on('close', resolve);
      stream.on('error', () => resolve());
    });
    const kill = (why: 'timeout' | 'abort'): void => {
      if (killedBy) return;
      killedBy = why;
      killing = this.killContainer(why === 'timeout' ? `a command outlived its ${cmd.timeoutMs} ms timeout` : 'the run was cancelled').then(() =>
        (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.(),
      );
    };
    const backstop = setTimeout(() => kill('timeout'), cmd.timeoutMs + KILL_AFTER_S * 1000 + this.backstopGraceMs);
    const onAbort = (): void => kill('abort');
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await ended;
      // The stream ends as soon as the container dies; the removal must be over before we answer.
      await killing;
    } finally {
      clearTimeout(backstop);
      signal?.removeEventListener('abort', onAbort);
    }

    const durationMs = Date.now() - started;
    const base = { phase: cmd.phase, argv: cmd.argv, outputTruncated: output.truncated, output: output.text(), durationMs };
    if (killedBy) return { ...base, exitCode: null, signal: 'SIGKILL', timedOut: killedBy === 'timeout' };

    const code = await exitCodeOf(exec);
    // Nothing the command started outlives it (as its own user, the only one it could have run as).
    await this.quietExec(['sh', '-c', REAP, 'xrt-reap', this.keepAlive], user);
    // timeout(1) exits 124 after TERM worked, 137 after it had to KILL; both only once the deadline passed.
    const timedOut = (code === 124 || code === 137) && durationMs >= cmd.timeoutMs;
    if (timedOut) return { ...base, exitCode: null, signal: code === 124 ? 'SIGTERM' : 'SIGKILL', timedOut };
    // 128+n: killed by signal n (the OOM killer's SIGKILL shows as 137). A command that itself exits
    // with such a code reads the same; the engine reports no difference.
    if (code !== null && code > 128 && code - 128 in SIGNALS) return { ...base, exitCode: null, signal: SIGNALS[code - 128], timedOut: false };
    return { ...base, exitCode: code, signal: null, timedOut: false };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.container.remove({ force: true });
    } catch (e) {
      const status = (e as { statusCode?: number }).statusCode;
      if (status !== 404) throw e; // already gone is fine; anything else must be seen
    }
  }
}

/** The exit code once the engine has it: the stream can end a moment before the exec is marked done. */
async function exitCodeOf(exec: Dockerode.Exec): Promise<number | null> {
  for (let i = 0; i < 50; i++) {
    const info = await exec.inspect();
    if (!info.Running && info.ExitCode !== null && info.ExitCode !== undefined) return info.ExitCode;
    await new Promise((r) => setTimeout(r, 20 + i * 5));
  }
  return null;
}
