import * as fs from 'node:fs';

/**
 * This process's PID namespace as a number (`readlink /proc/self/ns/pid` is `pid:[4026531836]`), or
 * null where it cannot be read: a pid means something only in its own namespace, and a container or
 * a bubblewrap sandbox sharing /tmp or a run folder with us has its own.
 */
export function pidNamespaceId(): string | null {
  try {
    return /\[(\d+)\]/.exec(fs.readlinkSync('/proc/self/ns/pid'))?.[1] ?? null;
  } catch {
    return null;
  }
}

/** Whether a pid of our own namespace names a live process (EPERM: alive, owned by someone else). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
