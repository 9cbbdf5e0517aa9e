import * as path from 'node:path';
import { openHardenedGit, type HardenedGit } from '../util/hardened-git';
import type { RepositoryRef } from './record';

/**
 * The repository's name, remote and HEAD, read with git where the folder is a checkout. The checkout
 * may be anyone's: git runs without its configuration (util/hardened-git.ts), and the remote's URL is
 * read from that configuration as data.
 */
export function describeRepository(dir: string): RepositoryRef {
  const abs = path.resolve(dir);
  let top: string | null = null;
  let commit: string | null = null;
  let url: string | null = null;
  try {
    const git = openHardenedGit(abs);
    try {
      top = git.top;
      // A folder inside a bigger checkout (a fixture in this project) is pinned by that checkout's HEAD.
      commit = readHead(git);
      url = git.repositoryConfig('^remote\\.origin\\.url$').get('remote.origin.url') || null;
    } finally {
      git.close();
    }
  } catch {
    /* not a git checkout (or not the user's), or git is not installed: the repository is its path */
  }
  const ref: RepositoryRef = { name: path.basename(abs), url: url ?? abs, commit, path: abs };
  if (top && path.resolve(top) !== abs) ref.subdir = path.relative(top, abs).split(path.sep).join('/');
  return ref;
}

/** HEAD's commit, or null when there is none yet. */
function readHead(git: HardenedGit): string | null {
  try {
    return git.run(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']).toString('utf8').trim() || null;
  } catch {
    return null;
  }
}

/** The commit a checkout is at, or null (not a checkout, no commit yet, not the user's). */
export function checkoutHead(dir: string): string | null {
  try {
    const git = openHardenedGit(dir);
    try {
      return readHead(git);
    } finally {
      git.close();
    }
  } catch {
    return null;
  }
}
