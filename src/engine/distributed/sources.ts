import { execFile, type ExecFileOptions } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { Manifest } from '../tasks/manifest';
import type { LoadedTask } from '../tasks/load';
import { repositoryFolderOf } from '../tasks/task-path';
import type { LanguageId } from '../languages';
import type { TaskSource } from './task-job';

type GitSource = Extract<TaskSource, { kind: 'git' }>;

const run = promisify(execFile);

/** execFile in a process group of its own (`detached`: spawn's option, which execFile passes on). */
function runDetached(file: string, args: string[], options: ExecFileOptions): Promise<{ stdout: string; stderr: string }> {
  return run(file, args, { ...options, encoding: 'utf8', detached: true } as ExecFileOptions & { encoding: 'utf8' }) as Promise<{ stdout: string; stderr: string }>;
}
const HEX_COMMIT = /^[0-9a-f]{40}$/;

/** `--sources FILE`: `{"<repository folder>": {"url": "…", "commit": "<40 hex>"}}`. */
export type SourcesFile = Record<string, { url?: string; commit?: string; subdir?: string }>;

export function loadSourcesFile(file: string): SourcesFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`${file}: not a readable sources file (${(e as Error).message})`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`${file}: a sources file is {"<repository folder>": {"url": "…", "commit": "<40 hex digits>"}}`);
  return parsed as SourcesFile;
}

/** A URL a worker can fetch by itself: a scheme git speaks, or scp-like `user@host:path`; not a bare path. */
function fetchableUrl(url: string | undefined): url is string {
  if (!url || url.startsWith('-')) return false;
  return /^(https?|ssh|git|file):\/\//.test(url) || /^[\w.-]+@[\w.-]+:/.test(url);
}

/**
 * Where each task's code comes from for workers on other machines, from (first match) the sources
 * file, the manifest's url + commit, or the task record's own repository url + commit; or why none.
 */
export function sourceOf(
  task: LoadedTask,
  sources: SourcesFile | null,
  manifest: Manifest | null,
  /** Published images by language, pinned by digest (`reproduce --queue`): the release's repositories are in them. */
  images?: Partial<Record<LanguageId, string>>,
): TaskSource | { problem: string } {
  const name = repositoryFolderOf(task.task.file_path);
  const image = images?.[task.language];
  if (image) return { kind: 'image', image, repoDir: name };
  const candidates: Array<{ url?: string; commit?: string | null; subdir?: string } | undefined> = [sources?.[name], manifest?.repositories[name], task.task.repository];
  for (const c of candidates) {
    if (c && fetchableUrl(c.url) && typeof c.commit === 'string' && HEX_COMMIT.test(c.commit)) {
      // A repository folder inside a bigger checkout (extract records it as `subdir`).
      return { kind: 'git', url: c.url, commit: c.commit, ...(c.subdir ? { subdir: c.subdir } : {}) };
    }
  }
  return {
    problem:
      `no source a worker can fetch for ${name}: give its repository URL and full commit in --sources ` +
      `({"${name}": {"url": "https://…", "commit": "<40 hex digits>"}}) or in the manifest (url, commit)`,
  };
}

/** git with no prompt, no helper transports (`ext::` runs commands), and no system or user config. */
function gitEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GIT_TERMINAL_PROMPT: '0',
    GIT_ALLOW_PROTOCOL: 'file:git:http:https:ssh',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
  };
}

/**
 * No HTTP redirect is followed: the worker's operator allowed the job's URL (source-policy.ts), and a
 * server there answering 301 to another host or port would have git fetch from where the operator
 * did not allow (an internal server, with the worker's ~/.netrc).
 */
const NO_REDIRECTS = ['-c', 'http.followRedirects=false'];

async function git(args: string[], cwd?: string): Promise<string> {
  // Its own process group: a Ctrl-C at the worker's terminal stops the worker gracefully and lets a
  // fetch in progress finish, instead of killing it under the task.
  const r = await runDetached('git', [...NO_REDIRECTS, ...args], { cwd, env: gitEnv(), maxBuffer: 64 * 1024 * 1024 });
  return r.stdout;
}

async function gitWithIndex(index: string, args: string[]): Promise<void> {
  await runDetached('git', args, { env: { ...gitEnv(), GIT_INDEX_FILE: index }, maxBuffer: 64 * 1024 * 1024 });
}

const hash = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 16);

/** Fetches (once) per process: two jobs of one repository wait for the same fetch. */
const pending = new Map<string, Promise<string>>();

/**
 * A tree of `source` at its commit, named `<repository folder>` so the task's file_path resolves in
 * it: `<cacheDir>/trees/<url hash>-<commit>/<name>`. Fetched into a bare repository per URL (kept, so
 * later commits fetch only what is new), checked out without .git or hooks, renamed into place
 * whole: a half checkout is never taken for a tree. Sandboxes copy it; nothing writes in it.
 */
export function checkoutOf(source: GitSource, name: string, cacheDir: string): Promise<string> {
  const key = `${source.url}\0${source.commit}\0${source.subdir ?? ''}\0${name}`;
  let p = pending.get(key);
  if (!p) {
    p = fetchTree(source, name, cacheDir).finally(() => pending.delete(key));
    pending.set(key, p);
  }
  return p;
}

async function fetchTree(source: GitSource, name: string, cacheDir: string): Promise<string> {
  // The tree's folder appears only whole, by one rename: where it exists, it is complete. Several
  // worker processes on a machine share the cache, and none ever deletes a tree another may be using.
  const treeParent = path.join(cacheDir, 'trees', `${hash(`${source.url}\0${source.subdir ?? ''}`)}-${source.commit}`);
  const tree = path.join(treeParent, name);
  if (fs.existsSync(tree)) return tree;
  const bare = path.join(cacheDir, 'git', `${hash(source.url)}.git`);
  if (!fs.existsSync(path.join(bare, 'HEAD'))) {
    fs.mkdirSync(path.dirname(bare), { recursive: true });
    const staging = fs.mkdtempSync(`${bare}.init-`);
    await git(['init', '--bare', '--quiet', staging]);
    try {
      fs.renameSync(staging, bare);
    } catch {
      fs.rmSync(staging, { recursive: true, force: true }); // another process made it first
    }
  }
  const has = async (): Promise<boolean> =>
    git(['--git-dir', bare, 'cat-file', '-e', `${source.commit}^{commit}`]).then(
      () => true,
      () => false,
    );
  if (!(await has())) {
    // By its id first (servers that allow it send only that history), else every branch and tag.
    // A fetch failing on a lock another process holds is fine when that process brought the commit.
    await git(['--git-dir', bare, 'fetch', '--quiet', '--no-tags', '--', source.url, source.commit]).catch(() => undefined);
    if (!(await has())) {
      let failure: unknown = null;
      await git(['--git-dir', bare, 'fetch', '--quiet', '--tags', '--', source.url, '+refs/heads/*:refs/xrt/heads/*']).catch((e: unknown) => (failure = e));
      if (!(await has())) {
        if (failure) throw new Error(`could not fetch ${source.url}: ${String((failure as { stderr?: string }).stderr ?? (failure as Error).message).trim().slice(0, 300)}`);
        throw new Error(`${source.url} has no commit ${source.commit} (is it pushed?)`);
      }
    }
  }
  fs.mkdirSync(path.dirname(treeParent), { recursive: true });
  const staging = fs.mkdtempSync(`${treeParent}.staging-`);
  try {
    const out = path.join(staging, 'tree', name);
    fs.mkdirSync(out, { recursive: true });
    // Every file of the commit, as a clone checks it out: not `git archive`, which leaves out what
    // .gitattributes marks export-ignore (PHP packages mark their tests and benchmarks so). git's own
    // checkout refuses '..', '.git' and writes through links. `<commit>:<folder>` takes that folder.
    const index = path.join(staging, 'index');
    await git(['--git-dir', bare, 'read-tree', `--index-output=${index}`, source.subdir ? `${source.commit}:${source.subdir}` : source.commit]);
    await gitWithIndex(index, ['--git-dir', bare, '--work-tree', out, 'checkout-index', '--all', '--force']);
    try {
      fs.renameSync(path.join(staging, 'tree'), treeParent);
    } catch (e) {
      // Another process put the same tree in place first: theirs is used, ours dropped.
      if (!fs.existsSync(tree)) throw e;
    }
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return tree;
}
