import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import type Dockerode from 'dockerode';
import { adapterFor, type LanguageId } from '../languages';
import { CONTAINER_ID, ownContainerId, ownContainerOn, ownerContainerRunning } from './owner-container';
import { connectEngine, type ConnectedEngine } from './docker-engine';
import { buildEnvImage, findLanguageImage } from './images';
import { openCopyOnHost } from './open-copy';
import { ContainerRunner, RUNNER_CAPS, RUNNER_MOUNT, type RunnerCommand } from './container-runner';
import { CappedOutput, readOutput } from './output';
import { ensureDirInSandbox, listSandboxDir } from './safe-fs';
import { pidNamespace, sandboxRemovalsDone } from './sandbox';
import type { ExecLimits, Executor, ExecutorCapabilities, ExecutorInfo, KeptBuilds, PhaseCommand, PhaseResult, Session, SessionLease, SessionSpec } from './types';
import { pidAlive } from '../util/process-namespace';

/** Labels on every container we start; `reapStaleContainers` finds leftovers of crashed runs by them. */
export const CONTAINER_LABEL = {
  marker: 'xrepotest',
  ownerPid: 'xrepotest.owner-pid',
  ownerHost: 'xrepotest.owner-host',
  /** The container the owner process runs in, when it runs in one on this engine (owner-container.ts). */
  ownerContainer: 'xrepotest.owner-container',
  session: 'xrepotest.session',
} as const;

/** `timeout --kill-after` inside the container: the grace between TERM and KILL. */
const KILL_AFTER_S = 2;
/** The host's backstop fires this long after the in-container timeout should have killed everything. */
const DEFAULT_BACKSTOP_GRACE_MS = 3000;
/** How long a language image found on the engine is taken as still there (DockerExecutor.languageImage). */
const IMAGE_RECHECK_MS = 30_000;
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
  /** Reuse a container for slot after slot where safe (`lease`); false: a new container per slot. Default true. */
  reuse?: boolean;
  /** A reused container runs commands through a runner in it (container-runner.ts), not an exec each. Default true. */
  runner?: boolean;
  /** Where warm-ups' builds are kept across processes, per language and image (default `~/.cache/xrepotest/docker`). */
  cacheRoot?: string;
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
    // Any process with the engine's socket may label a container: only a full id is looked up (a path
    // there would reach another endpoint, whose answer reads as "not running"); anything else falls
    // back to the host and pid rule.
    const ownerContainer = labels[CONTAINER_LABEL.ownerContainer];
    if (ownerContainer && CONTAINER_ID.test(ownerContainer)) {
      // Started from inside a container of this engine: gone with it, whatever host names it.
      if (ownerContainer === ownContainerId() || (await ownerContainerRunning(docker, ownerContainer))) continue;
    } else {
      if (labels[CONTAINER_LABEL.ownerHost] && labels[CONTAINER_LABEL.ownerHost] !== host) continue;
      const pid = Number(labels[CONTAINER_LABEL.ownerPid]);
      if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) continue;
    }
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

/** The test user's uid: what a slot's untrusted code runs as in a confined container. */
const TEST_UID = '65534';

/**
 * Run as root when a container starts, before anything untrusted: the image's caches and installs
 * (/xrt: GOCACHE, CARGO_HOME, bundles…, world-writable in the images) become read-only to the test
 * user, but for the folders the language's test phase must write (`testPhaseWrites`, passed as
 * arguments; such a language never reuses a container), and a file any user could change in place
 * becomes root's alone. Prints the keep-alive process's pid (init's child), which reaping must spare,
 * then the folders the test user can still create files in (world-writable, its group's, its own):
 * the only places the check after a slot has to search.
 */
const PREPARE = [
  '[ -d /xrt ] && chmod -R go-w /xrt 2>/dev/null',
  'find / -xdev -type f -perm -0002 -exec chmod o-w {} + 2>/dev/null',
  'for w in "$@"; do [ ! -d "$w" ] || chmod -R a+rwX "$w" || exit 1; done',
  // The children list ends without a newline: its own line, before the folders.
  'echo "$(cat /proc/1/task/1/children)"',
  `[ -n "$XRT_LIST_WRITABLE" ] && find / -xdev -type d \\( -perm -0002 -o \\( -perm -0020 -group ${TEST_UID} \\) -o -user ${TEST_UID} \\) -print 2>/dev/null`,
  'exit 0',
].join('\n');

/**
 * Run as root in the container before a test phase, while nothing untrusted runs (every earlier
 * exec's processes were reaped): the copy readable but not writable to others, `.xrt` not listable
 * (the report folder's name stays secret), the runner's folders writable to all, and the image folders
 * the language's test phase writes (`$XRT_IMAGE_WRITABLE`, ':'-separated; what root phases added
 * there since is opened too). `chmod -R` follows no link it meets while walking; a writable folder
 * that is itself a link is skipped. Files the test user made earlier cannot be changed by root
 * without capabilities: those are only in writable folders.
 */
const OPEN_LINES = [
  'd=$XRT_OPEN_SANDBOX',
  'chmod -R o+rX,o-w "$d" 2>/dev/null',
  'chmod 0311 "$d/.xrt" 2>/dev/null',
  // No pathname expansion of the unquoted lists (a folder name with * or ? would match others).
  'set -f',
  // A newline as the only separator: the line after this one ends the quoted IFS.
  "IFS='",
  "'; for w in $XRT_OPEN_DIRS; do [ -L \"$w\" ] || chmod -R a+rwX \"$w\" 2>/dev/null; done",
  'IFS=:; for w in $XRT_IMAGE_WRITABLE; do [ -d "$w" ] && chmod -R a+rwX "$w" 2>/dev/null; done',
];
const OPEN_FOR_TEST = [...OPEN_LINES, 'exit 0'].join('\n');

/** What OPEN_LINES reads: the sandbox, its writable folders (one per line), the image folders (':'-separated). */
function openEnv(sandboxDir: string, writable: readonly string[], imageWritable: readonly string[]): string[] {
  // The engine names these folders (inside its sandbox); a line break in one would split the list.
  if (writable.some((d) => d.includes('\n'))) throw new Error(`a writable folder's name holds a line break: ${JSON.stringify(writable)}`);
  return [`XRT_OPEN_SANDBOX=${sandboxDir}`, `XRT_OPEN_DIRS=${writable.join('\n')}`, `XRT_IMAGE_WRITABLE=${imageWritable.join(':')}`];
}

/**
 * Kills whatever the exec's user has running in the container but init (1), the keep-alive (`$keep`)
 * and this shell: a background process a test started must not live on into the next phase (or slot).
 * Only shell builtins, so it starts no process of its own. Twice, for what forked while the first pass ran.
 */
const REAP_LOOP = 'for n in 1 2; do for p in /proc/[0-9]*; do i=${p#/proc/}; [ "$i" = 1 ] || [ "$i" = "$$" ] || [ "$i" = "$keep" ] || case " $spare " in *" $i "*) ;; *) kill -9 "$i" 2>/dev/null;; esac; done; done';

/**
 * The pids reaping and the check after a slot spare besides init, the keep-alive and themselves: the
 * container's runner and its output encoder (container-runner.ts), which pass them in `XRT_SPARE`;
 * the command itself does not inherit it. Empty under an exec.
 */
const TAKE_SPARE = 'spare=$XRT_SPARE; unset XRT_SPARE';

/**
 * One exec per phase: the command under timeout(1) (its whole process group killed at the deadline),
 * then the reaping of everything it left running, as its own user (the only one it could have run
 * as), then the command's exit status.
 */
const RUN_AND_REAP = ['keep=$1; t=$2; shift 2', TAKE_SPARE, `timeout --kill-after=${KILL_AFTER_S}s "$t" "$@"`, 's=$?', REAP_LOOP, 'exit $s'].join('\n');

/**
 * RUN_AND_REAP for a root phase a test phase follows (a compile: no test code runs in it), which then
 * opens the copy to the test user as OPEN_FOR_TEST does — once the command and all it left are gone —
 * in the same exec: one exec less per slot (an exec costs about 0.1 s on Podman). The sandbox and the
 * writable folders come in `XRT_OPEN_SANDBOX` and `XRT_OPEN_DIRS` (one per line).
 */
const RUN_AND_REAP_THEN_OPEN = ['keep=$1; t=$2; shift 2', TAKE_SPARE, `timeout --kill-after=${KILL_AFTER_S}s "$t" "$@"`, 's=$?', REAP_LOOP, ...OPEN_LINES, 'exit $s'].join('\n');


/**
 * Run as root after a slot, before its container serves another (its phases were all reaped and the
 * slot's folder removed on the host): wipes the temporary folders, then fails (and the container is
 * discarded) when anything is left: a process, an entry in the pool folder, a file root cannot remove
 * from a temporary folder, a file of the test user anywhere it could have made one (the folders
 * `PREPARE` listed, passed after the first two arguments; /dev/shm, /dev/mqueue), a System V IPC object.
 */
const CHECK_AFTER_SLOT = [
  'keep=$1; pool=$2; shift 2',
  TAKE_SPARE,
  `for p in /proc/[0-9]*; do i=\${p#/proc/}; [ "$i" = 1 ] || [ "$i" = "$$" ] || [ "$i" = "$keep" ] || case " $spare " in *" $i "*) ;; *) echo "process $i is still running"; exit 1;; esac; done`,
  '[ -d "/proc/$keep" ] || { echo "the keep-alive process is gone"; exit 1; }',
  '[ -z "$(ls -A "$pool")" ] || { echo "the pool folder is not empty"; exit 1; }',
  // Every entry but the way to the pool folder (mounted below the host's /tmp): it is checked above.
  'for d in /tmp /var/tmp /dev/shm; do [ -d "$d" ] || continue',
  '  for e in "$d"/* "$d"/.[!.]* "$d"/..?*; do { [ -e "$e" ] || [ -L "$e" ]; } || continue; case "$pool/" in "$e"/*) continue;; esac',
  '    rm -rf "$e" 2>/dev/null; if [ -e "$e" ] || [ -L "$e" ]; then echo "left in a temporary folder: $e"; exit 1; fi; done; done',
  // A folder of the test user that root cannot read is itself owned by the test user: found before find would descend.
  'for m in /dev/shm /dev/mqueue; do [ -d "$m" ] && set -- "$@" "$m"; done',
  `owned=$(find "$@" -xdev -path "$pool" -prune -o -user ${TEST_UID} -print -quit 2>/dev/null); [ -z "$owned" ] || { echo "left by the test user: $owned"; exit 1; }`,
  'for f in shm msg sem; do [ ! -r /proc/sysvipc/$f ] || [ "$(wc -l < /proc/sysvipc/$f)" -le 1 ] || { echo "a System V $f object is left"; exit 1; }; done',
  'exit 0',
].join('\n');

/** A container serving slots one after another, its pool folder bind-mounted at the same path. */
interface PooledContainer {
  key: string;
  slot: SlotContainer;
  /** Host folder (mode 0711, root's): the slots' sandboxes are made in it. */
  dir: string;
  /** Host folder (0700, root's) of the container's runner, when it was given one. */
  runnerDir?: string;
  /** The warm-ups that passed in this container, by key (`Session.warmed`): their caches are still there. */
  warmed: Map<string, unknown>;
  /**
   * The check after its last slot (CHECK_AFTER_SLOT), run in the background once the slot's result is
   * out: null when it passed, else why the container may not serve another slot. Awaited before reuse.
   */
  checked: Promise<string | null>;
}

/** Where a reused container's slot gets its sandbox: one path for every slot of the container (its caches hold absolute paths). */
const POOLED_SANDBOX = 'sandbox';

const POOL_DIR_NAME = /^xrt-pool-ns(\d+)-(\d+)-/;

/** Pool folders of runs that were killed (same PID namespace, owner gone): their containers are gone too. */
function reapStalePoolDirs(parent = os.tmpdir()): void {
  const ns = pidNamespace();
  for (const name of fs.readdirSync(parent)) {
    const m = POOL_DIR_NAME.exec(name);
    if (!m || m[1] !== ns || Number(m[2]) === process.pid || pidAlive(Number(m[2]))) continue;
    fs.rmSync(path.join(parent, name), { recursive: true, force: true });
  }
}

/**
 * Runs slots in containers through the Docker Engine API (Docker, or Podman's API service): no
 * network, memory/CPU/process limits, no capabilities; commands are `exec`s. With `reuse` (the
 * default) and a root engine, a container per (image, limits) serves slot after slot, each in a fresh
 * folder of its bind-mounted pool folder (`lease`), and is checked after each slot and replaced when
 * anything is left; else (and through `open`) each slot gets its own container, its sandbox bind-mounted.
 */
export class DockerExecutor implements Executor {
  readonly kind = 'docker' as const;
  private readonly versions = new Map<string, Promise<Record<string, string>>>();
  private readonly idle = new Map<string, PooledContainer[]>();
  private readonly pooled = new Set<PooledContainer>();
  private readonly foundImages = new Map<LanguageId, { at: number; image: Promise<string | undefined> }>();
  /** Images that cannot host a container runner, and why (container-runner.ts): their containers use execs. */
  readonly noRunner = new Map<string, string>();
  private closed = false;
  /** Why pooled containers were discarded after a slot (newest last, a few kept): for tests and logs. */
  readonly discarded: string[] = [];

  /** Where warm-ups' builds are kept across processes (`Session.keptBuilds`), per language. */
  readonly cacheRoot: string;

  constructor(
    readonly engine: ConnectedEngine,
    private readonly options: DockerExecutorOptions = {},
  ) {
    this.cacheRoot = options.cacheRoot ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'xrepotest', 'docker');
  }

  /**
   * The language's folder of kept builds (warm-environment.ts entries), made on first use with mode
   * 0700: only the engine's own user reads it; no container ever sees it but a warm-up's, through its bind.
   */
  private keptDir(language: LanguageId): string {
    const dir = path.join(this.cacheRoot, language);
    fs.mkdirSync(this.cacheRoot, { recursive: true, mode: 0o700 });
    fs.chmodSync(this.cacheRoot, 0o700);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  }

  /** What a session of this container keeps across processes (`Session.keptBuilds`), or none. */
  keptBuildsFor(slot: SlotContainer, spec: SessionSpec): KeptBuilds | undefined {
    const imageId = slot.imageId;
    if (!imageId) return undefined;
    const keptDir = (): string => this.keptDir(spec.language);
    return {
      // Made when a language first keeps something there (a read-only home throws: the slot warms up in its own copy).
      get dir(): string {
        return keptDir();
      },
      identity: `docker image ${imageId}`,
      share: (lower, target) => (copyKeptBuild(spec.sandboxDir, lower, target), null),
    };
  }

  /**
   * A container of its own for one trusted command with host folders bound into the sandbox
   * (`PhaseCommand.binds`: a warm-up filling a kept build): the slot's image and limits, its sandbox at
   * its path, nothing else of the slot's container; removed when the command ends.
   */
  async boundContainer(spec: SessionSpec, image: string, binds: ReadonlyArray<{ source: string; dest: string }>): Promise<SlotContainer> {
    return this.startContainer(image, spec.limits, spec.sandboxDir, [], false, undefined, binds);
  }

  /** Connects (unless given an engine) and clears containers and pool folders that crashed runs left behind. */
  static async create(options: DockerExecutorOptions = {}): Promise<DockerExecutor> {
    const engine = options.engine ?? (await connectEngine());
    await ownContainerOn(engine.docker);
    await reapStaleContainers(engine.docker);
    reapStalePoolDirs();
    return new DockerExecutor(engine, options);
  }

  get capabilities(): ExecutorCapabilities {
    return { hostToolchains: false, buildEnvironmentImage: (repoDir, language) => buildEnvImage(this.engine.docker, repoDir, language, { onProgress: () => undefined }) };
  }

  /**
   * The language image found on the engine, asked at most every IMAGE_RECHECK_MS: a slot asks three
   * times (available? which image? its versions), and each asking is two engine requests (official,
   * then Debian variant), about 30 ms a slot. Only a found image is remembered: one built meanwhile is
   * found at the next slot.
   */
  private languageImage(language: LanguageId): Promise<string | undefined> {
    const known = this.foundImages.get(language);
    if (known && Date.now() - known.at < IMAGE_RECHECK_MS) return known.image;
    const image = findLanguageImage(this.engine.docker, language);
    this.foundImages.set(language, { at: Date.now(), image });
    image.then(
      (found) => found === undefined && this.foundImages.delete(language),
      () => this.foundImages.delete(language),
    );
    return image;
  }

  private async imageFor(language: LanguageId, explicit?: string): Promise<string> {
    const image = explicit ?? this.options.images?.[language] ?? (await this.languageImage(language));
    if (!image) throw new Error(`no ${language} image: run \`xrepotest images build --lang ${language}\` first`);
    return image;
  }

  async unavailable(language: LanguageId): Promise<string | null> {
    if (this.options.images?.[language] || (await this.languageImage(language))) return null;
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

  /**
   * A started, prepared container of `image` with `mountDir` bind-mounted at its own path. With
   * `runnerDir`, that folder is bound at RUNNER_MOUNT and the container's commands go through a runner
   * in it (container-runner.ts) instead of an exec each; where the image cannot host one, the container
   * is replaced by one without it (and the image is not asked again).
   */
  private async startContainer(image: string, limits: ExecLimits, mountDir: string, testWrites: readonly string[], reused: boolean, runnerDir?: string, binds: ReadonlyArray<{ source: string; dest: string }> = []): Promise<SlotContainer> {
    if (runnerDir && this.noRunner.has(image)) runnerDir = undefined;
    const docker = this.engine.docker;
    const sessionId = randomUUID();
    const created = docker.createContainer({
      Image: image,
      // Our own entrypoint: a published image's ENTRYPOINT would otherwise receive `sleep infinity` as arguments.
      Entrypoint: KEEP_ALIVE.slice(0, 1),
      Cmd: KEEP_ALIVE.slice(1),
      WorkingDir: mountDir,
      User: hostUser(),
      Labels: ownerLabels(sessionId),
      NetworkDisabled: true,
      HostConfig: {
        Binds: [`${mountDir}:${mountDir}:rw`, ...(runnerDir ? [`${runnerDir}:${RUNNER_MOUNT}:rw`] : []), ...binds.map((b) => `${b.source}:${b.dest}:rw`)],
        NetworkMode: 'none',
        Init: true,
        Memory: limits.memoryBytes,
        MemorySwap: limits.memoryBytes, // equal: no swap, so the limit is real
        NanoCpus: Math.round(limits.cpus * 1e9),
        PidsLimit: limits.pids,
        Ulimits: defaultUlimits(),
        CapDrop: ['ALL'],
        // Kept for the runner alone: every command it starts drops them all (container-runner.ts).
        ...(runnerDir ? { CapAdd: RUNNER_CAPS } : {}),
        SecurityOpt: ['no-new-privileges'],
      },
    });
    // An image removed since it was found: looked up again next time.
    const container = await created.catch((e: unknown) => {
      this.foundImages.clear();
      throw e;
    });
    try {
      await container.start();
    } catch (e) {
      await container.remove({ force: true }).catch(() => undefined);
      throw new Error(`could not start a container of ${image}: ${(e as Error).message}`);
    }
    const slot = new SlotContainer(docker, container, sessionId, image);
    try {
      // The image's id (not its name, which a rebuild moves): part of the keys of the builds kept for it.
      slot.imageId = ((await container.inspect()) as { Image?: string }).Image;
      await slot.prepare(testWrites, reused);
      if (runnerDir) {
        const runner = await ContainerRunner.start(docker, container, runnerDir);
        if (typeof runner === 'string') {
          // Its capabilities must not stay with the execs that would serve instead: another container.
          this.noRunner.set(image, runner);
          await slot.remove();
          return await this.startContainer(image, limits, mountDir, testWrites, reused, undefined, binds);
        }
        slot.runner = runner;
      }
    } catch (e) {
      await slot.remove().catch(() => undefined);
      throw e;
    }
    return slot;
  }

  /** A container of its own for one slot, its sandbox bind-mounted; removed on `close()`. */
  async open(spec: SessionSpec): Promise<DockerSession> {
    const image = await this.imageFor(spec.language, spec.image);
    const testWrites = adapterFor(spec.language).image.testPhaseWrites ?? [];
    const slot = await this.startContainer(image, spec.limits, spec.sandboxDir, testWrites, false);
    return new DockerSession(slot, spec, this.backstopGraceMs(), confinesTests(), testWrites, () => slot.remove(), undefined, this);
  }

  private backstopGraceMs(): number {
    return this.options.backstopGraceMs ?? DEFAULT_BACKSTOP_GRACE_MS;
  }

  /**
   * A reused container for the slot when that is safe (a root engine confines tests to the test user;
   * the language's test phase writes nothing in the image), else a container of its own.
   */
  async lease(spec: Omit<SessionSpec, 'sandboxDir'>): Promise<SessionLease> {
    if (this.closed) throw new Error('this docker executor is closed');
    const testWrites = adapterFor(spec.language).image.testPhaseWrites ?? [];
    if (this.options.reuse === false || !confinesTests() || testWrites.length) return this.freshLease(spec);
    const image = await this.imageFor(spec.language, spec.image);
    const { memoryBytes, cpus, pids } = spec.limits;
    const key = JSON.stringify([image, spec.language, memoryBytes, cpus, pids]);
    const entry = (await this.idleChecked(key)) ?? (await this.startPooled(key, image, spec.limits));
    let session: DockerSession | undefined;
    let done = false;
    return {
      sandboxParent: entry.dir,
      sandboxDir: path.join(entry.dir, POOLED_SANDBOX),
      open: async (sandboxDir) => {
        if (session || done) throw new Error('this lease was already used');
        session = new DockerSession(entry.slot, { ...spec, sandboxDir }, this.backstopGraceMs(), true, [], () => this.giveBack(entry, sandboxDir), entry.warmed, this);
        return session;
      },
      close: async () => {
        if (done) return;
        done = true;
        await (session ? session.close() : this.giveBack(entry, null));
      },
    };
  }

  private freshLease(spec: Omit<SessionSpec, 'sandboxDir'>): SessionLease {
    let session: DockerSession | undefined;
    return {
      sandboxParent: os.tmpdir(),
      open: async (sandboxDir) => (session = await this.open({ ...spec, sandboxDir })),
      close: async () => session?.close(),
    };
  }

  private async startPooled(key: string, image: string, limits: ExecLimits): Promise<PooledContainer> {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `xrt-pool-ns${pidNamespace()}-${process.pid}-`)));
    // Traversable but not listable to the test user: a slot cannot find another's folder by name.
    fs.chmodSync(dir, 0o711);
    // The runner's requests: root's alone (mkdtemp makes it 0700), reaped with the pool folders by name.
    const runnerDir = this.options.runner === false || this.noRunner.has(image) ? undefined : fs.realpathSync(fs.mkdtempSync(`${dir}-runner-`));
    try {
      const entry: PooledContainer = { key, slot: await this.startContainer(image, limits, dir, [], true, runnerDir), dir, runnerDir, warmed: new Map(), checked: Promise.resolve(null) };
      this.pooled.add(entry);
      return entry;
    } catch (e) {
      fs.rmSync(dir, { recursive: true, force: true });
      if (runnerDir) fs.rmSync(runnerDir, { recursive: true, force: true });
      throw e;
    }
  }

  /**
   * After a slot: back to the idle containers when nothing is left of the slot, else discarded. The
   * check in the container (CHECK_AFTER_SLOT) runs in the background, so the slot's result is not held
   * up by it; the container serves no other slot before it passed (`idleChecked`).
   */
  private async giveBack(entry: PooledContainer, slotDir: string | null): Promise<void> {
    let why: string | null = null;
    const kept = !!slotDir && fs.existsSync(slotDir);
    if (this.closed) why = 'the executor was closed';
    else if (entry.slot.deadReason) why = `it was killed (${entry.slot.deadReason})`;
    else if (kept) why = "the slot's folder was kept or could not be removed";
    if (why) return this.discard(entry, why, kept);
    entry.checked = entry.slot
      .quietExec(['sh', '-c', CHECK_AFTER_SLOT, 'xrt-check', entry.slot.keepAlive, entry.dir, ...entry.slot.testWritable], '0:0')
      .then((r) => (r.code === 0 ? null : r.output.trim().slice(0, 300) || `the check exited ${r.code}`))
      .catch((e: Error) => e.message || 'the check failed');
    const list = this.idle.get(entry.key) ?? [];
    list.push(entry);
    this.idle.set(entry.key, list);
  }

  /** An idle container of the key whose check after its last slot passed (those that failed are discarded), or null. */
  private async idleChecked(key: string): Promise<PooledContainer | null> {
    for (let entry = this.idle.get(key)?.pop(); entry; entry = this.idle.get(key)?.pop()) {
      const why = await entry.checked;
      if (why === null && !entry.slot.deadReason && !this.closed) return entry;
      await this.discard(entry, why ?? (this.closed ? 'the executor was closed' : `it was killed (${entry.slot.deadReason})`), false);
    }
    return null;
  }

  private async discard(entry: PooledContainer, why: string, keepFolder: boolean): Promise<void> {
    this.discarded.push(why);
    if (this.discarded.length > 20) this.discarded.shift();
    // A kept sandbox (for inspection) stays with its pool folder; the next run reaps both by pid.
    await this.retire(entry, keepFolder);
  }

  private async retire(entry: PooledContainer, keepFolder = false): Promise<void> {
    this.pooled.delete(entry);
    const list = this.idle.get(entry.key);
    if (list?.includes(entry)) list.splice(list.indexOf(entry), 1);
    await entry.slot.remove().catch(() => undefined);
    if (entry.runnerDir) fs.rmSync(entry.runnerDir, { recursive: true, force: true });
    if (!keepFolder) fs.rmSync(entry.dir, { recursive: true, force: true });
  }

  /** Removes the reused containers (idle or not) and their pool folders. */
  async close(): Promise<void> {
    this.closed = true;
    // At once, without waiting for a check still running (its exec then fails on the removed container,
    // which its promise absorbs): a stop (docker stop, compose down) gives the process seconds, and
    // every second a container outlives its worker is one it may be left behind.
    await Promise.all([...this.pooled].map((e) => this.retire(e)));
    await sandboxRemovalsDone();
  }
}

export function ownerLabels(sessionId: string): Record<string, string> {
  return {
    [CONTAINER_LABEL.marker]: '1',
    [CONTAINER_LABEL.ownerPid]: String(process.pid),
    [CONTAINER_LABEL.ownerHost]: os.hostname(),
    [CONTAINER_LABEL.session]: sessionId,
    ...(ownContainerId() ? { [CONTAINER_LABEL.ownerContainer]: ownContainerId() as string } : {}),
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

/** One started container: the engine's own commands in it, and its removal. */
export class SlotContainer {
  /** Set when the container was killed (timeout backstop, abort): later runs fail with this reason. */
  deadReason: string | undefined;
  /** The keep-alive process's pid in the container (init's child), which reaping must spare. */
  keepAlive = '';
  /** The image's folders the test user can create files in (found at the start): where to search after a slot. */
  testWritable: string[] = [];
  /** The runner its commands go through (container-runner.ts); none: an exec each. */
  runner: ContainerRunner | undefined;

  /** The id of the image the container runs (its inspection's `Image`). */
  imageId: string | undefined;

  constructor(
    readonly docker: Dockerode,
    readonly container: Dockerode.Container,
    /** The `xrepotest.session` label of the container. */
    readonly id: string,
    /** The image as the executor named it. */
    readonly image: string,
  ) {}

  /** Closes the image's folders to the test user (but `testWrites`) and finds the keep-alive process. */
  async prepare(testWrites: readonly string[], reused: boolean): Promise<void> {
    // Only a reused container is searched after a slot: only it needs the list of writable folders.
    const r = await this.quietExec(['sh', '-c', PREPARE, 'xrt-prepare', ...testWrites], '0:0', reused ? ['XRT_LIST_WRITABLE=1'] : []);
    const [first, ...dirs] = r.output.split('\n');
    const pid = /^\s*(\d+)\s*$/.exec(first)?.[1];
    if (r.code !== 0 || !pid) throw new Error(`could not prepare the container (find its keep-alive process): ${r.output.trim().slice(0, 200)}`);
    this.keepAlive = pid;
    this.testWritable = dirs.filter((d) => d.startsWith('/'));
  }

  /**
   * A trusted command of the engine's own in the container: output (capped) and exit code. One that
   * outlives `QUIET_EXEC_MS` (a container that no longer answers) kills the container, like a phase.
   */
  async quietExec(argv: string[], user: string | undefined, env?: string[]): Promise<{ code: number | null; output: string }> {
    if (this.runner) {
      const output = new CappedOutput(64 * 1024);
      const deadline = setTimeout(() => void this.kill(`the engine's own command \`${argv[0]}\` did not end within ${QUIET_EXEC_MS} ms`), QUIET_EXEC_MS);
      try {
        const r = await this.viaRunner({ argv, env: env ?? [], user: 'root' }, output);
        if (r.code === null) throw new Error(`this session's container was killed (${this.deadReason})`);
        return { code: r.code, output: output.text() };
      } finally {
        clearTimeout(deadline);
      }
    }
    const exec = await this.container.exec({ Cmd: argv, User: user, Env: env, AttachStdout: true, AttachStderr: true, AttachStdin: false, Tty: false });
    const stream = await exec.start({ hijack: true, stdin: false, Detach: false, Tty: false });
    const output = new CappedOutput(64 * 1024);
    let stuck = false;
    const deadline = setTimeout(() => {
      stuck = true;
      void this.kill(`the engine's own command \`${argv[0]}\` did not end within ${QUIET_EXEC_MS} ms`).then(() =>
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

  drain(stream: NodeJS.ReadableStream, output: CappedOutput): Promise<void> {
    return new Promise<void>((resolve) => {
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
  }

  /**
   * A command through the runner. When the runner goes away first (the container was killed, or a root
   * phase stopped it), the container is killed too: no status came back, so it serves nothing more.
   */
  async viaRunner(cmd: RunnerCommand, output: CappedOutput): Promise<{ code: number | null }> {
    if (this.deadReason) return { code: null };
    const r = await this.runner!.run(cmd, output);
    if (r.code === null) await this.kill(this.runner!.stopped ?? 'the runner in the container stopped');
    return r;
  }

  async kill(reason: string): Promise<void> {
    this.deadReason ??= reason;
    this.runner?.close();
    // Removed, not only killed: a cancelled run may never reach close(), and nothing must linger.
    await this.container.remove({ force: true }).catch(() => undefined);
  }

  /** Removes the container; already gone is fine, anything else must be seen. */
  async remove(): Promise<void> {
    this.runner?.close();
    try {
      await this.container.remove({ force: true });
    } catch (e) {
      const status = (e as { statusCode?: number }).statusCode;
      if (status !== 404) throw e;
    }
  }
}

/** One slot's phases in a container (its own, or a reused one the executor lent it). */
export class DockerSession implements Session {
  private closed = false;
  /**
   * The writable folders the copy was last opened for, while only the test user has run since: the
   * coverage phase right after the test phase needs no second opening (the test user cannot undo
   * root's modes, and what it made is its own). Any phase run as root makes it null.
   */
  private openedFor: string | null = null;
  /** Whether a phase has run as the test user: until then the copy holds no untrusted code's work and the host may open it (open-copy.ts). */
  private untrustedRan = false;

  constructor(
    private readonly slot: SlotContainer,
    private readonly spec: SessionSpec,
    private readonly backstopGraceMs: number,
    /** Test and coverage phases run as `UNPRIVILEGED_USER` on a copy read-only to it (engine is root). */
    readonly confined: boolean,
    /** Image folders opened to the test user before each test phase (the language's `testPhaseWrites`). */
    private readonly testWrites: readonly string[],
    /** What closing does with the container: removes it, or gives it back to the executor's pool. */
    private readonly onClose: () => Promise<void>,
    /** A reused container's warm-ups that passed, by key (`Session.warmed`); absent for a container of one slot. */
    readonly warmed?: Map<string, unknown>,
    /** The executor, for what the session keeps across processes and its bound warm-ups' containers. */
    private readonly executor?: DockerExecutor,
  ) {}

  /** Warm-ups' builds kept on the host for this session's image (`Session.keptBuilds`). */
  get keptBuilds(): KeptBuilds | undefined {
    return this.executor?.keptBuildsFor(this.slot, this.spec);
  }

  /** The `xrepotest.session` label of its container. */
  get id(): string {
    return this.slot.id;
  }

  async run(cmd: PhaseCommand, signal?: AbortSignal): Promise<PhaseResult> {
    return readOutput(cmd, await this.runRaw(cmd, signal), this.spec.limits.outputBytes);
  }

  private async runRaw(cmd: PhaseCommand, signal?: AbortSignal): Promise<PhaseResult> {
    if (this.closed) throw new Error('this execution session is closed');
    const slot = this.slot;
    if (slot.deadReason) throw new Error(`this session's container was killed (${slot.deadReason}); open a new session`);
    signal?.throwIfAborted();
    // No mount namespace per command here (`capabilities` offers no views): a view would go missing unheard.
    if (cmd.view) throw new Error('a view was declared for a phase, but the docker executor gives commands no views');
    if (cmd.binds?.length) return this.runBound(cmd, signal);
    // A test phase on a copy read-only to it: opened up by root first, then run as nobody.
    const user = this.confined && cmd.sandboxWritable ? UNPRIVILEGED_USER : undefined;
    const openKey = user ? JSON.stringify(cmd.sandboxWritable) : null;
    if (!user) this.openedFor = null;
    if (user && openKey !== this.openedFor) {
      // From the host while no untrusted code has run in the copy and the language opens no image
      // folder (those are the container's own): an exec less per slot (PHP and Ruby run no root phase
      // before their test phase, whose tail would open it).
      const onHost = !this.untrustedRan && !this.testWrites.length && openCopyOnHost(this.spec.sandboxDir, cmd.sandboxWritable!);
      if (!onHost) {
        const r = await slot.quietExec(['sh', '-c', OPEN_FOR_TEST, 'xrt-open'], '0:0', openEnv(this.spec.sandboxDir, cmd.sandboxWritable!, this.testWrites));
        if (r.code !== 0) throw new Error(`could not prepare the container for the ${cmd.phase} phase: ${r.output.trim().slice(0, 200)}`);
      }
      this.openedFor = openKey;
      signal?.throwIfAborted();
    }
    if (user) this.untrustedRan = true;
    // A root phase a test phase follows opens the copy at its end (RUN_AND_REAP_THEN_OPEN), but for
    // folder names a line-separated list cannot carry.
    const openAfter = !user && this.confined && cmd.beforeTest && !cmd.beforeTest.some((d) => d.includes('\n')) ? cmd.beforeTest : null;
    const started = Date.now();
    const seconds = (Math.max(cmd.timeoutMs, 1) / 1000).toFixed(3);
    const shArgv = ['sh', '-c', openAfter ? RUN_AND_REAP_THEN_OPEN : RUN_AND_REAP, 'xrt-run', slot.keepAlive, `${seconds}s`, ...cmd.argv];
    const env = [`LANG=C.UTF-8`, ...Object.entries(cmd.env).map(([k, v]) => `${k}=${v}`), ...(openAfter ? openEnv(this.spec.sandboxDir, openAfter, this.testWrites) : [])];
    if (slot.runner) return this.runViaRunner(cmd, { argv: shArgv, env, cwd: cmd.cwd, user: user ? 'test' : 'root' }, openAfter, started, signal);
    // The in-container timeout kills the command's whole process group, and the same exec reaps what
    // it left; the host backstop below is for when that cannot work (the engine hangs, the command
    // escapes its group and holds the output open).
    const exec = await slot.container.exec({
      Cmd: shArgv,
      WorkingDir: cmd.cwd,
      User: user,
      Env: env,
      AttachStdout: true,
      AttachStderr: true,
      AttachStdin: false,
      Tty: false,
    });
    const stream = await exec.start({ hijack: true, stdin: false, Detach: false, Tty: false });
    const output = new CappedOutput(this.spec.limits.outputBytes);
    const { killedBy } = await this.supervise(cmd, signal, slot.drain(stream, output), () => (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.(), output);
    const base = { phase: cmd.phase, argv: cmd.argv, outputTruncated: output.truncated, output: output.text(), durationMs: Date.now() - started };
    if (killedBy) return { ...base, ...killedResult(killedBy) };
    return this.ended(cmd, base, await exitCodeOf(exec), openAfter);
  }

  /**
   * A trusted command with host folders bound into the sandbox (`PhaseCommand.binds`: a warm-up filling
   * a kept build) runs in a container of its own, made for it and removed after it: the slot's
   * container never sees those folders, so nothing any later phase of any slot runs can write them.
   * Only a warm-up may ask (it runs before the test exists), and only for empty folders of the copy
   * reached without a link.
   */
  private async runBound(cmd: PhaseCommand, signal?: AbortSignal): Promise<PhaseResult> {
    const binds = cmd.binds!;
    if (cmd.phase !== 'warm-up' || cmd.sandboxWritable || !this.executor) throw new Error(`host folders may be bound only into a trusted warm-up (not ${cmd.phase})`);
    if (this.untrustedRan) throw new Error('host folders may be bound only before any test code ran in the copy');
    const root = this.spec.sandboxDir;
    for (const b of binds) {
      const rel = path.relative(root, b.dest);
      if (!path.isAbsolute(b.source) || !fs.statSync(b.source).isDirectory() || !rel || rel.startsWith('..') || path.isAbsolute(rel) || /[:\n]/.test(b.source + b.dest)) {
        throw new Error(`a bound folder must be a host folder shown at a folder inside the sandbox: ${b.source} -> ${b.dest}`);
      }
      // The mount point, with no link on the way (the project's own code may have run in the copy).
      ensureDirInSandbox(root, rel.split(path.sep).join('/'));
      if (listSandboxDir(root, rel.split(path.sep).join('/')).length) throw new Error(`a bound folder's mount point is not empty: ${b.dest}`);
    }
    signal?.throwIfAborted();
    const slot = await this.executor.boundContainer(this.spec, this.slot.image, binds);
    const once = new DockerSession(slot, this.spec, this.backstopGraceMs, this.confined, this.testWrites, () => slot.remove());
    try {
      return await once.runRaw({ ...cmd, binds: undefined }, signal);
    } finally {
      await once.close();
    }
  }

  /** The phase through the container's runner: the same command, deadlines and kills as an exec. */
  private async runViaRunner(cmd: PhaseCommand, rc: RunnerCommand, openAfter: readonly string[] | null, started: number, signal?: AbortSignal): Promise<PhaseResult> {
    const output = new CappedOutput(this.spec.limits.outputBytes);
    const { value, killedBy } = await this.supervise(cmd, signal, this.slot.viaRunner(rc, output), undefined, output);
    const base = { phase: cmd.phase, argv: cmd.argv, outputTruncated: output.truncated, output: output.text(), durationMs: Date.now() - started };
    if (killedBy) return { ...base, ...killedResult(killedBy) };
    // The runner went away before answering (a root phase stopped it): the container was killed for it.
    if (value.code === null) return { ...base, exitCode: null, signal: 'SIGKILL', timedOut: false, output: `${base.output}\n[xrepotest: ${this.slot.deadReason}]\n` };
    return this.ended(cmd, base, value.code, openAfter);
  }

  /**
   * Waits for a command's end (`ending`), killing its container at the host's backstop (after the
   * in-container timeout should have ended everything) or on cancellation; `afterKill` then lets go of
   * what still waits on the container. Answers only once a removal it started is over.
   */
  private async supervise<T>(cmd: PhaseCommand, signal: AbortSignal | undefined, ending: Promise<T>, afterKill?: () => void, output?: CappedOutput): Promise<{ value: T; killedBy?: KilledBy }> {
    let killedBy: KilledBy | undefined;
    let killing: Promise<void> | undefined;
    const kill = (why: KilledBy): void => {
      if (killedBy) return;
      killedBy = why;
      const words = why === 'timeout' ? `a command outlived its ${cmd.timeoutMs} ms timeout` : why === 'silence' ? `a build printed nothing for ${cmd.silenceMs} ms` : 'the run was cancelled';
      killing = this.slot.kill(words).then(afterKill);
    };
    const backstop = setTimeout(() => kill('timeout'), cmd.timeoutMs + KILL_AFTER_S * 1000 + this.backstopGraceMs);
    // A build's progress limit, on the host (the in-container timeout knows only wall time): restarted by every chunk.
    const silence = cmd.silenceMs && output ? setTimeout(() => kill('silence'), cmd.silenceMs) : null;
    if (output && (silence || cmd.onOutput)) {
      output.onChunk = (b) => {
        silence?.refresh();
        cmd.onOutput?.(b.toString('utf8'));
      };
    }
    const onAbort = (): void => kill('abort');
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const value = await ending;
      // The command's end comes as soon as the container dies; the removal must be over before we answer.
      await killing;
      return { value, killedBy };
    } finally {
      clearTimeout(backstop);
      if (silence) clearTimeout(silence);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** A phase that ended on its own, from its exit code. */
  private ended(cmd: PhaseCommand, base: Omit<PhaseResult, 'exitCode' | 'signal' | 'timedOut'>, code: number | null, openAfter: readonly string[] | null): PhaseResult {
    const durationMs = base.durationMs;
    // The command ended on its own: its tail opened the copy for the test phase that follows.
    if (openAfter && code !== null) this.openedFor = JSON.stringify(openAfter);
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
    await this.onClose();
  }
}

/** Why the host ended a command: its wall time, its silence (a build's progress limit), or cancellation. */
type KilledBy = 'timeout' | 'silence' | 'abort';

/** A command the host killed, as a phase result. */
function killedResult(by: KilledBy): Pick<PhaseResult, 'exitCode' | 'signal' | 'timedOut' | 'stalled'> {
  return { exitCode: null, signal: 'SIGKILL', timedOut: by !== 'abort', ...(by === 'silence' ? { stalled: true } : {}) };
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

/**
 * A slot's own copy of a kept build (`KeptBuilds.share`), made on the host before any of the test
 * exists: `target` (inside the sandbox, reached without a link: the project's build ran as root in the
 * copy) emptied, then filled with `lower`'s files, modes and times (cargo compares times), links copied
 * as links. Nothing of the slot ever reaches `lower`.
 */
export function copyKeptBuild(sandboxDir: string, lower: string, target: string): void {
  const rel = path.relative(sandboxDir, target).split(path.sep).join('/');
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) throw new Error(`a kept build goes inside the sandbox, not at ${target}`);
  ensureDirInSandbox(sandboxDir, rel);
  if (listSandboxDir(sandboxDir, rel).length) {
    fs.rmSync(target, { recursive: true, force: true });
    ensureDirInSandbox(sandboxDir, rel);
  }
  const r = spawnSync('cp', ['-R', '--no-dereference', '--reflink=auto', '--preserve=mode,timestamps', `${lower}/.`, `${target}/`], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`could not copy the kept build ${lower}: ${(r.stderr || r.error?.message || '').trim()}`);
}
