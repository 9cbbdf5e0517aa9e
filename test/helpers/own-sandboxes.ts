import * as fs from 'node:fs';
import * as path from 'node:path';
import { pidNamespaceId } from '../../src/engine/util/process-namespace';

/*
 * Tests check only what they made. Other xrepotest processes on the same machine (a benchmark, an
 * editor session, another test run) make and remove sandboxes in the same /dev/shm and /tmp at any
 * moment; a test that counted every `xrt-sandbox-*` there would read theirs as its own leftovers.
 * The engine names each sandbox after its owner (`xrt-sandbox-ns<pid namespace>-<pid>-…`, and
 * `xrt-trash-…` on its way out: execute/sandbox.ts), so a test can pick its own by name.
 */

function prefixesOf(pid: number): string[] {
  const ns = pidNamespaceId() ?? '0';
  return [`xrt-sandbox-ns${ns}-${pid}-`, `xrt-trash-ns${ns}-${pid}-`];
}

/** The sandboxes and sandbox trash process `pid` (this one unless told) has in `dir`, by name. */
export function sandboxesOf(dir: string, pid: number = process.pid): string[] {
  const prefixes = prefixesOf(pid);
  return fs.readdirSync(dir).filter((n) => prefixes.some((p) => n.startsWith(p)));
}

/**
 * Open files, of any process, inside a sandbox of process `pid` in `dir` (removed ones included: a
 * tmpfs keeps a removed file's memory while a process holds it open). Read from /proc/<pid>/fd;
 * processes this one may not inspect are not seen.
 */
export function filesHeldInSandboxesOf(dir: string, pid: number = process.pid): string[] {
  const roots = prefixesOf(pid).map((p) => path.join(dir, p));
  const held: string[] = [];
  for (const proc of fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${proc}/fd`);
    } catch {
      continue; // gone meanwhile, or not ours to read
    }
    for (const fd of fds) {
      try {
        const target = fs.readlinkSync(`/proc/${proc}/fd/${fd}`);
        if (roots.some((r) => target.startsWith(r))) held.push(`${proc}: ${target}`);
      } catch {
        // closed meanwhile
      }
    }
  }
  return held;
}
