import * as path from 'node:path';
import { runBenchmark } from '../engine/bench/run-benchmark';
import type { LanguageId } from '../engine/languages';
import { runMutationTesting, toResultMutation } from '../engine/mutate/run';
import { formatSummaryText } from '../engine/report/summary-text';
import { forTerminal } from '../engine/util/terminal';
import { createExecutor, environmentImages } from './executors';
import { contextMode, params, promptBuilder, providerFrom, providerName, type GenerationCliOptions } from './generation-options';

export interface BenchCommandOptions extends GenerationCliOptions {
  dataset: string[];
  manifest?: string;
  repos?: string;
  /** --allow-checkouts: where a record's own checkout path may be used from (without --repos/--manifest). */
  allowCheckouts?: string;
  lang?: string;
  limit?: number;
  samples: number;
  repairRounds: number;
  executor: 'docker' | 'local';
  runDir: string;
  concurrency: number;
  mutation?: boolean;
  progress: boolean;
  /**
   * docker: run each language in this image (e.g. a published image pinned by digest) instead of
   * building an environment image per repository.
   */
  images?: Partial<Record<LanguageId, string>>;
}

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 3600 ? `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m` : s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

/** Generate, run and score a whole dataset into a run folder; rerun with the same folder to resume. */
export async function runBenchCommand(opts: BenchCommandOptions, signal: AbortSignal): Promise<number> {
  // Lines can name models and quote provider errors and reasons: no control characters of theirs are printed.
  const log = (line: string): void => void process.stderr.write(`${forTerminal(line)}\n`);
  const isTty = process.stderr.isTTY && opts.progress;
  let lastLine = 0;
  const outcome = await runBenchmark(
    {
      dataset: opts.dataset,
      manifest: opts.manifest,
      repos: opts.repos,
      allowCheckouts: opts.allowCheckouts,
      lang: opts.lang,
      limit: opts.limit,
      runDir: opts.runDir,
      concurrency: opts.concurrency,
      // Getters: the CLI checks --mode and --provider once the dataset is loaded, as it always has.
      get settings() {
        return {
          provider: providerName(opts),
          model: params(opts).model,
          mode: contextMode(opts),
          samples: opts.samples,
          repairRounds: opts.repairRounds,
          params: params(opts),
          executor: opts.executor,
          mutation: !!opts.mutation,
        };
      },
    },
    {
      executor: () => createExecutor(opts.executor, { images: opts.images }),
      provider: () => providerFrom(opts, opts.concurrency),
      imageFor: (executor) => {
        const environmentImageFor = environmentImages(executor, undefined);
        return async (checkout, language) => opts.images?.[language] ?? environmentImageFor(checkout, language);
      },
      promptBuilder: () => {
        const builder = promptBuilder(opts, signal);
        return { promptFor: (bt) => builder.promptFor(bt.task, bt.checkout), close: () => builder.close() };
      },
      // Mutation score of passing tests, on the lines the test covered (METRICS.md item 6).
      mutate: (executor, imageFor) => async (bt, testCode, coveredLines) =>
        toResultMutation(
          await runMutationTesting(bt.task.task, bt.task.language, testCode, {
            executor,
            repoDir: bt.checkout,
            coveredLines,
            image: await imageFor(bt.checkout, bt.task.language),
            signal,
          }),
        ),
    },
    {
      log,
      signal,
      onProgress(p) {
        if (!opts.progress) return;
        const now = Date.now();
        if (!isTty && now - lastLine < 5000 && p.tasksDone < p.tasksTotal) return;
        lastLine = now;
        const elapsed = now - p.startedAt;
        const fresh = p.tasksDone;
        const eta = fresh > 0 ? duration((elapsed / fresh) * (p.tasksTotal - p.tasksDone)) : '?';
        const pct = (n: number): string => (p.results ? ((100 * n) / p.results).toFixed(1) : '0.0');
        const line = `bench ${p.tasksDone}/${p.tasksTotal} tasks, ${p.results} results (${p.resumed} from before) | CSR ${pct(p.compiled)}% TPR ${pct(p.passed)}% Cov ${pct(p.coverageSum)}%${p.environment ? ` | ${p.environment} environment failures (not in N)` : ''} | ${duration(elapsed)} elapsed, ETA ${eta}`;
        process.stderr.write(isTty ? `\r${line.padEnd(process.stderr.columns ?? 120).slice(0, (process.stderr.columns ?? 120) - 1)}` : `${line}\n`);
      },
    },
  );
  if (isTty) process.stderr.write('\n');
  log(formatSummaryText(outcome.summary));
  if (outcome.interrupted) {
    log(`interrupted: ${outcome.results.length} results are kept in ${opts.runDir}; run the same command again to continue`);
    return 130;
  }
  log(`results: ${path.join(opts.runDir, 'results.jsonl')}; report: ${path.join(opts.runDir, 'report.html')} (also .md, .json)`);
  return 0;
}
