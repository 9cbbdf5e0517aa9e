import * as fs from 'node:fs';
import * as path from 'node:path';
import type { LoadedTask } from './load';
import { checkoutHead } from './repository';
import { focalFileIn, repositoryFolderOf } from './task-path';

/**
 * Where each repository of a dataset is checked out, and at which commit:
 * `{"repositories": {"<repo_dir>": {"checkout": "path", "commit": "sha", "url": "…"}}}`. Paths are
 * relative to the manifest's folder. The published release pins nothing; this is where we do.
 */
export interface Manifest {
  repositories: Record<string, { checkout: string; commit?: string | null; url?: string }>;
}

export interface ManifestFile {
  file: string;
  manifest: Manifest;
}

export function loadManifest(file: string): ManifestFile {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as Manifest;
  } catch (e) {
    throw new Error(`${file}: not a readable manifest (${(e as Error).message})`);
  }
  if (!manifest || typeof manifest.repositories !== 'object') throw new Error(`${file}: a manifest needs "repositories": {"<repo_dir>": {"checkout": "…"}}`);
  return { file, manifest };
}

/**
 * Where the user says checkouts are. A dataset record's own `repository.path`/`url` is input, not an
 * instruction: it is used only when neither `manifest` nor `reposRoot` is given, only when the user
 * allowed it with `allowRecorded` (--allow-checkouts), and only when it resolves (links followed)
 * inside that folder. Otherwise a record naming any host folder would have it copied into the sandbox.
 */
export interface CheckoutSources {
  manifest?: ManifestFile | null;
  /** --repos DIR: DIR/<repository folder>. */
  reposRoot?: string;
  /** --allow-checkouts ROOT: the folder a record's own checkout path must lie in to be used. */
  allowRecorded?: string;
}

export type CheckoutLookup = { checkout: string; reason?: undefined } | { checkout: null; reason: string };

const isDir = (p: string): boolean => fs.existsSync(p) && fs.statSync(p).isDirectory();

/** True when `inner` (links followed) is `outer` or below it. Both must exist. */
export function isWithin(outer: string, inner: string): boolean {
  const rel = path.relative(fs.realpathSync(outer), fs.realpathSync(inner));
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** The checkout a record itself names: its extraction folder, else a `url` that is a local path. */
function recordedCheckout(task: LoadedTask): string | undefined {
  const repo = task.task.repository;
  if (typeof repo?.path === 'string' && repo.path) return repo.path;
  if (typeof repo?.url === 'string' && repo.url && !/^[a-z][a-z0-9+.-]*:/i.test(repo.url) && !/^[^/]+@[^/]+:/.test(repo.url)) return repo.url;
  return undefined;
}

/** The checkout of a task's repository, or why there is none that may be used. */
export function locateCheckout(task: LoadedTask, where: CheckoutSources): CheckoutLookup {
  const name = repositoryFolderOf(task.task.file_path);
  const { manifest, reposRoot, allowRecorded } = where;
  if (manifest || reposRoot) {
    const entry = manifest?.manifest.repositories[name];
    const candidates = [entry && path.resolve(path.dirname(manifest!.file), entry.checkout), reposRoot && path.join(reposRoot, name)].filter((p): p is string => !!p);
    const found = candidates.find(isDir);
    if (found) return { checkout: found };
    const places = [manifest && `the manifest ${manifest.file}`, reposRoot && `${path.join(reposRoot, name)} (--repos)`].filter(Boolean).join(' or ');
    return { checkout: null, reason: `no checkout of ${name} in ${places} (add it there; a record's own repository.path is never used when --repos or --manifest is given)` };
  }
  const recorded = recordedCheckout(task);
  const how = `pass --repos DIR (DIR/${name} is the checkout) or --manifest FILE`;
  if (!recorded) return { checkout: null, reason: `no checkout of ${name}: ${how}` };
  if (!allowRecorded) {
    return { checkout: null, reason: `no checkout of ${name}: ${how}; the dataset names ${recorded} as its checkout, which is used only with --allow-checkouts <a folder holding it>` };
  }
  if (!path.isAbsolute(recorded) || !isDir(recorded)) return { checkout: null, reason: `no checkout of ${name}: the dataset names ${recorded}, which is not a folder here; ${how}` };
  if (!isDir(allowRecorded)) return { checkout: null, reason: `--allow-checkouts ${allowRecorded} is not a folder` };
  if (!isWithin(allowRecorded, recorded)) {
    return { checkout: null, reason: `refused: the dataset names ${recorded} as the checkout of ${name}, which is outside --allow-checkouts ${allowRecorded}; ${how}, or allow a folder that holds it` };
  }
  return { checkout: path.resolve(recorded) };
}

/** The checkout of a task's repository (see locateCheckout), or null. */
export function checkoutOf(task: LoadedTask, manifest: ManifestFile | null, reposRoot?: string, allowRecorded?: string): string | null {
  return locateCheckout(task, { manifest, reposRoot, allowRecorded }).checkout;
}

export interface CheckedTasks {
  usable: Array<{ task: LoadedTask; checkout: string }>;
  excluded: Array<{ task: LoadedTask; reason: string }>;
  /** Repositories whose checkout is not at the manifest's pinned commit (their tasks may still match). */
  warnings: string[];
}

/**
 * Keeps the tasks whose focal file in the checkout is byte for byte the task's `file_content`; the
 * others are reported and excluded — never silently run against other code.
 */
export function checkTasks(tasks: readonly LoadedTask[], manifest: ManifestFile | null, reposRoot?: string, allowRecorded?: string): CheckedTasks {
  const out: CheckedTasks = { usable: [], excluded: [], warnings: [] };
  const headChecked = new Set<string>();
  for (const task of tasks) {
    const found = locateCheckout(task, { manifest, reposRoot, allowRecorded });
    const name = repositoryFolderOf(task.task.file_path);
    if (found.checkout === null) {
      out.excluded.push({ task, reason: found.reason });
      continue;
    }
    const checkout = found.checkout;
    const pinned = manifest?.manifest.repositories[name]?.commit;
    if (pinned && !headChecked.has(checkout)) {
      headChecked.add(checkout);
      const head = checkoutHead(checkout);
      if (head && !head.startsWith(pinned) && !pinned.startsWith(head)) out.warnings.push(`${name}: checkout is at ${head.slice(0, 12)}, the manifest pins ${pinned.slice(0, 12)}`);
    }
    const file = focalFileIn(checkout, task.task.file_path);
    if (!fs.existsSync(file)) out.excluded.push({ task, reason: `${task.task.file_path} is not in the checkout ${checkout}` });
    else if (fs.readFileSync(file, 'utf8') !== task.task.file_content) out.excluded.push({ task, reason: `${task.task.file_path} differs from the task's file_content in ${checkout}` });
    else out.usable.push({ task, checkout });
  }
  return out;
}
