import * as fs from 'node:fs';
import * as path from 'node:path';

export const LOCK_FILE = 'xrepotest-dataset.lock.json';

export interface LockedFile {
  /** The release's path inside the hub repository, and inside the dataset folder. */
  path: string;
  size: number;
  sha256: string;
}

/** What one dataset folder holds: the revision asked for, the commit it resolved to, and each file verified. */
export interface DatasetLock {
  dataset: string;
  revision: string;
  /** null only when the server never said which commit it served (a plain mirror). */
  commit: string | null;
  files: LockedFile[];
}

export function lockPath(dir: string): string {
  return path.join(dir, LOCK_FILE);
}

export function readLock(dir: string): DatasetLock | null {
  const file = lockPath(dir);
  if (!fs.existsSync(file)) return null;
  let lock: DatasetLock;
  try {
    lock = JSON.parse(fs.readFileSync(file, 'utf8')) as DatasetLock;
  } catch (e) {
    throw new Error(`${file}: not a readable lock file (${(e as Error).message}); delete it to fetch anew`);
  }
  const ok =
    lock && typeof lock.dataset === 'string' && typeof lock.revision === 'string' && Array.isArray(lock.files) &&
    lock.files.every((f) => typeof f?.path === 'string' && Number.isInteger(f.size) && /^[0-9a-f]{64}$/.test(f.sha256 ?? ''));
  if (!ok) throw new Error(`${file}: not a dataset lock file (needs dataset, revision, commit, files[{path,size,sha256}]); delete it to fetch anew`);
  return lock;
}

/** Written through a temporary file and a rename: a reader sees the old lock or the new one, never half. */
export function writeLock(dir: string, lock: DatasetLock): void {
  const file = lockPath(dir);
  const tmp = `${file}.${process.pid}.tmp`;
  const sorted: DatasetLock = { ...lock, files: [...lock.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) };
  fs.writeFileSync(tmp, JSON.stringify(sorted, null, 2) + '\n');
  fs.renameSync(tmp, file);
}
