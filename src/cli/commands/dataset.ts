import { type Command, InvalidArgumentError } from 'commander';
import { DEFAULT_DATASET_REPO, parseKinds, parseLanguages } from '../../engine/dataset/files';
import { DEFAULT_ENDPOINT, DEFAULT_MAX_FILE_BYTES } from '../../engine/dataset/hub';
import type { FetchCommandOptions, PinCommandOptions } from '../dataset-command';

/** `xrepotest dataset fetch|pin`: their flags; dataset-command.ts, loaded when one runs, does the work. */

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

function positiveWholeNumber(v: string): number {
  const n = wholeNumber(v);
  if (n === 0) throw new InvalidArgumentError('expected a whole number, 1 or more');
  return n;
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
    .option('--max-file-mb <n>', 'the most MiB one file may have: a server that streams more than it declared, or more than this without declaring a size, is cut off and refused', positiveWholeNumber, DEFAULT_MAX_FILE_BYTES / 1024 / 1024)
    .option('--no-progress', 'no progress lines')
    .action(async (opts: FetchCommandOptions) => {
      const { runDatasetFetch } = await import('../dataset-command.js');
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
      const { runDatasetPin } = await import('../dataset-command.js');
      process.exitCode = await runDatasetPin(opts);
    });
}
