import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openHardenedGit, type HardenedGit } from '../util/hardened-git';
import { MAX_COPIED_FILE_BYTES } from './copy-repository';

/**
 * A checkout's folder as it was at an earlier commit (`run --regression-check`), written into a fresh
 * temporary folder from git's objects — never `git checkout` or `git worktree`, which would write into
 * the user's repository and run its hooks and filters. git runs without the repository's configuration
 * (util/hardened-git.ts).
 *
 * The tree is attacker-controlled (a crafted tree object may name `..`, `.git` or a path twice, or a
 * link and then a file below it): every name is checked, folders are made one by one as real folders,
 * files are created exclusively (never through an existing entry), and links are made last, verbatim,
 * so nothing is ever written through one (the sandbox copy then applies its own link rules). Files
 * over the copy's size limit and submodules are left out, as the sandbox copy would leave them.
 */
export interface BaseCheckout {
  /** The folder at the commit (the same part of the repository the checkout is). */
  dir: string;
  commit: string;
  /** Paths left out, with why. */
  skipped: Array<{ path: string; reason: string }>;
  remove(): void;
}

const ENTRY = /^(\d{6}) (blob|tree|commit) ([0-9a-f]{40,64})\t(.*)$/s;

/** Whether a tree path's names are all ones a checkout could hold (no empty, `.`, `..` or `.git`). */
function safeRelative(rel: string): boolean {
  const parts = rel.split('/');
  return parts.every((p) => p !== '' && p !== '.' && p !== '..' && p.toLowerCase() !== '.git' && !p.includes('\0'));
}

export function materializeCommit(checkout: string, commit: string): BaseCheckout {
  if (!/^[0-9a-f]{40,64}$/.test(commit)) throw new Error(`not a commit id: ${JSON.stringify(commit)}`);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-base-'));
  const dir = path.join(root, path.basename(path.resolve(checkout)) || 'repository');
  fs.mkdirSync(dir, { mode: 0o755 });
  const remove = (): void => fs.rmSync(root, { recursive: true, force: true });
  let git: HardenedGit | null = null;
  try {
    git = openHardenedGit(checkout);
    // Listed relative to the checkout's folder (ls-tree is cwd-relative, restricted to it).
    const listing = git.run(['ls-tree', '-r', '-z', '--end-of-options', commit]).toString('utf8');
    const files: Array<{ rel: string; oid: string; mode: string }> = [];
    const skipped: BaseCheckout['skipped'] = [];
    const seen = new Set<string>();
    for (const line of listing.split('\0')) {
      if (!line) continue;
      const m = ENTRY.exec(line);
      if (!m) throw new Error(`git ls-tree printed an entry it should not: ${JSON.stringify(line.slice(0, 200))}`);
      const [, mode, type, oid, rel] = m;
      if (!safeRelative(rel) || seen.has(rel)) {
        skipped.push({ path: rel, reason: 'a name no checkout can hold (empty, ".", "..", ".git" or given twice)' });
        continue;
      }
      seen.add(rel);
      if (type !== 'blob') skipped.push({ path: rel, reason: 'a submodule' });
      else files.push({ rel, oid, mode });
    }
    const { contents, missing } = readBlobs(git, files.map((f) => f.oid));
    const links: Array<{ rel: string; target: string }> = [];
    for (const f of files) {
      const data = contents.get(f.oid);
      if (missing.has(f.oid)) {
        skipped.push({ path: f.rel, reason: 'not in the repository\'s objects (a partial clone: git is never let fetch it)' });
        continue;
      }
      if (data === undefined) {
        skipped.push({ path: f.rel, reason: `over the ${MAX_COPIED_FILE_BYTES}-byte limit for copied files` });
        continue;
      }
      if (f.mode === '120000') {
        links.push({ rel: f.rel, target: data.toString('utf8') });
        continue;
      }
      const parent = ensureDirs(dir, path.posix.dirname(f.rel));
      if (parent === null) {
        skipped.push({ path: f.rel, reason: 'its folder is a file of the commit' });
        continue;
      }
      fs.writeFileSync(path.join(parent, path.posix.basename(f.rel)), data, { flag: 'wx', mode: f.mode === '100755' ? 0o755 : 0o644 });
    }
    for (const l of links) {
      const parent = ensureDirs(dir, path.posix.dirname(l.rel));
      const at = parent === null ? null : path.join(parent, path.posix.basename(l.rel));
      if (at === null || fs.lstatSync(at, { throwIfNoEntry: false })) {
        skipped.push({ path: l.rel, reason: 'a link where the commit has another entry' });
        continue;
      }
      fs.symlinkSync(l.target, at);
    }
    return { dir, commit, skipped, remove };
  } catch (e) {
    remove();
    throw e;
  } finally {
    git?.close();
  }
}

/** Makes `rel`'s folders under `root` one by one, refusing any that exists as something else (null). */
function ensureDirs(root: string, rel: string): string | null {
  let at = root;
  if (rel === '.' || rel === '') return at;
  for (const name of rel.split('/')) {
    at = path.join(at, name);
    const st = fs.lstatSync(at, { throwIfNoEntry: false });
    if (!st) fs.mkdirSync(at, { mode: 0o755 });
    else if (!st.isDirectory()) return null;
  }
  return at;
}

/** The blobs' contents by id (`git cat-file --batch`), but for those over the size limit, and the ids git does not have. */
function readBlobs(git: HardenedGit, oids: string[]): { contents: Map<string, Buffer>; missing: Set<string> } {
  const out = new Map<string, Buffer>();
  const missing = new Set<string>();
  if (!oids.length) return { contents: out, missing };
  const unique = [...new Set(oids)];
  // Sizes first: a blob over the limit is never read into memory.
  const sizes = git.run(['cat-file', '--batch-check=%(objectname) %(objectsize)'], unique.join('\n') + '\n').toString('utf8').trim().split('\n');
  const wanted: string[] = [];
  for (const [oid, size] of sizes.map((l) => l.split(' '))) {
    if (size === 'missing') missing.add(oid);
    else if (Number(size) <= MAX_COPIED_FILE_BYTES) wanted.push(oid);
  }
  if (!wanted.length) return { contents: out, missing };
  const batch = git.run(['cat-file', '--batch'], wanted.join('\n') + '\n');
  let i = 0;
  while (i < batch.length) {
    const nl = batch.indexOf(10, i);
    if (nl < 0) break;
    const [oid, type, size] = batch.subarray(i, nl).toString('utf8').split(' ');
    const n = Number(size);
    if (type !== 'blob' || !Number.isSafeInteger(n)) throw new Error(`git cat-file printed an object it should not: ${oid} ${type}`);
    out.set(oid, batch.subarray(nl + 1, nl + 1 + n));
    i = nl + 1 + n + 1;
  }
  return { contents: out, missing };
}
