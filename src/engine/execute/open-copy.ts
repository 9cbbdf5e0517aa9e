import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * What the docker executor's OPEN_LINES do in the container before a test phase, done from the host
 * instead, on the bind-mounted copy: the copy readable but not writable to others (`chmod -R
 * o+rX,o-w`), `.xrt` not listable (0311: the report folder's name stays secret), each writable folder
 * writable to all (`chmod -R a+rwX`, skipped when it is itself a link). An exec costs about 0.1 s on
 * Podman; this walk, a few milliseconds for a middle-sized repository.
 *
 * Only for a copy no untrusted code has run in, and with nothing running in the container (every
 * exec's processes are reaped when it ends): the walk does not follow links (as `chmod -R` does not),
 * and no process is there to swap a folder for a link while it walks. Returns false, having changed
 * what it changed so far, where the host user may not change a file's mode (a root-owned file made by
 * a rootful engine's root phase while the engine itself is not root): the caller then opens the copy
 * in the container, which sets every mode again.
 */
export function openCopyOnHost(sandboxDir: string, writable: readonly string[]): boolean {
  try {
    walk(sandboxDir, othersRead);
    fs.chmodSync(path.join(sandboxDir, '.xrt'), 0o311);
    for (const w of writable) {
      let st: fs.Stats;
      try {
        st = fs.lstatSync(w);
      } catch {
        continue; // as `chmod -R` on a missing folder: nothing to open
      }
      if (st.isSymbolicLink()) continue;
      walk(w, allWrite);
    }
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EPERM') return false;
    throw e;
  }
}

/** `o+rX,o-w`: readable to others, searchable and executable where anyone may already execute, never writable. */
function othersRead(mode: number, dir: boolean): number {
  return ((mode | 0o004 | (dir || mode & 0o111 ? 0o001 : 0)) & ~0o002) & 0o7777;
}

/** `a+rwX`: readable and writable to all, searchable and executable where anyone may already execute. */
function allWrite(mode: number, dir: boolean): number {
  return (mode | 0o666 | (dir || mode & 0o111 ? 0o111 : 0)) & 0o7777;
}

/** Sets modes on `root` and everything below it, never through a link (links keep theirs, as chmod -R leaves them). */
function walk(root: string, to: (mode: number, dir: boolean) => number): void {
  const visit = (p: string, st: fs.Stats): void => {
    if (st.isSymbolicLink()) return;
    const dir = st.isDirectory();
    const mode = to(st.mode, dir);
    if (mode !== (st.mode & 0o7777)) fs.chmodSync(p, mode);
    if (!dir) return;
    for (const name of fs.readdirSync(p)) {
      const child = path.join(p, name);
      visit(child, fs.lstatSync(child));
    }
  };
  visit(root, fs.lstatSync(root));
}
