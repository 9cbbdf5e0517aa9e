import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export class GitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GitError';
  }
}

/** Runs git; a failure carries git's own words, which say what went wrong better than we could. */
export function git(args: readonly string[], opts: { input?: string; maxBuffer?: number } = {}): string {
  try {
    return execFileSync('git', args, {
      encoding: 'utf8',
      input: opts.input,
      maxBuffer: opts.maxBuffer ?? 512 * 1024 * 1024,
      stdio: ['pipe', 'pipe', 'pipe'],
      // A clone of a URL must never stop to ask for a password on a terminal nobody watches.
      env: { ...process.env, GIT_TERMINAL_PROMPT: '0' },
    });
  } catch (e) {
    const err = e as { stderr?: string | Buffer; message?: string; code?: string };
    if (err.code === 'ENOENT') throw new GitError('git is not installed (needed to read repository histories)');
    const said = String(err.stderr ?? '').trim().split('\n').filter(Boolean).slice(-3).join(' / ');
    throw new GitError(`git ${args.filter((a) => !a.startsWith('--git-dir=')).slice(0, 3).join(' ')} failed: ${said || err.message}`);
  }
}

/** A URL or scp-like address (`git@host:owner/repo`), as opposed to a folder on this machine. */
export function isGitUrl(source: string): boolean {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) return true;
  return /^[\w.-]+@[\w.-]+:/.test(source) && !fs.existsSync(source);
}

export function defaultGitCache(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'xrepotest', 'git');
}

export function cachePathFor(cacheRoot: string, url: string): string {
  const tail = url.replace(/\.git$/, '').split(/[/:]/).filter(Boolean).slice(-2).join('-').replace(/[^\w.-]/g, '_');
  const tag = createHash('sha1').update(url).digest('hex').slice(0, 10);
  return path.join(cacheRoot, `${tail || 'repo'}-${tag}.git`);
}

export interface BareClone {
  gitDir: string;
  /** Set when an existing clone could not be brought up to date (its history is used as it is). */
  warning?: string;
  cloned: boolean;
}

/**
 * A bare clone of `url` in the cache, cloned once (into a temporary name, then renamed, so a broken
 * clone is never used) and brought up to date on later calls when `update` is set.
 */
export function ensureBareClone(url: string, cacheRoot: string, update: boolean): BareClone {
  const gitDir = cachePathFor(cacheRoot, url);
  if (fs.existsSync(path.join(gitDir, 'HEAD'))) {
    if (!update) return { gitDir, cloned: false };
    try {
      git([`--git-dir=${gitDir}`, 'fetch', '--quiet', '--prune', 'origin', '+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*']);
      return { gitDir, cloned: false };
    } catch (e) {
      return { gitDir, cloned: false, warning: `could not update the cached clone ${gitDir} (${(e as Error).message}); using its history as it is` };
    }
  }
  fs.mkdirSync(cacheRoot, { recursive: true });
  const tmp = `${gitDir}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  try {
    git(['clone', '--bare', '--quiet', url, tmp]);
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw new GitError(`cannot clone ${url}: ${(e as Error).message}`);
  }
  fs.renameSync(tmp, gitDir);
  return { gitDir, cloned: true };
}

export interface LocalRepository {
  gitDir: string;
  /** The folder given, when it has a work tree; null for a bare repository. */
  workTree: string | null;
  /** Where the folder given sits inside its repository ('' at the root, else ending in '/'). */
  prefix: string;
  /** `origin`'s URL, or the folder's absolute path. */
  url: string;
}

export function openLocalRepository(dir: string): LocalRepository {
  const abs = path.resolve(dir);
  if (!fs.existsSync(abs)) throw new GitError(`${dir}: no such folder`);
  let gitDir: string;
  try {
    gitDir = git(['-C', abs, 'rev-parse', '--absolute-git-dir']).trim();
  } catch {
    throw new GitError(`${dir}: not a git repository (pin reads its history; give a checkout or a git URL)`);
  }
  const bare = git(['-C', abs, 'rev-parse', '--is-bare-repository']).trim() === 'true';
  const prefix = bare ? '' : git(['-C', abs, 'rev-parse', '--show-prefix']).trim();
  let url = abs;
  try {
    url = git(['-C', abs, 'config', '--get', 'remote.origin.url']).trim() || abs;
  } catch {
    // no origin: the folder is its own address
  }
  return { gitDir, workTree: bare ? null : abs, prefix, url };
}

export function headOf(dir: string): string | null {
  try {
    return git(['-C', dir, 'rev-parse', 'HEAD']).trim();
  } catch {
    return null;
  }
}

/**
 * A working copy of `commit` at `dest`, cloned from a local repository (hard links, no network). An
 * existing copy is moved to the commit; git refuses, and says so, if it has local changes.
 */
export function materializeCheckout(gitDir: string, url: string, dest: string, commit: string): void {
  if (!fs.existsSync(dest)) {
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    git(['clone', '--quiet', '--no-checkout', gitDir, dest]);
    git(['-C', dest, 'remote', 'set-url', 'origin', url]);
  } else if (headOf(dest) === commit) return;
  else git(['-C', dest, 'fetch', '--quiet', gitDir, '+refs/heads/*:refs/remotes/xrepotest-cache/*']);
  git(['-C', dest, '-c', 'advice.detachedHead=false', 'checkout', '--quiet', '--detach', commit]);
}
