import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ExecLimits } from './types';

/**
 * The local executor's cgroups: one per running command, holding all its processes so they can be
 * limited (memory, pids) and killed together. Emptied cgroups are kept for the next command
 * (`CgroupPool`): making one, and removing it, costs the engine a few milliseconds per command, and
 * the first process in a new memory cgroup starts slower. How a command joins its cgroup: `join`.
 */

export type CgroupKind = 'v1' | 'v2' | null;

/** Where this process may create cgroups with memory and pids limits (root on v1, a delegated v2 tree). */
export function cgroupSupport(): CgroupKind {
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
export function reapStaleCgroups(kind: 'v1' | 'v2'): void {
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
export class CommandCgroup {
  readonly procsFiles: string[];
  /**
   * What the command's first process (a single-threaded shell) writes, to each file, to move itself in
   * before it execs the command. On v1, "0" to `tasks`: the writer's own thread, which the kernel moves
   * without the lock that a whole-process move (`cgroup.procs`) takes. That lock waits for an RCU grace
   * period whenever no move happened in the last few milliseconds, so on this VM every command started
   * 6–12 ms later (measured: a join after 50 ms idle, 5.9 ms by cgroup.procs, 1.2 ms by tasks). v2
   * has no such file for a process outside a threaded tree: there the shell writes its pid.
   */
  readonly join: { files: string[]; value: '0' | '$$' };
  private readonly dirs: string[];
  /** The limits written to it, as a key: a reused cgroup with other limits gets them written again. */
  limitsKey = '';

  constructor(
    private readonly kind: 'v1' | 'v2',
    limits: ExecLimits,
  ) {
    const name = `xrepotest-${process.pid}-${randomUUID().slice(0, 8)}`;
    if (kind === 'v1') {
      const pids = path.join('/sys/fs/cgroup/pids', name);
      const mem = path.join('/sys/fs/cgroup/memory', name);
      fs.mkdirSync(pids);
      fs.mkdirSync(mem);
      this.dirs = [pids, mem];
    } else {
      const dir = path.join('/sys/fs/cgroup', name);
      fs.mkdirSync(dir);
      this.dirs = [dir];
    }
    this.procsFiles = this.dirs.map((d) => path.join(d, 'cgroup.procs'));
    this.join = kind === 'v1' ? { files: this.dirs.map((d) => path.join(d, 'tasks')), value: '0' } : { files: this.procsFiles, value: '$$' };
    this.limit(limits);
  }

  /** Writes the limits (unless they are the ones it has). */
  limit(limits: ExecLimits): void {
    const key = `${limits.memoryBytes}/${limits.pids}`;
    if (key === this.limitsKey) return;
    if (this.kind === 'v1') {
      const [pids, mem] = this.dirs;
      fs.writeFileSync(path.join(pids, 'pids.max'), String(limits.pids));
      fs.writeFileSync(path.join(mem, 'memory.limit_in_bytes'), String(limits.memoryBytes));
    } else {
      const [dir] = this.dirs;
      fs.writeFileSync(path.join(dir, 'pids.max'), String(limits.pids));
      fs.writeFileSync(path.join(dir, 'memory.max'), String(limits.memoryBytes));
      fs.writeFileSync(path.join(dir, 'memory.swap.max'), '0');
    }
    this.limitsKey = key;
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
   * Kills until the cgroup is empty: true once it is. A killed process stays listed until the kernel
   * has torn it down (a few milliseconds), and a forking one may add a child meanwhile: so kill again
   * on short, growing waits (about a second in all).
   */
  async empty(): Promise<boolean> {
    for (let waitMs = 1, waited = 0; waited < 1000; waited += waitMs, waitMs = Math.min(waitMs * 2, 50)) {
      if (!this.killAll()) return true;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
    return this.pids().length === 0;
  }

  /**
   * Memory still charged to it that no reclaim can free: anonymous memory (none once its processes are
   * gone) and tmpfs pages, the files a command wrote into a sandbox kept in memory, charged until the
   * sandbox is deleted. Null when it cannot be read.
   */
  unreclaimableBytes(): number | null {
    try {
      const stat = fs.readFileSync(path.join(this.dirs[this.kind === 'v1' ? 1 : 0], 'memory.stat'), 'utf8');
      const [rss, shmem] = this.kind === 'v1' ? ['total_rss', 'total_shmem'] : ['anon', 'shmem'];
      let bytes = 0;
      for (const line of stat.split('\n')) {
        const [k, v] = line.split(' ');
        if (k === rss || k === shmem) bytes += Number(v) || 0;
      }
      return bytes;
    } catch {
      return null;
    }
  }

  remove(): void {
    for (const d of this.dirs) {
      try {
        fs.rmdirSync(d);
      } catch {
        /* a process may linger a moment in the kernel; a later run's reaper removes it */
      }
    }
  }
}

/**
 * What another command may still find charged to a kept cgroup and count against its own limit: more
 * than this (a slot's memory sandbox not deleted yet), and the cgroup is removed instead of reused.
 */
const REUSE_UNRECLAIMABLE_MAX = 16 * 1024 ** 2;
/** Kept idle at most (commands run at once: the slots of a benchmark, the phases beside each other). */
const IDLE_MAX = 8;

/** Emptied cgroups kept for the next command (see the top of this file). */
export class CgroupPool {
  private readonly idle: CommandCgroup[] = [];

  constructor(private readonly kind: 'v1' | 'v2') {}

  /**
   * A cgroup for one command: a kept one that holds no process and almost no memory another command
   * would have to count (checked now, when the slot that wrote its memory sandbox is most likely gone),
   * else a new one.
   */
  take(limits: ExecLimits): CommandCgroup {
    for (let cg = this.idle.pop(); cg; cg = this.idle.pop()) {
      const charged = cg.unreclaimableBytes();
      if (cg.pids().length === 0 && charged !== null && charged <= REUSE_UNRECLAIMABLE_MAX) {
        cg.limit(limits);
        return cg;
      }
      cg.remove();
    }
    return new CommandCgroup(this.kind, limits);
  }

  /** After its command: every process killed, then kept for another command, or removed. */
  async give(cg: CommandCgroup): Promise<void> {
    if ((await cg.empty()) && this.idle.length < IDLE_MAX) this.idle.push(cg);
    else cg.remove();
  }

  /** Removes the kept cgroups. */
  close(): void {
    for (const cg of this.idle.splice(0)) cg.remove();
  }
}
