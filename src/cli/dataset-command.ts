import { Command, InvalidArgumentError } from 'commander';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_DATASET_REPO, parseKinds, parseLanguages, releasePath, type DatasetKind } from '../engine/dataset/files';
import { fetchDataset, type FetchEvent } from '../engine/dataset/fetch';
import { DEFAULT_ENDPOINT } from '../engine/dataset/hub';
import { describeMatch, parseRepoSpec, pinRepository, type RepoSpec } from '../engine/dataset/pin';
import type { LanguageId } from '../engine/parse/grammars';
import { formatProblem } from '../engine/tasks/jsonl';
import { loadTasks } from '../engine/tasks/load';

export const DEFAULT_DATASET_DIR = 'xrepotest-dataset';
export const DEFAULT_MANIFEST = 'xrepotest-manifest.json';

function wrap<T>(parse: (v: string) => T): (v: string) => T {
  return (v) => {
    try {
      return parse(v);
    } catch (e) {
      throw new InvalidArgumentError((e as Error).message);
    }
  };
}

function wholeNumber(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number, 0 or more');
  return n;
}

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

export function registerDatasetCommand(program: Command): void {
  const dataset = program.command('dataset').description('fetch the published XRepoTest dataset from the Hugging Face hub, and pin each repository to its upstream commit');
  dataset
    .command('fetch')
    .description('download the release\'s JSONL files, verified against the hub\'s SHA-256 and pinned in a lock file; resumable; offline once fetched')
    .option('--revision <rev>', 'branch, tag or commit (default: the lock file\'s pin, else main)')
    .option('--dir <dir>', 'dataset folder (files at their release paths, and xrepotest-dataset.lock.json)', DEFAULT_DATASET_DIR)
    .option('--lang <list>', 'only these languages, comma-separated (rust,go,php,ruby,julia)', wrap(parseLanguages))
    .option('--kinds <list>', 'only these kinds, comma-separated (base,lsp,rag-bm25,rag-unixcoder)', wrap(parseKinds))
    .option('--endpoint <url>', `hub, mirror or proxy base URL (default: HF_ENDPOINT, else ${DEFAULT_ENDPOINT})`)
    .option('--token <token>', 'hub token (default: HF_TOKEN); sent as Authorization: Bearer, never printed')
    .option('--dataset <owner/name>', 'the dataset repository on the hub', DEFAULT_DATASET_REPO)
    .option('--refresh', 'ask the hub what the revision is now, even though the lock file pins it')
    .option('--offline', 'make no request: verify what the folder holds against the lock file')
    .option('--retries <n>', 'further tries after a dropped connection or a server error', wholeNumber, 3)
    .option('--no-progress', 'no progress lines')
    .action(async (opts: FetchCommandOptions) => {
      process.exitCode = await runDatasetFetch(opts);
    });
  dataset
    .command('pin')
    .description('find the upstream commit whose files match the records\' file_content byte for byte, and write it to the manifest')
    .requiredOption('--repo <lang/repo_dir=source>', 'a published repository and its git URL or checkout (repeatable)', (v: string, all: string[]) => [...all, v], [] as string[])
    .option('--tasks <files...>', 'task records (default: <dir>/data/base/<lang>_functions.jsonl)')
    .option('--dir <dir>', 'dataset folder the default --tasks are read from', DEFAULT_DATASET_DIR)
    .option('--manifest <file>', 'the manifest to write ({"repositories": {"<repo_dir>": {checkout, commit, url}}})', DEFAULT_MANIFEST)
    .option('--ref <ref>', 'the history to walk (default: HEAD, the default branch of a clone)')
    .option('--cache <dir>', 'where bare clones of URLs are kept (default: ~/.cache/xrepotest/git)')
    .option('--checkouts <dir>', 'where a URL\'s working copy at the pinned commit goes (default: <manifest folder>/repos/<lang>)')
    .option('--accept-partial', 'pin the best commit even when not every focal file matches')
    .option('--no-update', 'do not fetch new history into an existing cached clone')
    .action(async (opts: PinCommandOptions) => {
      process.exitCode = await runDatasetPin(opts);
    });
}
