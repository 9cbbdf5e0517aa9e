import { Queue } from 'bullmq';
import { checkQueueReachable, connectionOptions, parseQueueUrl } from '../engine/distributed/queue-url';
import { QUEUE_PREFIX, queueName } from '../engine/distributed/task-job';
import { LANGUAGE_IDS } from '../engine/languages/ids';

/** `xrepotest queue status|drain|clean --queue URL`'s work (flags: commands/queue.ts): see and clear the task queues of distributed runs. */

const STATES = ['waiting', 'active', 'delayed', 'completed', 'failed'] as const;

async function withQueues<T>(url: string, each: (language: string, q: Queue) => Promise<T>): Promise<Array<[string, T]>> {
  const address = parseQueueUrl(url);
  await checkQueueReachable(address);
  const connection = connectionOptions(address);
  const out: Array<[string, T]> = [];
  for (const language of LANGUAGE_IDS) {
    const q = new Queue(queueName(language), { connection, prefix: QUEUE_PREFIX });
    try {
      out.push([language, await each(language, q)]);
    } finally {
      await q.close();
    }
  }
  return out;
}

/** Jobs per language and state, and the workers connected. */
export async function runQueueStatus(opts: { queue: string; json?: boolean }): Promise<void> {
  const rows = await withQueues(opts.queue, async (_l, q) => {
    const counts: Record<string, number> = await q.getJobCounts(...STATES);
    return { ...counts, workers: (await q.getWorkers()).length };
  });
  if (opts.json) {
    process.stdout.write(JSON.stringify(Object.fromEntries(rows), null, 2) + '\n');
    return;
  }
  const head = ['language', ...STATES, 'workers'];
  process.stdout.write(head.map((h) => h.padEnd(10)).join(' ') + '\n');
  for (const [language, c] of rows) process.stdout.write([language, ...STATES.map((s) => String((c as Record<string, number>)[s] ?? 0)), String(c.workers)].map((v) => v.padEnd(10)).join(' ') + '\n');
}

/** Removes the jobs no worker has started (waiting, delayed); running ones finish. */
export async function runQueueDrain(opts: { queue: string }): Promise<void> {
  const rows = await withQueues(opts.queue, async (_l, q) => {
    const before = await q.getJobCounts('waiting', 'delayed');
    await q.drain(true);
    return (before.waiting ?? 0) + (before.delayed ?? 0);
  });
  process.stdout.write(`removed ${rows.reduce((a, [, n]) => a + n, 0)} jobs not yet started\n`);
}

/** Removes finished jobs (completed, failed) a coordinator has not collected. */
export async function runQueueClean(opts: { queue: string }): Promise<void> {
  const rows = await withQueues(opts.queue, async (_l, q) => (await q.clean(0, 0, 'completed')).length + (await q.clean(0, 0, 'failed')).length);
  process.stdout.write(`removed ${rows.reduce((a, [, n]) => a + n, 0)} finished jobs\n`);
}
