import * as fs from 'node:fs';

/**
 * The engine's only way into a sandbox once untrusted code has run there (docs/execution.md, "The
 * sandbox"). A test may have replaced any file or folder of its copy with a symbolic link to a host
 * file, a FIFO that blocks whoever opens it, a folder, or a file of many gigabytes. So every path is
 * walked one component at a time through file descriptors, never following a link; only regular
 * files are read or written, opened without blocking, and reads are capped.
 *
 * Linux only (it resolves through /proc/self/fd); the engine's executors are Linux only as well.
 */

/** O_PATH: a descriptor naming a file without opening it (not in fs.constants; Linux, all common arches). */
const O_PATH = 0o10000000;
const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY, O_TRUNC } = fs.constants;

/** Default read cap: far above any honest report, far below what could exhaust memory. */
export const DEFAULT_MAX_READ_BYTES = 128 * 1024 ** 2;

/** A path in a sandbox the engine refuses to use, with why in words. */
export class SandboxFileError extends Error {}

function via(fd: number, name: string): string {
  return `/proc/self/fd/${fd}/${name}`;
}

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    /* already closed */
  }
}

/** The '/'-separated components of a path relative to the sandbox root; anything that could leave it is refused. */
function components(rel: string): string[] {
  if (rel.startsWith('/')) throw new SandboxFileError(`${rel}: an absolute path where a path inside the sandbox was expected`);
  const parts = rel.split('/');
  for (const p of parts) {
    if (p === '' || p === '.' || p === '..') throw new SandboxFileError(`${rel}: empty, '.' or '..' path component`);
  }
  return parts;
}

function describeError(rel: string, e: unknown): SandboxFileError {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ELOOP' || code === 'ENOTDIR') return new SandboxFileError(`${rel}: a symbolic link or non-folder on the way (the test replaced part of its sandbox)`);
  return new SandboxFileError(`${rel}: ${(e as Error).message}`);
}

/**
 * A descriptor (O_PATH) of the folder holding the path's last component, or null when a folder on the
 * way does not exist. The caller closes it.
 */
function openParent(root: string, parts: string[], rel: string): number | null {
  let fd: number;
  try {
    fd = fs.openSync(root, O_PATH | O_DIRECTORY);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw describeError(rel, e);
  }
  for (const part of parts.slice(0, -1)) {
    let next: number;
    try {
      next = fs.openSync(via(fd, part), O_PATH | O_DIRECTORY | O_NOFOLLOW);
    } catch (e) {
      closeQuietly(fd);
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw describeError(rel, e);
    }
    closeQuietly(fd);
    fd = next;
  }
  return fd;
}

/** A descriptor (O_PATH) of the path itself, not following a link, or null when it does not exist. */
function openLeaf(root: string, rel: string): { parent: number; leaf: number | null; name: string } | null {
  const parts = components(rel);
  const parent = openParent(root, parts, rel);
  if (parent === null) return null;
  const name = parts[parts.length - 1];
  try {
    return { parent, leaf: fs.openSync(via(parent, name), O_PATH | O_NOFOLLOW), name };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { parent, leaf: null, name };
    closeQuietly(parent);
    throw describeError(rel, e);
  }
}

function kindOf(st: fs.Stats): string {
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/** Throws unless the descriptor names a regular file (checked on the descriptor: no race with renames). */
function requireRegular(fd: number, rel: string): fs.Stats {
  const st = fs.fstatSync(fd);
  if (!st.isFile()) throw new SandboxFileError(`${rel} is ${kindOf(st)}, not a regular file (the test replaced it)`);
  return st;
}

/** The file's bytes, or null when it does not exist; throws SandboxFileError for links, FIFOs, folders, or files over `maxBytes`. */
export function readSandboxBytes(root: string, rel: string, maxBytes = DEFAULT_MAX_READ_BYTES): Buffer | null {
  const opened = openLeaf(root, rel);
  if (!opened) return null;
  const { parent, leaf } = opened;
  closeQuietly(parent);
  if (leaf === null) return null;
  let fd: number | null = null;
  try {
    const st = requireRegular(leaf, rel);
    if (st.size > maxBytes) throw new SandboxFileError(`${rel} is ${st.size} bytes, over the ${maxBytes}-byte limit for a file the engine reads`);
    // Reopened through the checked descriptor: the very file that was checked, never a FIFO.
    fd = fs.openSync(`/proc/self/fd/${leaf}`, O_RDONLY | O_NONBLOCK);
    const chunks: Buffer[] = [];
    let total = 0;
    const buf = Buffer.alloc(Math.min(Math.max(st.size, 4096), 1024 * 1024));
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      total += n;
      if (total > maxBytes) throw new SandboxFileError(`${rel} grew past the ${maxBytes}-byte limit while being read`);
      chunks.push(Buffer.from(buf.subarray(0, n)));
    }
    return Buffer.concat(chunks, total);
  } finally {
    if (fd !== null) closeQuietly(fd);
    closeQuietly(leaf);
  }
}

/** As readSandboxBytes, as UTF-8 text. */
export function readSandboxFile(root: string, rel: string, maxBytes = DEFAULT_MAX_READ_BYTES): string | null {
  return readSandboxBytes(root, rel, maxBytes)?.toString('utf8') ?? null;
}

/**
 * Writes (creates or replaces the content of) a regular file. A link, FIFO, folder, or a file with
 * other hard links (a second name the engine did not make) at the path is refused, never written through.
 */
export function writeSandboxFile(root: string, rel: string, data: string | Buffer, mode = 0o644): void {
  const opened = openLeaf(root, rel);
  if (!opened) throw new SandboxFileError(`${rel}: its folder does not exist in the sandbox`);
  const { parent, leaf, name } = opened;
  let fd: number | null = null;
  try {
    if (leaf === null) {
      // O_EXCL: whatever appeared meanwhile (a link made by a process still running) makes this fail.
      fd = fs.openSync(via(parent, name), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK, mode);
    } else {
      const st = requireRegular(leaf, rel);
      if (st.nlink > 1) throw new SandboxFileError(`${rel} has ${st.nlink} hard links; the engine does not write a file shared with another path`);
      fd = fs.openSync(`/proc/self/fd/${leaf}`, O_WRONLY | O_TRUNC | O_NONBLOCK);
    }
    fs.writeSync(fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
  } catch (e) {
    throw e instanceof SandboxFileError ? e : describeError(rel, e);
  } finally {
    if (fd !== null) closeQuietly(fd);
    if (leaf !== null) closeQuietly(leaf);
    closeQuietly(parent);
  }
}

/** Renames within the sandbox; neither path's folders may be links, and the target must not exist. */
export function renameInSandbox(root: string, fromRel: string, toRel: string): void {
  const from = openLeaf(root, fromRel);
  if (!from || from.leaf === null) {
    if (from) closeQuietly(from.parent);
    throw new SandboxFileError(`${fromRel}: does not exist in the sandbox`);
  }
  closeQuietly(from.leaf);
  let to: ReturnType<typeof openLeaf> = null;
  try {
    to = openLeaf(root, toRel);
    if (!to) throw new SandboxFileError(`${toRel}: its folder does not exist in the sandbox`);
    if (to.leaf !== null) throw new SandboxFileError(`${toRel}: already exists`);
    // rename(2) does not follow a link in the last component: a link is moved, not its target.
    fs.renameSync(via(from.parent, from.name), via(to.parent, to.name));
  } catch (e) {
    throw e instanceof SandboxFileError ? e : describeError(fromRel, e);
  } finally {
    closeQuietly(from.parent);
    if (to) {
      closeQuietly(to.parent);
      if (to.leaf !== null) closeQuietly(to.leaf);
    }
  }
}

/** Makes a folder (its parent must exist); an existing entry of that name is refused. */
export function mkdirInSandbox(root: string, rel: string, mode = 0o755): void {
  makeDir(root, rel, mode, false);
}

/** Makes a folder unless a folder (not a link to one) is already there. */
export function ensureDirInSandbox(root: string, rel: string, mode = 0o755): void {
  makeDir(root, rel, mode, true);
}

function makeDir(root: string, rel: string, mode: number, existingFolderIsFine: boolean): void {
  const opened = openLeaf(root, rel);
  if (!opened) throw new SandboxFileError(`${rel}: its folder does not exist in the sandbox`);
  try {
    if (opened.leaf !== null) {
      if (!existingFolderIsFine) throw new SandboxFileError(`${rel}: already exists`);
      const st = fs.fstatSync(opened.leaf);
      if (!st.isDirectory()) throw new SandboxFileError(`${rel} is ${kindOf(st)}, not a folder (the test replaced it)`);
      return;
    }
    fs.mkdirSync(via(opened.parent, opened.name), { mode });
  } catch (e) {
    throw e instanceof SandboxFileError ? e : describeError(rel, e);
  } finally {
    if (opened.leaf !== null) closeQuietly(opened.leaf);
    closeQuietly(opened.parent);
  }
}
/** Names in a folder of the sandbox (empty when it does not exist); the folder and its parents must not be links. */
export function listSandboxDir(root: string, rel: string): string[] {
  const opened = openLeaf(root, rel);
  if (!opened || opened.leaf === null) {
    if (opened) closeQuietly(opened.parent);
    return [];
  }
  try {
    const st = fs.fstatSync(opened.leaf);
    if (!st.isDirectory()) throw new SandboxFileError(`${rel} is ${kindOf(st)}, not a folder (the test replaced it)`);
    return fs.readdirSync(`/proc/self/fd/${opened.leaf}`);
  } finally {
    closeQuietly(opened.leaf);
    closeQuietly(opened.parent);
  }
}
