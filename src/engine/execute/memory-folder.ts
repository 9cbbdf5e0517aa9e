import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Free space a memory-backed folder must have to take sandboxes: a copy plus what its phases write, with room to spare. */
const MIN_FREE_BYTES = 1024 ** 3;

/** A mount point as /proc/self/mountinfo writes it: space, tab, newline and backslash octal-escaped. */
function unescapeMount(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
}

export interface MountInfo {
  mountPoint: string;
  options: string[];
  fsType: string;
}

/** The lines of /proc/self/mountinfo (proc(5)): mount point in field 5, its options in 6, the type after " - ". */
export function parseMountInfo(text: string): MountInfo[] {
  const out: MountInfo[] = [];
  for (const line of text.split('\n')) {
    const [left, right] = line.split(' - ');
    if (!left || !right) continue;
    const f = left.split(' ');
    if (f.length < 6) continue;
    out.push({ mountPoint: unescapeMount(f[4]), options: f[5].split(','), fsType: right.split(' ')[0] });
  }
  return out;
}

/** The mount a path lies on: the last-mounted of those whose mount point is the longest prefix of it. */
export function mountOf(realPath: string, mounts: readonly MountInfo[]): MountInfo | null {
  let best: MountInfo | null = null;
  for (const m of mounts) {
    const under = realPath === m.mountPoint || realPath.startsWith(m.mountPoint.endsWith('/') ? m.mountPoint : `${m.mountPoint}/`);
    if (under && (!best || m.mountPoint.length >= best.mountPoint.length)) best = m;
  }
  return best;
}

let chosen: string | null | undefined;

/**
 * A folder in memory (tmpfs) where the local executor may make sandboxes, or null: creating a copy's
 * files there costs about a tenth of what it costs on a disk file system (78 files: 13 ms on ext4,
 * 1.3 ms on tmpfs, here), and every slot pays it. `$XDG_RUNTIME_DIR` (the user's own, mode 0700)
 * first, then /dev/shm; taken only when it is tmpfs, allows executing files (Go runs its test binary
 * from the copy), is writable, and has a GiB free. `XREPOTEST_SANDBOX_DIR` names the folder instead
 * (`-` or empty: none, sandboxes on disk in the temporary folder). Decided once per process.
 */
export function memorySandboxParent(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env === process.env && chosen !== undefined) return chosen;
  const decided = decide(env);
  if (env === process.env) chosen = decided;
  return decided;
}

function decide(env: NodeJS.ProcessEnv): string | null {
  const forced = env.XREPOTEST_SANDBOX_DIR;
  if (forced !== undefined) return forced === '' || forced === '-' ? null : path.resolve(forced);
  if (os.platform() !== 'linux') return null;
  let mounts: MountInfo[];
  try {
    mounts = parseMountInfo(fs.readFileSync('/proc/self/mountinfo', 'utf8'));
  } catch {
    return null;
  }
  for (const candidate of [env.XDG_RUNTIME_DIR, '/dev/shm']) {
    if (!candidate || !path.isAbsolute(candidate)) continue;
    try {
      const real = fs.realpathSync(candidate);
      if (!fs.statSync(real).isDirectory()) continue;
      fs.accessSync(real, fs.constants.W_OK | fs.constants.X_OK);
      const mount = mountOf(real, mounts);
      if (!mount || mount.fsType !== 'tmpfs' || mount.options.includes('noexec')) continue;
      const st = fs.statfsSync(real);
      if (st.bavail * st.bsize < MIN_FREE_BYTES) continue;
      return real;
    } catch {
      continue;
    }
  }
  return null;
}
