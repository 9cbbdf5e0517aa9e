import * as os from 'node:os';
import * as path from 'node:path';
import type { Command } from 'commander';
import type { WorkerCommandOptions } from '../worker-command';

/** `xrepotest worker`: its flags; worker-command.ts (with BullMQ), loaded when it runs, does the work. */
export function registerWorkerCommand(program: Command, positiveInt: (v: string) => number): void {
  const cacheRoot = path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'xrepotest');
  program
    .command('worker')
    .description("run benchmark tasks from a coordinator's queue (bench --queue) on this machine, until stopped")
    .requiredOption('--queue <url>', 'the queue: redis://[user:password@]host:port[/db] or rediss:// (TLS); a password may also come from XREPOTEST_REDIS_PASSWORD')
    .option('--concurrency <n>', 'tasks at once, per language', positiveInt, 1)
    .option('--executor <kind>', 'run only jobs of this executor (docker or local); default: what each run asks for')
    .option('--languages <list>', 'take only these languages, comma-separated (default: all)')
    .option('--cache-dir <dir>', 'fetched repositories and their trees', path.join(cacheRoot, 'sources'))
    .option('--base-url <url>', "a provider base URL this worker may call when a run names it (it sends its own key there); repeatable", (v: string, all: string[]) => [...all, v], [] as string[])
    .option('--embed-url <url>', 'an embedding server this worker may call when a run names it; repeatable', (v: string, all: string[]) => [...all, v], [] as string[])
    .option('--replay <file>', 'for runs with --provider replay: the recorded generations on this machine')
    .option('--response-cache-dir <dir>', 'response cache of the model calls made here', path.join(cacheRoot, 'responses'))
    .option('--no-cache', 'do not cache model responses')
    .option('--request-timeout <seconds>', 'seconds one model request may take', Number)
    .option('--retries <n>', 'retries of a failed model request', Number)
    .option('--run-key-file <file>', 'the run key shared with the coordinator (not Redis\'s password): only jobs signed with it run (default: XREPOTEST_RUN_KEY; make one with `xrepotest queue new-key`)')
    .option('--allow-source <prefix>', 'a source this worker may fetch a task\'s code from: a scheme (https://), a host (https://github.com), a folder (file:///srv/repos/) or image: for published images; repeatable, replaces the default (https:// and image:)', (v: string, all: string[]) => [...all, v], [] as string[])
    .option('--unconfined-ok', 'run the local executor\'s jobs even where bubblewrap is missing, with no sandbox (default: refuse to start)')
    .option('--stalled-after <seconds>', 'a task whose worker stopped answering (killed, machine lost) goes to another worker after this long; every worker of a queue should use the same value', positiveInt, 60)
    .action(async (opts: WorkerCommandOptions) => {
      const { runWorkerCommand } = await import('../worker-command.js');
      process.exitCode = await runWorkerCommand(opts);
    });
}
