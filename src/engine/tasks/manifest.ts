import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { focalPathInRepo } from '../execute/sandbox';
import type { LoadedTask } from './load';

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

/** The checkout of a task's repository: from the manifest, else where the task was extracted. */
export function checkoutOf(task: LoadedTask, manifest: ManifestFile | null, reposRoot?: string): string | null {
  const name = task.task.file_path.split('/')[0];
  const entry = manifest?.manifest.repositories[name];
  const candidates = [
    entry && path.resolve(path.dirname(manifest!.file), entry.checkout),
    reposRoot && path.join(reposRoot, name),
    task.task.repository?.path,
    task.task.repository?.url && !/^[a-z]+:\/\//i.test(task.task.repository.url) ? task.task.repository.url : undefined,
  ].filter((p): p is string => !!p);
  return candidates.find((p) => fs.existsSync(p) && fs.statSync(p).isDirectory()) ?? null;
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
export function checkTasks(tasks: readonly LoadedTask[], manifest: ManifestFile | null, reposRoot?: string): CheckedTasks {
  const out: CheckedTasks = { usable: [], excluded: [], warnings: [] };
  const headChecked = new Set<string>();
  for (const task of tasks) {
    const checkout = checkoutOf(task, manifest, reposRoot);
    const name = task.task.file_path.split('/')[0];
    if (!checkout) {
      out.excluded.push({ task, reason: `no checkout of ${name} (add it to the manifest, or pass --repos DIR)` });
      continue;
    }
    const pinned = manifest?.manifest.repositories[name]?.commit;
    if (pinned && !headChecked.has(checkout)) {
      headChecked.add(checkout);
      const head = gitHead(checkout);
      if (head && !head.startsWith(pinned) && !pinned.startsWith(head)) out.warnings.push(`${name}: checkout is at ${head.slice(0, 12)}, the manifest pins ${pinned.slice(0, 12)}`);
    }
    const file = path.join(checkout, focalPathInRepo(task.task));
    if (!fs.existsSync(file)) out.excluded.push({ task, reason: `${task.task.file_path} is not in the checkout ${checkout}` });
    else if (fs.readFileSync(file, 'utf8') !== task.task.file_content) out.excluded.push({ task, reason: `${task.task.file_path} differs from the task's file_content in ${checkout}` });
    else out.usable.push({ task, checkout });
  }
  return out;
}

function gitHead(dir: string): string | null {
  try {
    return execFileSync('git', ['-C', dir, 'rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}
