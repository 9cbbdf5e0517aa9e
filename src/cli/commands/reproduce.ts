import * as os from 'node:os';
import * as path from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { parseLanguages } from '../../engine/dataset/files';
import { IMAGES_LOCK_FILE } from '../../engine/execute/published-names';
import { LANGUAGE_IDS, type LanguageId } from '../../engine/languages/ids';
import { DEFAULT_CONCURRENCY } from '../flags';
import { addRequestOptions } from '../generation-flags';
import type { ReproduceOptions } from '../reproduce-command';
import { DEFAULT_DATASET_DIR } from './dataset';

/** `xrepotest reproduce`: its flags; reproduce-command.ts, loaded when it runs, does the work. */

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive whole number');
  return n;
}

function languages(value: string): LanguageId[] {
  try {
    return parseLanguages(value);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
}

export function registerReproduceCommand(program: Command): void {
  const cmd = program
    .command('reproduce')
    .description("run the paper's standard setting over the published dataset, in the published images, resumably")
    .requiredOption('--provider <name>', 'anthropic, openai, openai-compatible, replay (or baseline)')
    .option('--model <name>', 'the model (required except for replay and baseline)')
    .option('--base-url <url>', 'the API base URL (openai-compatible: required)')
    .option('--replay <file>', 'replay: recorded responses')
    .option('--lang <list>', `only these languages, comma-separated (${LANGUAGE_IDS.join(',')})`, languages)
    .option('--dataset-dir <dir>', 'the folder `xrepotest dataset fetch` wrote', DEFAULT_DATASET_DIR)
    .option('--run-dir <dir>', 'the run folder (default: xrepotest-runs/<provider>-<model>-standard)')
    .option('--registry <prefix>', 'pull the images from this registry (host:port) instead of Docker Hub')
    .option('--tag <tag>', 'the image tag, when the lock file pins none yet', 'latest')
    .option('--images-lock <file>', 'the image digests (read, or written on first pull)', IMAGES_LOCK_FILE)
    .option('--limit <n>', 'only the first n tasks', positiveInt)
    .option('--yes', 'start without asking (required when standard input is not a terminal)')
    .option('--concurrency <n>', 'tasks at once', positiveInt, DEFAULT_CONCURRENCY)
    .option('--cache-dir <dir>', 'response cache', path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'xrepotest', 'responses'))
    .option('--no-cache', 'call the API even when the same request was answered before')
    .option('--queue <url>', 'run the tasks on `xrepotest worker` processes through this queue (redis://…): each worker reads the code from the pinned images itself')
    .option('--rate-limit <calls/period>', 'with --queue: at most this many model calls across all workers, e.g. 50/min')
    .option('--run-key-file <file>', 'with --queue: the run key the workers share (default: XREPOTEST_RUN_KEY; make one with `xrepotest queue new-key`)')
    .option('--no-progress', 'no progress lines');
  addRequestOptions(cmd).action(async (opts: ReproduceOptions) => {
    const controller = new AbortController();
    process.once('SIGINT', () => controller.abort(new Error('interrupted')));
    const { runReproduce } = await import('../reproduce-command.js');
    process.exitCode = await runReproduce(opts, controller.signal);
  });
}
