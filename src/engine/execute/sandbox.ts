import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TaskRecord } from '../tasks/record';
import { pathInRepository } from '../tasks/task-path';

/** Folders never copied into a sandbox: history, build products, our own scratch space. */
const NOT_COPIED = new Set(['.git', '.hg', '.svn', 'target', 'node_modules', '.xrt', 'coverage', '.phpunit.cache']);

export class CheckoutMismatchError extends Error {}

/** A disposable copy of a repository with the focal file where the task says it is. */
export interface Sandbox {
  /** The copy's root (absolute, real path: the same inside containers). */
  dir: string;
  /** Our scratch folder inside the copy: reports, caches, home, tmp. */
  xrt: string;
  /** The nearest folder at or above the focal file holding the language's manifest, else `dir`. */
  projectRoot: string;
  /** The focal file in the copy. */
  focalFile: string;
  /** The focal file relative to the repository root, '/'-separated. */
  focalRelPath: string;
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
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const reaped = new Set<string>();

/**
 * Removes sandboxes left by runs that were killed (SIGKILL leaves no chance to clean up): their names
 * carry the owner's pid, and an owner that is gone will not come back for them. Once per process.
 */
export function reapStaleSandboxes(parent = os.tmpdir()): number {
  if (reaped.has(parent)) return 0;
  reaped.add(parent);
  let removed = 0;
  for (const name of fs.readdirSync(parent)) {
    const m = /^xrt-sandbox-(\d+)-/.exec(name);
    if (!m || Number(m[1]) === process.pid || pidAlive(Number(m[1]))) continue;
    fs.rmSync(path.join(parent, name), { recursive: true, force: true });
    removed++;
  }
  return removed;
}

export function createSandbox(repoDir: string, task: TaskRecord, manifests: readonly string[], parent = os.tmpdir()): Sandbox {
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
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(parent, `xrt-sandbox-${process.pid}-`)));
  try {
    fs.cpSync(repoDir, dir, {
      recursive: true,
      preserveTimestamps: true,
      filter: (src) => !NOT_COPIED.has(path.basename(src)) || src === repoDir,
    });
    const xrt = path.join(dir, '.xrt');
    for (const sub of ['home', 'tmp']) fs.mkdirSync(path.join(xrt, sub), { recursive: true });
    const focalFile = path.join(dir, focalRelPath);
    return { dir, xrt, projectRoot: findProjectRoot(dir, focalFile, manifests), focalFile, focalRelPath };
  } catch (e) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

export function findProjectRoot(root: string, file: string, manifests: readonly string[]): string {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    if (manifests.some((m) => fs.existsSync(path.join(dir, m)))) return dir;
    if (dir === root || path.dirname(dir) === dir) return root;
  }
}

export function removeSandbox(sandbox: Sandbox): void {
  fs.rmSync(sandbox.dir, { recursive: true, force: true });
}
