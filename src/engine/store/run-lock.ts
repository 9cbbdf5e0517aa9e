import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pidAlive, pidNamespaceId } from '../util/process-namespace';

/**
 * One process at a time in a run folder. Two `bench` processes on one folder would both run every task
 * and append every result twice. The lock file says who holds it (pid, PID namespace, host, the
 * process's start time), so a second process can name the holder, and a lock left by a killed process
 * (SIGKILL leaves no chance to remove it) is recognised as stale and taken over — but only when its
 * holder is provably gone: same host, same PID namespace, and that pid is dead or is now another
 * process (a different start time). A lock from another host or namespace is never judged from here.
 */

export const RUN_LOCK_NAME = 'run.lock';

export interface LockOwner {
  pid: number;
  /** `/proc/self/ns/pid` (e.g. `pid:[4026531836]`); null where there is none. */
  pidNamespace: string | null;
  hostname: string;
  /** The process's start time in clock ticks since boot (`/proc/<pid>/stat` field 22): tells pid reuse apart. */
  processStart: string | null;
  /** When the lock was taken, for people. */
  startedAt: string;
  /** What took it: `bench`, `run`… */
  command: string;
  /** Unique per lock, so a release never removes someone else's. */
  token: string;
}

export class RunLockedError extends Error {
  constructor(
    message: string,
    readonly owner: LockOwner | null,
  ) {
    super(message);
  }
}

/** Field 22 of /proc/<pid>/stat; the command name (field 2) may hold spaces and parentheses, so count from its end. */
export function processStartOf(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function readOwner(file: string): LockOwner | null {
  try {
    const v = JSON.parse(fs.readFileSync(file, 'utf8')) as LockOwner;
    return v && typeof v === 'object' && Number.isInteger(v.pid) && typeof v.token === 'string' ? v : null;
  } catch {
    return null;
  }
}

/** Why the owner is certainly gone (the lock is stale), or null when it may still be running. */
function goneBecause(owner: LockOwner): string | null {
  if (owner.hostname !== os.hostname() || owner.pidNamespace !== pidNamespaceId() || owner.pidNamespace === null) return null;
  if (owner.pid === process.pid) return null;
  if (!pidAlive(owner.pid)) return `process ${owner.pid} is gone`;
  const start = processStartOf(owner.pid);
  if (owner.processStart && start && start !== owner.processStart) return `pid ${owner.pid} is now another process`;
  return null;
}

function describe(owner: LockOwner): string {
  return `process ${owner.pid} (${owner.command}) on ${owner.hostname}, PID namespace ${owner.pidNamespace ?? 'unknown'}, since ${owner.startedAt}`;
}

export interface RunLock {
  file: string;
  owner: LockOwner;
  /** Stale locks taken over on the way in (said to the user). */
  tookOver: string[];
  release(): void;
}

/** Places a file with the whole lock in it, or fails with EEXIST: link() never shows a half-written lock. */
function placeLock(file: string, owner: LockOwner): boolean {
  const tmp = `${file}.${owner.pid}.${owner.token}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(owner, null, 2) + '\n');
  try {
    fs.linkSync(tmp, file);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/**
 * Takes the run folder's lock, or throws RunLockedError naming the process that holds it and how to
 * remove a lock that is stale. Release it when done (it is released on exit too).
 */
export function acquireRunLock(runDir: string, command: string): RunLock {
  fs.mkdirSync(runDir, { recursive: true });
  return acquireLockFile(path.join(runDir, RUN_LOCK_NAME), runDir, command);
}

/** The same lock for one output file (`run --out FILE` locks `FILE.lock`): `what` names what is locked. */
export function acquireLockFile(file: string, what: string, command: string): RunLock {
  const runDir = what;
  const owner: LockOwner = {
    pid: process.pid,
    pidNamespace: pidNamespaceId(),
    hostname: os.hostname(),
    processStart: processStartOf(process.pid),
    startedAt: new Date().toISOString(),
    command,
    token: randomBytes(8).toString('hex'),
  };
  const tookOver: string[] = [];
  for (let attempt = 0; attempt < 5; attempt++) {
    if (placeLock(file, owner)) {
      const release = (): void => {
        if (readOwner(file)?.token === owner.token) fs.rmSync(file, { force: true });
        process.removeListener('exit', release);
      };
      process.on('exit', release);
      return { file, owner, tookOver, release };
    }
    const held = readOwner(file);
    if (!held) {
      throw new RunLockedError(
        `${runDir} is locked by ${file}, which does not say who holds it; if no other xrepotest process uses this folder, delete ${file} and run again`,
        null,
      );
    }
    const gone = goneBecause(held);
    if (!gone) {
      throw new RunLockedError(
        `${runDir} is in use by ${describe(held)}: wait for it to finish, or stop it. ` +
          `If that process no longer exists (e.g. another machine or container that was shut down), delete ${file} and run again`,
        held,
      );
    }
    // Move the stale lock aside, then make sure what moved is the one judged stale (another process
    // may have taken it over meanwhile): if not, put it back and look again.
    const aside = `${file}.stale.${owner.pid}.${owner.token}`;
    try {
      fs.renameSync(file, aside);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw e;
    }
    const moved = readOwner(aside);
    if (moved?.token === held.token) {
      fs.rmSync(aside, { force: true });
      tookOver.push(`took over the lock of ${describe(held)}: ${gone}`);
    } else {
      try {
        fs.linkSync(aside, file);
      } catch {
        // A third process placed its lock meanwhile: the next attempt names it.
      }
      fs.rmSync(aside, { force: true });
    }
  }
  throw new RunLockedError(`${runDir}: could not take ${file} (other processes keep taking it); run again`, readOwner(file));
}
