import * as fs from 'node:fs';
import * as path from 'node:path';
import { listSandboxDir, SandboxFileError } from '../../execute/safe-fs';

/**
 * Paths named in a repository's composer.json (classmap, files, PSR-4/PSR-0 folders) are attacker
 * controlled: an absolute path, `..`, a link out of the repository, or a tree of millions of files.
 * A path is used only when it is relative, has no `..`, and every component inside the project is a
 * real file or folder (no link anywhere on the way: the safe-fs walk); anything else is refused with
 * a note. Composer itself would follow such paths; a unit test of the project never needs them.
 */

/** A composer.json path as '/'-separated components relative to the project, or why it is refused. */
export function projectRelative(raw: unknown): { rel: string } | { refused: string } {
  if (typeof raw !== 'string') return { refused: 'not a string' };
  if (raw.includes('\0')) return { refused: 'a NUL byte in the path' };
  const p = raw.replace(/\\/g, '/');
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p)) return { refused: 'an absolute path' };
  const parts = p.split('/').filter((c) => c !== '' && c !== '.');
  if (parts.some((c) => c === '..')) return { refused: "'..' leaves the project" };
  if (parts[0] === 'vendor') return { refused: 'under vendor/, which is not installed' };
  return { rel: parts.join('/') };
}

export type EntryKind = 'file' | 'dir' | 'link' | 'other' | null;

/**
 * What is at a project path, never following a link: every folder on the way is walked by safe-fs
 * (a link there is refused), and the last component is looked at with lstat.
 */
export function kindInProject(root: string, rel: string): EntryKind {
  if (rel === '') return 'dir';
  const parent = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '';
  try {
    if (parent !== '') listSandboxDir(root, parent); // throws when a folder on the way is a link
  } catch (e) {
    if (e instanceof SandboxFileError) return 'link';
    throw e;
  }
  try {
    const st = fs.lstatSync(path.join(root, rel));
    return st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other';
  } catch {
    return null;
  }
}

/** Names in a project folder; empty when it is missing or reached through a link. */
export function namesInProjectDir(root: string, rel: string): string[] {
  if (rel === '') {
    try {
      return fs.lstatSync(root).isDirectory() ? fs.readdirSync(root) : [];
    } catch {
      return [];
    }
  }
  try {
    return listSandboxDir(root, rel);
  } catch (e) {
    if (e instanceof SandboxFileError) return [];
    throw e;
  }
}
