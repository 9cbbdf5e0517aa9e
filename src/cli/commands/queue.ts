import type { Command } from 'commander';

/** `xrepotest queue status|drain|clean --queue URL`: see and clear the task queues of distributed runs; queue-command.ts (with BullMQ) is loaded when one runs. `queue new-key`: a run key. */
export function registerQueueCommand(program: Command): void {
  const queue = program.command('queue').description('see and clear the task queues of distributed benchmark runs (bench --queue, worker)');
  const url = '--queue <url>';
  const urlHelp = 'redis://[user:password@]host:port[/db] or rediss:// (password also from XREPOTEST_REDIS_PASSWORD)';

  queue
    .command('status')
    .description('jobs per language and state, and the workers connected')
    .requiredOption(url, urlHelp)
    .option('--json', 'print JSON')
    .action(async (opts: { queue: string; json?: boolean }) => {
      const { runQueueStatus } = await import('../queue-command.js');
      await runQueueStatus(opts);
    });

  queue
    .command('drain')
    .description('remove the jobs no worker has started (waiting, delayed); running ones finish')
    .requiredOption(url, urlHelp)
    .action(async (opts: { queue: string }) => {
      const { runQueueDrain } = await import('../queue-command.js');
      await runQueueDrain(opts);
    });

  queue
    .command('new-key')
    .description('make a run key (32 random bytes, hex) for the coordinator and its workers to share: printed, or written to a new file only you can read')
    .option('--out <file>', 'write it to this file (mode 600; an existing file is never replaced)')
    .action(async (opts: { out?: string }) => {
      const { newRunKey } = await import('../../engine/distributed/run-key.js');
      const fs = await import('node:fs');
      const key = `${newRunKey()}\n`;
      if (!opts.out) return void process.stdout.write(key);
      fs.writeFileSync(opts.out, key, { mode: 0o600, flag: 'wx' });
      process.stderr.write(`run key written to ${opts.out}: give this file to the coordinator and every worker (--run-key-file ${opts.out})\n`);
    });

  queue
    .command('clean')
    .description("remove finished jobs (completed, failed) a coordinator has not collected; a run resumed afterwards runs those tasks again")
    .requiredOption(url, urlHelp)
    .action(async (opts: { queue: string }) => {
      const { runQueueClean } = await import('../queue-command.js');
      await runQueueClean(opts);
    });
}
