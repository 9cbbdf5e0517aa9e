import * as fs from 'node:fs';
import * as path from 'node:path';
import { releasePath, type DatasetKind } from '../engine/dataset/files';
import { fetchDataset, type FetchEvent } from '../engine/dataset/fetch';
import { DEFAULT_ENDPOINT } from '../engine/dataset/hub';
import { describeMatch, parseRepoSpec, pinRepository, type RepoSpec } from '../engine/dataset/pin';
import type { LanguageId } from '../engine/languages/ids';
import { formatProblem } from '../engine/tasks/jsonl';
import { loadTasks } from '../engine/tasks/load';

/** `xrepotest dataset fetch` and `pin`'s work; their flags are commands/dataset.ts. */

function size(bytes: number): string {
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
}

/** One line per file on a terminal, redrawn; elsewhere a line when a file starts, every few seconds, and when placed. */
function progressPrinter(enabled: boolean): (e: FetchEvent) => void {
  const tty = !!process.stderr.isTTY;
  let lastDraw = 0;
  const out = (line: string): void => void process.stderr.write(line);
  return (e) => {
    if (e.type === 'warning') return out(`warning: ${e.message}\n`);
    if (e.type === 'retry') return out(`retry ${e.attempt} for ${e.path}: ${e.message}\n`);
    if (!enabled) return;
    const now = Date.now();
    switch (e.type) {
      case 'resolved':
        return out(`revision ${e.revision} is commit ${e.commit}\n`);
      case 'download':
        lastDraw = now;
        return out(`${e.from ? 'resuming' : 'downloading'} ${e.path}${e.from ? ` from byte ${e.from}` : ''}${e.size !== null ? ` (${size(e.size)})` : ''}\n`);
      case 'bytes': {
        if (now - lastDraw < (tty ? 200 : 5000)) return;
        lastDraw = now;
        const pct = e.size ? ` ${((100 * e.done) / e.size).toFixed(1)} %` : '';
        const line = `  ${e.path}: ${size(e.done)}${e.size ? ` of ${size(e.size)}` : ''}${pct}`;
        return out(tty ? `\r${line}\x1b[K` : `${line}\n`);
      }
      case 'placed':
        return out(`${tty ? '\r\x1b[K' : ''}${e.adopted ? 'kept (already here)' : 'verified and placed'} ${e.path} (${size(e.size)}, sha256 ${e.sha256.slice(0, 12)}…)\n`);
      case 'verified':
        return;
    }
  };
}

export interface FetchCommandOptions {
  revision?: string;
  dir: string;
  lang?: LanguageId[];
  kinds?: DatasetKind[];
  endpoint?: string;
  token?: string;
  dataset: string;
  refresh?: boolean;
  offline?: boolean;
  retries: number;
  /** The most MiB one file may have: a mirror that streams more (or declares more) is refused. */
  maxFileMb: number;
  progress: boolean;
}

export async function runDatasetFetch(opts: FetchCommandOptions, signal?: AbortSignal): Promise<number> {
  const endpoint = opts.endpoint || process.env.HF_ENDPOINT || DEFAULT_ENDPOINT;
  const result = await fetchDataset({
    dir: opts.dir,
    dataset: opts.dataset,
    endpoint,
    token: opts.token || process.env.HF_TOKEN || undefined,
    revision: opts.revision,
    refresh: opts.refresh,
    offline: opts.offline,
    languages: opts.lang,
    kinds: opts.kinds,
    retries: opts.retries,
    maxFileBytes: opts.maxFileMb * 1024 * 1024,
    signal,
    onEvent: progressPrinter(opts.progress),
  });
  const total = result.files.reduce((n, f) => n + f.size, 0);
  const fetched = result.files.filter((f) => f.from !== 'cache').length;
  const how = result.offline ? 'all verified against the lock, no network used' : `${fetched} fetched (${size(result.downloadedBytes)} transferred), ${result.files.length - fetched} verified from the folder`;
  const pin = result.commit ? `commit ${result.commit}` : 'no commit (the server never said which; files are pinned by SHA-256 only)';
  process.stdout.write(`datasets/${result.dataset} at ${result.revision}: ${pin}\n`);
  process.stdout.write(`${result.files.length} files, ${size(total)} in ${path.resolve(opts.dir)}; ${how}\nlock: ${result.lockFile}\n`);
  return 0;
}

export interface PinCommandOptions {
  repo: string[];
  tasks?: string[];
  manifest: string;
  dir: string;
  ref?: string;
  cache?: string;
  checkouts?: string;
  acceptPartial?: boolean;
  update: boolean;
}

function defaultTaskFiles(specs: readonly RepoSpec[], dir: string): string[] {
  const files = [...new Set(specs.map((s) => path.join(dir, releasePath(s.language, 'base'))))];
  const missing = files.filter((f) => !fs.existsSync(f));
  if (missing.length) throw new Error(`no task records: ${missing.join(', ')} missing (run \`xrepotest dataset fetch --kinds base\` first, or pass --tasks FILE…)`);
  return files;
}

export async function runDatasetPin(opts: PinCommandOptions): Promise<number> {
  if (!opts.repo.length) throw new Error('dataset pin needs at least one --repo <lang>/<repo_dir>=<git URL or checkout>');
  const specs = opts.repo.map(parseRepoSpec);
  const taskFiles = opts.tasks?.length ? opts.tasks : defaultTaskFiles(specs, opts.dir);
  const { tasks, problems } = await loadTasks(taskFiles);
  for (const p of problems.slice(0, 10)) process.stderr.write(`warning: ${formatProblem(p)}\n`);
  if (problems.length > 10) process.stderr.write(`warning: … ${problems.length - 10} more lines that are not task records\n`);
  let failed = 0;
  for (const spec of specs) {
    try {
      const r = pinRepository({
        spec,
        tasks: tasks.map((t) => t.task),
        manifestFile: opts.manifest,
        cacheDir: opts.cache,
        checkoutsDir: opts.checkouts,
        ref: opts.ref,
        acceptPartial: opts.acceptPartial,
        update: opts.update,
      });
      process.stdout.write(describeMatch(spec, r.match) + '\n');
      for (const n of r.notes) process.stderr.write(`  note: ${n}\n`);
      if (r.entry) process.stdout.write(`  pinned ${spec.repoDir} at ${r.entry.commit} in ${opts.manifest} (checkout ${r.entry.checkout})\n`);
      else {
        failed++;
        const why = r.match.best ? 'not pinned: pass --accept-partial to pin the best partial match anyway' : 'not pinned';
        process.stdout.write(`  ${why}\n`);
      }
    } catch (e) {
      failed++;
      process.stderr.write(`xrepotest: ${spec.language}/${spec.repoDir}: ${(e as Error).message}\n`);
    }
  }
  return failed ? 1 : 0;
}
