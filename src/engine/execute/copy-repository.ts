import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Copies a repository checkout into a sandbox without ever writing to the checkout or reaching out of
 * it (docs/execution.md, "The sandbox"). `fs.cpSync` is not safe for this: it rewrites relative link
 * targets to absolute paths into the source, so a write through `pkg -> pkg-real` in the copy lands
 * in the user's checkout, and it copies sparse files densely and FIFOs not at all gracefully.
 *
 * The rules:
 * - a symbolic link is copied verbatim (its target string unchanged) when the target is relative and
 *   resolves, in the checkout, to an existing path inside the repository; any other link (absolute,
 *   leaving the repository, dangling, or a loop) is left out;
 * - regular files over `maxFileBytes` (apparent size; default 64 MiB) are left out: a sparse 1 GiB
 *   file would cost 1 GiB of real disk per task, and no unit test needs such a file;
 * - FIFOs, sockets and devices are left out;
 * - folders in `skipNames` (history, build products) are left out wherever they are;
 * - a path longer than `MAX_COPIED_PATH_BYTES` refuses the whole copy (RepositoryCopyError): see there.
 */
export const MAX_COPIED_FILE_BYTES = 64 * 1024 ** 2;

/**
 * The longest path (relative to the repository, in bytes) a copy takes. A folder thousands of levels
 * deep makes paths longer than the system takes (PATH_MAX, 4096 bytes on Linux): the copy, every tool
 * the phases run, and removing the sandbox afterwards would each fail half-way (ENAMETOOLONG). Half of
 * PATH_MAX leaves room for the sandbox's own place (a memory folder, a pool folder) and for what the
 * runners write under the copy; real repositories' longest paths are a few hundred bytes. Such a tree
 * is refused, not cut: a copy without part of the repository would be scored as if it were whole.
 */
export const MAX_COPIED_PATH_BYTES = 2048;

/** A repository that cannot be copied into a sandbox (a path too long): its task's verdict, never the run's end. */
export class RepositoryCopyError extends Error {}

export interface CopyOptions {
  skipNames?: ReadonlySet<string>;
  maxFileBytes?: number;
}

export interface CopyReport {
  /** Paths (relative to the repository, '/'-separated) left out, with why. */
  skipped: Array<{ path: string; reason: string }>;
}

function inside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Why a link may not be copied, or null when it may (see the rules above). */
function linkRefusal(realRoot: string, linkPath: string, target: string): string | null {
  if (path.isAbsolute(target)) return `symbolic link with an absolute target (${target})`;
  let resolved: string;
  try {
    resolved = fs.realpathSync.native(linkPath);
  } catch {
    return `symbolic link that does not resolve (${target})`;
  }
  return inside(realRoot, resolved) ? null : `symbolic link leaving the repository (${target})`;
}

/** Copies `source` (a checkout) into the existing, empty folder `target`. */
export function copyRepository(source: string, target: string, options: CopyOptions = {}): CopyReport {
  const skipNames = options.skipNames ?? new Set<string>();
  const maxFileBytes = options.maxFileBytes ?? MAX_COPIED_FILE_BYTES;
  const realRoot = fs.realpathSync.native(source);
  const skipped: CopyReport['skipped'] = [];
  const dirTimes: Array<[string, fs.Stats]> = [];

  const walk = (srcDir: string, dstDir: string, relDir: string): void => {
    for (const entry of fs.readdirSync(srcDir, { withFileTypes: true })) {
      if (skipNames.has(entry.name)) continue;
      const src = path.join(srcDir, entry.name);
      const dst = path.join(dstDir, entry.name);
      const rel = relDir ? `${relDir}/${entry.name}` : entry.name;
      // Checked before anything is made at that path: the partial copy stays removable.
      const bytes = Buffer.byteLength(rel);
      if (bytes > MAX_COPIED_PATH_BYTES) {
        throw new RepositoryCopyError(
          `the repository cannot be copied into a sandbox: a path in it is longer than the ${MAX_COPIED_PATH_BYTES}-byte limit for copied paths (${rel.slice(0, 40)}…, ${rel.split('/').length} folders deep where it passes the limit)`,
        );
      }
      const st = fs.lstatSync(src);
      if (st.isSymbolicLink()) {
        const linkTarget = fs.readlinkSync(src);
        const refusal = linkRefusal(realRoot, src, linkTarget);
        if (refusal) skipped.push({ path: rel, reason: refusal });
        else fs.symlinkSync(linkTarget, dst);
      } else if (st.isDirectory()) {
        // Owner-writable while filling it; its own mode is set once its entries are in.
        fs.mkdirSync(dst, { mode: 0o700 });
        walk(src, dst, rel);
        dirTimes.push([dst, st]);
      } else if (st.isFile()) {
        if (st.size > maxFileBytes) {
          skipped.push({ path: rel, reason: `file of ${st.size} bytes, over the ${maxFileBytes}-byte limit for copied files` });
          continue;
        }
        fs.copyFileSync(src, dst, fs.constants.COPYFILE_EXCL);
        fs.chmodSync(dst, st.mode & 0o7777);
        fs.utimesSync(dst, st.atime, st.mtime);
      } else {
        skipped.push({ path: rel, reason: 'not a regular file, folder or link (FIFO, socket or device)' });
      }
    }
  };
  walk(source, target, '');
  // Folder modes and times last: filling a folder changes its mtime (build tools compare times).
  for (const [dst, st] of dirTimes) {
    fs.chmodSync(dst, st.mode & 0o7777);
    fs.utimesSync(dst, st.atime, st.mtime);
  }
  return { skipped };
}
