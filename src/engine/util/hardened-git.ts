import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * git in a checkout that may be anyone's (`extract --changed-since`, the editor's "tests for my
 * changes", the regression check's base commit), with configuration the engine wrote and nothing else.
 *
 * A repository's own `.git/config` can name a program in more places than anyone can list: clean and
 * smudge filters and long-running filter processes (any driver name, chosen by `.gitattributes`),
 * textconv, external diffs, fsmonitor, hooks, pagers, editors, credential and askpass helpers, and the
 * ssh command of a partial clone's promisor remote, which git starts by itself when an object it needs
 * is missing ("lazy fetch"). Switching known keys off (`-c key=`, `--no-textconv`) cannot cover names
 * the attacker picks or keys a later git adds, and git has no switch that skips the repository's
 * configuration. So git never reads it: it runs on a shadow git folder, made per session in the
 * temporary folder, whose `config` the engine writes (the object format and a few data-only settings
 * copied over, each checked), with everything else — objects, refs, info/exclude, logs, the shallow
 * list — linked from the real folder (read-only use: HEAD and the index are copied, so nothing git
 * might write lands in the checkout's .git). With no configuration of the repository, an attribute
 * that names a driver names nothing, no hook folder exists, and a missing object is an error, never a
 * fetch. System and user configuration are off too (GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL), and the
 * inherited GIT_* variables are dropped, so nothing but this file decides what git does.
 *
 * The repository is found the way git finds it (a `.git` folder, or a `.git` file naming one, and a
 * linked worktree's `commondir`), and, as git itself would, refused when it is not the user's own.
 * What is left: git still parses the repository's objects, index and refs (its own formats, no
 * programs), bounded by a time limit so a planted FIFO deeper in .git cannot hang the engine.
 */
export class HardenedGitError extends Error {}

export interface HardenedGit {
  /** The working tree's top folder (as found from `dir`, never the repository's core.worktree). */
  top: string;
  /** Runs git in `dir` (the folder the session was opened on); `input` goes to its standard input. */
  run(args: string[], input?: string): Buffer;
  /** The values of the repository's own configuration whose keys match `keys` (a regular expression), read as data. */
  repositoryConfig(keys: string): Map<string, string>;
  /** Removes the shadow folder (never the links' targets). */
  close(): void;
}

/** A git command that takes longer than this is stopped: nothing the engine asks of git is that slow. */
const GIT_TIMEOUT_MS = 5 * 60_000;
/** Entries of a real git folder never linked into the shadow: the engine writes or copies these. */
const NOT_LINKED = new Set(['config', 'config.worktree', 'hooks', 'commondir', 'HEAD', 'index']);
/** Settings copied from the repository's configuration: data formats only, each value checked. */
const COPIED: Record<string, (v: string) => boolean> = {
  'extensions.objectformat': (v) => v === 'sha1' || v === 'sha256',
  'extensions.refstorage': (v) => v === 'files' || v === 'reftable',
  'core.ignorecase': isBool,
  'core.precomposeunicode': isBool,
};

function isBool(v: string): boolean {
  return /^(true|false|yes|no|on|off|1|0)$/i.test(v);
}

interface Found {
  /** The working tree's top folder. */
  top: string;
  /** The worktree's own git folder, and the common one (the same but for a linked worktree). */
  gitDir: string;
  commonDir: string;
  /** The `.git` file that named gitDir, if any. */
  gitFile: string | null;
}

/** The repository `dir` is in, found as git's discovery does (without reading any configuration). */
function discover(dir: string): Found {
  let at = path.resolve(dir);
  for (;;) {
    const dotGit = path.join(at, '.git');
    const st = fs.statSync(dotGit, { throwIfNoEntry: false });
    if (st?.isDirectory() && isGitDir(dotGit)) return withCommon(at, dotGit, null);
    if (st?.isFile()) {
      const m = /^gitdir: (.+?)\r?\n?$/.exec(fs.readFileSync(dotGit, 'utf8').slice(0, 4096));
      if (!m) throw new HardenedGitError(`${dotGit}: not a git folder link (no "gitdir: " line)`);
      const gitDir = path.resolve(at, m[1]);
      if (!isGitDir(gitDir)) throw new HardenedGitError(`${dotGit} names ${gitDir}, which is not a git folder`);
      return withCommon(at, gitDir, dotGit);
    }
    const up = path.dirname(at);
    if (up === at) throw new HardenedGitError(`${dir}: not in a git repository (or any parent folder)`);
    at = up;
  }
}

function isGitDir(p: string): boolean {
  return fs.existsSync(path.join(p, 'HEAD')) && (fs.existsSync(path.join(p, 'commondir')) || (fs.existsSync(path.join(p, 'objects')) && fs.existsSync(path.join(p, 'refs'))));
}

function withCommon(top: string, gitDir: string, gitFile: string | null): Found {
  const named = path.join(gitDir, 'commondir');
  const commonDir = fs.existsSync(named) ? path.resolve(gitDir, fs.readFileSync(named, 'utf8').slice(0, 4096).trim()) : gitDir;
  return { top, gitDir, commonDir, gitFile };
}

/**
 * git's own "dubious ownership" rule (safe.directory unset): the working tree, its git folders and
 * the `.git` file belong to the user running the engine (root may also use a sudo user's).
 */
function checkOwner(found: Found): void {
  if (typeof process.getuid !== 'function') return;
  const uid = process.getuid();
  const ok = (p: string): boolean => {
    const owner = fs.statSync(p).uid;
    return owner === uid || (uid === 0 && process.env.SUDO_UID !== undefined && String(owner) === process.env.SUDO_UID);
  };
  for (const p of [found.top, found.gitDir, found.commonDir, ...(found.gitFile ? [found.gitFile] : [])]) {
    if (!ok(p)) throw new HardenedGitError(`${p} belongs to another user: git is not run in a repository that is not yours`);
  }
}

/** A shadow of the real git folder `real` in `shadow`: its entries linked, but those the engine writes. */
function linkEntries(real: string, shadow: string): void {
  fs.mkdirSync(shadow, { mode: 0o700 });
  for (const e of fs.readdirSync(real, { withFileTypes: true })) {
    if (NOT_LINKED.has(e.name)) continue;
    const target = path.join(real, e.name);
    // Folders and regular files only: a FIFO or device at the top of .git would block git's reads.
    const st = fs.statSync(target, { throwIfNoEntry: false });
    if (st && (st.isDirectory() || st.isFile())) fs.symlinkSync(target, path.join(shadow, e.name));
  }
}

/** Copies a regular file of the real git folder (HEAD, the index), refusing anything else in its place. */
function copyRegular(from: string, to: string, required: boolean): void {
  const st = fs.lstatSync(from, { throwIfNoEntry: false });
  if (!st) {
    if (required) throw new HardenedGitError(`${from} is missing`);
    return;
  }
  if (!st.isFile()) throw new HardenedGitError(`${from} is not a regular file`);
  fs.copyFileSync(from, to);
}

export function openHardenedGit(dir: string): HardenedGit {
  let found: Found;
  try {
    found = discover(dir);
    checkOwner(found);
  } catch (e) {
    throw e instanceof HardenedGitError ? e : new HardenedGitError(`${dir}: ${(e as Error).message}`);
  }
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-git-'));
  const close = (): void => fs.rmSync(root, { recursive: true, force: true });
  try {
    const common = path.join(root, 'common');
    const own = path.join(root, 'git');
    linkEntries(found.commonDir, common);
    linkEntries(found.gitDir, own);
    copyRegular(path.join(found.gitDir, 'HEAD'), path.join(own, 'HEAD'), true);
    copyRegular(path.join(found.gitDir, 'index'), path.join(own, 'index'), false);
    fs.writeFileSync(path.join(own, 'commondir'), common + '\n');
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_')) env[k] = v;
    Object.assign(env, {
      GIT_DIR: own,
      GIT_WORK_TREE: found.top,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_ATTR_NOSYSTEM: '1',
      GIT_TERMINAL_PROMPT: '0',
      GIT_OPTIONAL_LOCKS: '0',
      GIT_PAGER: 'cat',
    });
    fs.writeFileSync(path.join(common, 'config'), '[core]\n\trepositoryformatversion = 0\n');
    const run = (args: string[], input?: string): Buffer => runGit(dir, env, args, input);
    const repositoryConfig = (keys: string): Map<string, string> => readConfigFile(path.join(found.commonDir, 'config'), keys, run);
    fs.writeFileSync(path.join(common, 'config'), shadowConfig(repositoryConfig));
    return { top: found.top, run, repositoryConfig, close };
  } catch (e) {
    close();
    throw e;
  }
}

/**
 * Values of one configuration file, read with `git config --file`, which follows no includes there,
 * and only when it is a regular file (a FIFO would block the read). Keys come back in lower case.
 */
function readConfigFile(file: string, keys: string, run: (args: string[]) => Buffer): Map<string, string> {
  const values = new Map<string, string>();
  if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile()) return values;
  let listed = '';
  try {
    listed = run(['config', '--file', file, '--null', '--get-regexp', keys]).toString('utf8');
  } catch {
    return values; // none of them set
  }
  for (const entry of listed.split('\0')) {
    const nl = entry.indexOf('\n');
    if (nl > 0) values.set(entry.slice(0, nl).toLowerCase(), entry.slice(nl + 1));
  }
  return values;
}

/**
 * The shadow's configuration: what git needs to read this repository's data (object format, ref
 * storage) and nothing that names a program.
 */
function shadowConfig(repositoryConfig: (keys: string) => Map<string, string>): string {
  const listed = repositoryConfig(`^(${Object.keys(COPIED).join('|').replace(/\./g, '\\.')})$`);
  const kept = [...listed].filter(([k, v]) => COPIED[k]?.(v)).map(([k, v]): [string, string] => [k, v.toLowerCase()]);
  const extensions = kept.filter(([k]) => k.startsWith('extensions.'));
  const core = kept.filter(([k]) => k.startsWith('core.'));
  return [
    '[core]',
    `\trepositoryformatversion = ${extensions.length ? 1 : 0}`,
    ...core.map(([k, v]) => `\t${k.slice('core.'.length)} = ${v}`),
    ...(extensions.length ? ['[extensions]', ...extensions.map(([k, v]) => `\t${k.slice('extensions.'.length)} = ${v}`)] : []),
    '',
  ].join('\n');
}

function runGit(cwd: string, env: NodeJS.ProcessEnv, args: string[], input?: string): Buffer {
  try {
    return execFileSync('git', ['-c', 'core.quotePath=false', '--no-pager', ...args], {
      cwd,
      env,
      maxBuffer: 1024 * 1024 * 1024,
      timeout: GIT_TIMEOUT_MS,
      killSignal: 'SIGKILL',
      ...(input !== undefined ? { input } : {}),
      stdio: [input !== undefined ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
  } catch (e) {
    const err = e as { stderr?: Buffer | string; code?: string; status?: number | null; signal?: string | null };
    if (err.code === 'ENOENT') throw new HardenedGitError('git is not installed');
    if (err.code === 'ETIMEDOUT' || err.signal === 'SIGKILL') throw new HardenedGitError(`git ${args[0]} did not finish in ${GIT_TIMEOUT_MS / 60_000} minutes and was stopped`);
    const said = String(err.stderr ?? '').trim().split('\n').filter(Boolean).slice(-2).join(' / ');
    throw new HardenedGitError(said || `git ${args[0]} exited ${err.status ?? 'abnormally'}`);
  }
}

/** One git command in `dir` through a session of its own (see openHardenedGit). */
export function hardenedGit(dir: string, args: string[], input?: string): Buffer {
  const git = openHardenedGit(dir);
  try {
    return git.run(args, input);
  } finally {
    git.close();
  }
}
