import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TaskRecord } from '../tasks/record';
import { pathInRepository } from '../tasks/task-path';
import { copyRepository, type CopyReport } from './copy-repository';
import { pidAlive, pidNamespaceId } from '../util/process-namespace';

/** Folders never copied into a sandbox: history, build products, our own scratch space. */
export const NOT_COPIED = new Set(['.git', '.hg', '.svn', 'target', 'node_modules', '.xrt', 'coverage', '.phpunit.cache']);

export class CheckoutMismatchError extends Error {}

/** A disposable copy of a repository with the focal file where the task says it is. */
export interface Sandbox {
  /** The copy's root (absolute, real path: the same inside containers). */
  dir: string;
  /** Our scratch folder inside the copy: reports, caches, home, tmp. */
  xrt: string;
  /**
   * Where runners write reports and coverage (`.xrt/out-<random>`), a name the test cannot predict:
   * `.xrt` itself is not listable, and read-only during the test phase (local executor).
   */
  out: string;
  /** The nearest folder at or above the focal file holding the language's manifest, else `dir`. */
  projectRoot: string;
  /** The focal file in the copy. */
  focalFile: string;
  /** The focal file relative to the repository root, '/'-separated. */
  focalRelPath: string;
  /**
   * The focal file relative to `dir` with the copy's own links resolved (`pkg -> pkg-real`), fixed
   * while only trusted code has run: what the engine reads and writes after a test ran, never
   * following a link a test may have made since.
   */
  focalInCopy: string;
  /** What the copy left out (links leaving the repository, huge files, FIFOs), with why. */
  skipped: CopyReport['skipped'];
}

/** A new report folder name under `.xrt` that the test cannot guess. */
export function newOutName(): string {
  return `out-${randomBytes(12).toString('hex')}`;
}

/** The focal file's path inside its repository: `file_path` without the repository folder in front. */
export function focalPathInRepo(task: TaskRecord): string {
  // The one check of a dataset's path (src/engine/tasks/task-path.ts): throws on '..', absolute, empty segments.
  return pathInRepository(task.file_path);
}

/**
 * Copies the repository into a new temporary folder and checks that the focal file there is exactly
 * the task's `file_content`: running a test against other code than the task's would score the wrong
 * thing silently.
 */
/** Our PID namespace for sandbox names; '0' where it cannot be read (no sandbox then looks like ours to reap by pid). */
export function pidNamespace(): string {
  return pidNamespaceId() ?? '0';
}

const reaped = new Set<string>();

/**
 * `xrt-sandbox-ns<pid namespace>-<pid>-…`: only a sandbox of our own namespace can be judged by its pid.
 * The `ns` keeps older versions (which read the first number as the pid) from reaping these.
 */
const SANDBOX_NAME = /^xrt-(?:sandbox|trash)-ns(\d+)-(\d+)-/;

/**
 * Removes sandboxes left by runs that were killed (SIGKILL leaves no chance to clean up): their names
 * carry the owner's PID namespace and pid, and an owner of our namespace that is gone will not come
 * back for them. Sandboxes of other namespaces (a container or another sandbox sharing /tmp), and
 * those named in the older format without a namespace, are never touched. Once per process.
 */
export function reapStaleSandboxes(parent = os.tmpdir()): number {
  if (reaped.has(parent)) return 0;
  reaped.add(parent);
  const ns = pidNamespace();
  let removed = 0;
  for (const name of fs.readdirSync(parent)) {
    const m = SANDBOX_NAME.exec(name);
    if (!m || m[1] !== ns || Number(m[2]) === process.pid || pidAlive(Number(m[2]))) continue;
    const stale = path.join(parent, name);
    removeSandboxDir(stale);
    if (!fs.existsSync(stale)) removed++;
  }
  return removed;
}

/**
 * `at`: the sandbox's exact path (inside `parent`, not existing yet), where an environment shows every
 * slot the same one (a reused container); else a new folder of `parent` with a name no one can guess.
 */
export function createSandbox(repoDir: string, task: TaskRecord, manifests: readonly string[], parent = os.tmpdir(), at?: string): Sandbox {
  reapStaleSandboxes(parent);
  const focalRelPath = focalPathInRepo(task);
  const original = path.join(repoDir, focalRelPath);
  if (!fs.existsSync(original)) {
    throw new CheckoutMismatchError(`${task.file_path}: ${original} does not exist in the checkout ${repoDir}`);
  }
  if (fs.readFileSync(original, 'utf8') !== task.file_content) {
    throw new CheckoutMismatchError(
      `${task.file_path}: the checkout at ${repoDir} differs from the task's file_content (another commit?); refusing to run against other code`,
    );
  }
  if (at !== undefined && path.dirname(at) !== parent) throw new Error(`a sandbox's exact path must lie in its parent folder: ${at}`);
  if (at !== undefined) fs.mkdirSync(at, { mode: 0o700 });
  const dir = fs.realpathSync(at ?? fs.mkdtempSync(path.join(parent, `xrt-sandbox-ns${pidNamespace()}-${process.pid}-`)));
  try {
    const { skipped } = copyRepository(repoDir, dir, { skipNames: NOT_COPIED });
    const focalFile = path.join(dir, focalRelPath);
    // The focal file is written (Rust) and rewritten (mutants): it must be a plain file of the copy.
    if (!fs.lstatSync(focalFile, { throwIfNoEntry: false })?.isFile()) {
      throw new CheckoutMismatchError(`${task.file_path}: the focal file is not a regular file in the copy (a symbolic link?); refusing to run`);
    }
    const real = fs.realpathSync(focalFile);
    const focalInCopy = path.relative(dir, real).split(path.sep).join('/');
    if (!focalInCopy || focalInCopy.startsWith('..') || path.isAbsolute(focalInCopy)) {
      throw new CheckoutMismatchError(`${task.file_path}: the focal file resolves outside the copy (${real}); refusing to run`);
    }
    const xrt = path.join(dir, '.xrt');
    const out = path.join(xrt, newOutName());
    for (const sub of ['home', 'tmp', path.basename(out)]) fs.mkdirSync(path.join(xrt, sub), { recursive: true });
    // Not listable: a test cannot find the report folder by reading .xrt (it could still chmod it back
    // where the copy is writable to it; during the local test phase it is read-only).
    fs.chmodSync(xrt, 0o311);
    return { dir, xrt, out, projectRoot: findProjectRoot(dir, focalFile, manifests), focalFile, focalRelPath, focalInCopy, skipped };
  } catch (e) {
    removeSandboxDir(dir);
    throw e;
  }
}

export function findProjectRoot(root: string, file: string, manifests: readonly string[]): string {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    if (manifests.some((m) => fs.existsSync(path.join(dir, m)))) return dir;
    if (dir === root || path.dirname(dir) === dir) return root;
  }
}

/** Removals still running in the background (`removeSandbox`). */
const removals = new Set<Promise<void>>();

/**
 * Removes a sandbox. At once, its folder goes by one rename to `xrt-trash-ns<ns>-<pid>-…` in the
 * temporary folder (a reused container's pool folder is then empty, nothing of the slot is left at its
 * path); its files are deleted in the background: a just-built target folder takes 0.1–0.2 s to
 * delete on ext4 (357 files, 32 MB: Rust's fixture), which the slot's result need not wait for.
 * A sandbox on another file system (in memory) goes to a trash beside it; where no rename can be made,
 * it is removed now. A process that exits
 * before the background removal ends leaves the trash to the next run's reaping (its pid is dead).
 */
export function removeSandbox(sandbox: Sandbox): void {
  const trashName = `xrt-trash-ns${pidNamespace()}-${process.pid}-${randomBytes(6).toString('hex')}`;
  // A sandbox named like one (not one at a fixed path in a pool folder that a container sees) may
  // also go beside itself: a sandbox in memory (memory-folder.ts) is on another file system than the
  // temporary folder, and its parent's reaping knows the trash's name too.
  const places = [os.tmpdir(), ...(SANDBOX_NAME.test(path.basename(sandbox.dir)) ? [path.dirname(sandbox.dir)] : [])];
  let trash: string | null = null;
  for (const place of places) {
    try {
      fs.renameSync(sandbox.dir, path.join(place, trashName));
      trash = path.join(place, trashName);
      break;
    } catch {
      /* another file system: try the next place */
    }
  }
  if (!trash) {
    removeSandboxDir(sandbox.dir);
    return;
  }
  const removal = removeSandboxDirInBackground(trash).finally(() => removals.delete(removal));
  removals.add(removal);
}

/** Waits for the background removals of sandboxes (executors' `close`, before a process exits). */
export async function sandboxRemovalsDone(): Promise<void> {
  while (removals.size) await Promise.all([...removals]);
}

async function removeSandboxDirInBackground(dir: string): Promise<void> {
  try {
    const xrt = path.join(dir, '.xrt');
    if ((await fs.promises.lstat(xrt).catch(() => null))?.isDirectory()) await fs.promises.chmod(xrt, 0o700);
    await fs.promises.rm(dir, { recursive: true, force: true });
  } catch {
    // Folders a test made unremovable (mode 000): the synchronous way fixes modes first.
    removeSandboxDir(dir);
  }
}

/**
 * Removes a sandbox (links are removed, never followed). A test may have left folders it cannot be
 * removed from (mode 000), or a tree deeper than any path the system takes (ENAMETOOLONG: fs.rmSync
 * walks by whole paths): those are made removable (flattenForRemoval) and removal retried; what still
 * fails stays for the next run's reaping rather than failing this one.
 */
function removeSandboxDir(dir: string): void {
  try {
    // Our own .xrt is not listable (0311); removing it needs its listing (without root's override).
    const xrt = path.join(dir, '.xrt');
    if (fs.lstatSync(xrt, { throwIfNoEntry: false })?.isDirectory()) fs.chmodSync(xrt, 0o700);
    fs.rmSync(dir, { recursive: true, force: true });
  } catch {
    try {
      flattenForRemoval(dir);
      fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      /* left for reapStaleSandboxes */
    }
  }
}

/** A folder's path past this many bytes is moved up before going deeper: far below PATH_MAX (4096). */
const FLAT_PATH_BYTES = 1024;

/**
 * Makes every folder under `root` removable by whole paths: each is made owner-writable and listable,
 * and any folder whose path grows past FLAT_PATH_BYTES is first moved (one rename, same file system)
 * to `root` under a new name, so no path this walk or fs.rmSync then uses is longer than about
 * FLAT_PATH_BYTES + two names. Links are never followed (a Dirent of a link is not a folder).
 */
function flattenForRemoval(root: string): void {
  fs.chmodSync(root, 0o700);
  const folders = [root];
  while (folders.length) {
    const d = folders.pop()!;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      let p = path.join(d, e.name);
      if (Buffer.byteLength(p) > FLAT_PATH_BYTES) {
        // A name the tree cannot have taken already (a test may have made any name in the root).
        const up = path.join(root, `.xrt-flat-${randomBytes(8).toString('hex')}`);
        fs.renameSync(p, up);
        p = up;
      }
      fs.chmodSync(p, 0o700);
      folders.push(p);
    }
  }
}
