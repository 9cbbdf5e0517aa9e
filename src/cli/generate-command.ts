import * as fs from 'node:fs';
import type { GenerationRecord } from '../engine/generate/types';
import { inProcessPool } from '../engine/schedule/in-process-pool';
import { AppendLog } from '../engine/store/append-log';
import { runTaskStep } from '../engine/task/run-task-step';
import type { SlotStore } from '../engine/task/slot-store';
import { formatProblem } from '../engine/tasks/jsonl';
import { loadTasks } from '../engine/tasks/load';
import { locateCheckout } from '../engine/tasks/manifest';
import { forTerminal } from '../engine/util/terminal';
import { createExecutor } from './executors';
import { params, promptBuilder, providerFrom, type GenerationCliOptions } from './generation-options';
import { createProgress } from './progress';

export interface GenerateCommandOptions extends GenerationCliOptions {
  out: string;
  samples: number;
  repairRounds: number;
  /** Improvement rounds after a passing test (its replies are written too, for `bench --provider replay --improve-rounds`). */
  improveRounds?: number;
  executor: 'docker' | 'local';
  repos?: string;
  /** --allow-checkouts: where a record's own checkout path may be used from. */
  allowCheckouts?: string;
  concurrency: number;
  progress: boolean;
}

/** Generates tests for every task (samples x repair rounds) and appends them to --out as they come. */
export async function runGenerate(files: string[], opts: GenerateCommandOptions, signal: AbortSignal): Promise<number> {
  const { tasks, problems } = await loadTasks(files);
  for (const p of problems) process.stderr.write(formatProblem(p) + '\n');
  if (!tasks.length) throw new Error('no tasks to generate for');
  const provider = providerFrom(opts, opts.concurrency);
  const decoding = params(opts);
  const builder = promptBuilder(opts, signal);
  const improveRounds = opts.improveRounds ?? 0;
  const executor = opts.repairRounds > 0 || improveRounds > 0 ? await createExecutor(opts.executor) : null;
  if (fs.existsSync(opts.out)) fs.rmSync(opts.out);
  const out = AppendLog.open<GenerationRecord>(opts.out);
  const progress = createProgress('generate', opts.progress);
  let done = 0;
  let cost = 0;
  let tokens = 0;
  let failed = 0;
  const told = new Set<string>();
  const step = async (t: (typeof tasks)[number]): Promise<void> => {
    const found = locateCheckout(t, { reposRoot: opts.repos, allowRecorded: opts.allowCheckouts });
    const repoDir = found.checkout ?? undefined;
    // Repair and improvement rounds need the checkout to run the tests: say once per repository why they will not run.
    if (found.checkout === null && executor && !told.has(found.reason)) {
      told.add(found.reason);
      process.stderr.write(`${improveRounds ? 'repair and improvement' : 'repair'} rounds skipped: ${found.reason}\n`);
    }
    const prompt = await builder.promptFor(t, repoDir);
    // Generations only: tests are run just to ask for repairs (and, with improvement rounds, scored to
    // judge the new tests), and nothing but the generations is kept: every one, in the order asked.
    const asked: GenerationRecord[] = [];
    const collect: SlotStore = { generation: () => undefined, result: () => undefined, addGeneration: (_t, _l, g) => void asked.push(g), addResult: () => undefined };
    const improving = improveRounds > 0 && !!executor && !!repoDir;
    const slots = await runTaskStep(
      t,
      {
        provider,
        params: decoding,
        labels: { provider: provider.id, model: decoding.model, mode: prompt.mode },
        prompt: async () => prompt,
        evaluation: executor && repoDir ? { executor, checkout: repoDir } : undefined,
        store: collect,
      },
      { samples: opts.samples, repairRounds: opts.repairRounds, mutation: false, results: improving, improveRounds: improving ? improveRounds : 0, signal },
    );
    for (const r of improving ? asked : slots.map((x) => x.generation)) {
      out.append(r);
      cost += r.cost_usd ?? 0;
      tokens += r.usage.inputTokens + r.usage.outputTokens;
      if (r.error) failed++;
    }
  };
  try {
    await inProcessPool.run(tasks, step, {
      concurrency: opts.concurrency,
      signal,
      onResult: () => {
        done++;
        progress.update(done, tasks.length, `${tokens} tokens, $${cost.toFixed(4)}${failed ? `, ${failed} failed calls` : ''}`);
      },
    });
  } finally {
    progress.stop();
    out.close();
    await builder.close();
    await executor?.close?.();
  }
  const label = provider.isBaseline ? ' (the offline baseline: a lower bound, not a model)' : '';
  process.stderr.write(forTerminal(`wrote ${out.records.length} generations for ${done} tasks to ${opts.out}${label}; ${tokens} tokens, $${cost.toFixed(4)}`) + '\n');
  // Provider errors quote the server: printed without its control characters.
  for (const r of out.records.filter((x) => x.error).slice(0, 5)) process.stderr.write(forTerminal(`  task ${r.task_id} sample ${r.sample}: ${r.error}`) + '\n');
  return signal.aborted ? 130 : 0;
}

