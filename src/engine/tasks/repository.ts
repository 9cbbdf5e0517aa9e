import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import type { RepositoryRef } from './record';

function git(dir: string, args: string[]): string | null {
  try {
    return execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || null;
  } catch {
    return null; // not a git checkout, or git is not installed: the repository is its path
  }
}

/** The repository's name, remote and HEAD, read with git where the folder is a checkout. */
export function describeRepository(dir: string): RepositoryRef {
  const abs = path.resolve(dir);
  const top = git(abs, ['rev-parse', '--show-toplevel']);
  // A folder inside a bigger checkout (a fixture in this project) is pinned by that checkout's HEAD.
  const commit = top ? git(abs, ['rev-parse', 'HEAD']) : null;
  const url = (top && git(abs, ['config', '--get', 'remote.origin.url'])) || abs;
  const ref: RepositoryRef = { name: path.basename(abs), url, commit, path: abs };
  if (top && path.resolve(top) !== abs) ref.subdir = path.relative(top, abs).split(path.sep).join('/');
  return ref;
}
