import * as path from 'node:path';
import { runBenchmark, type BenchmarkServices } from '../engine/bench/run-benchmark';
import { QueueCoordinator, runIdOf } from '../engine/distributed/coordinator';
import { applyRateLimit, parseRateLimit } from '../engine/distributed/generate-queue';
import { checkQueueReachable, openQueueWarning, parseQueueUrl } from '../engine/distributed/queue-url';
import { loadRunKey } from '../engine/distributed/run-key';
import { loadSourcesFile, sourceOf } from '../engine/distributed/sources';
import type { JobExperiment } from '../engine/distributed/task-job';
import { loadManifest } from '../engine/tasks/manifest';
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
  /** Improvement rounds after a passing test (0: none, the paper's setting). */
  improveRounds?: number;
  /** Flaky detection: each passing test runs k more times (0: none, the paper's setting). */
  reruns?: number;
  executor: 'docker' | 'local';
  /** Seconds a build may print nothing (--compile-timeout), and take in all (--build-timeout). */
  compileTimeout?: number;
  buildTimeout?: number;
  runDir: string;
  concurrency: number;
  mutation?: boolean;
  progress: boolean;
  /**
   * docker: run each language in this image (e.g. a published image pinned by digest) instead of
   * building an environment image per repository.
   */
  images?: Partial<Record<LanguageId, string>>;
  /** Workers elsewhere run the tasks: the queue's redis:// URL (this process writes the run folder). */
  queue?: string;
  /** With --queue: where workers fetch each repository (`{"<folder>": {"url", "commit"}}`). */
  sources?: string;
  /** With --queue: model calls per period across all workers (`50/min`). */
  rateLimit?: string;
  /** With --queue: the run key shared with the workers (else XREPOTEST_RUN_KEY). */
  runKeyFile?: string;
}

/** `--queue`: the run's tasks go to workers through BullMQ on Redis; this process collects. */
function remoteServices(opts: BenchCommandOptions, log: (line: string) => void): BenchmarkServices['remote'] {
  if (!opts.queue) {
    if (opts.rateLimit) throw new Error('--rate-limit paces the workers of a --queue run; a local run paces its calls with --concurrency');
    if (opts.runKeyFile) throw new Error('--run-key-file signs the jobs of a --queue run; a local run sends none');
    return undefined;
  }
  // Before the dataset is read: a distributed run does not start without its key.
  const runKey = loadRunKey(opts.runKeyFile, process.env, log);
  const rateLimit = opts.rateLimit ? parseRateLimit(opts.rateLimit) : undefined;
  const address = parseQueueUrl(opts.queue);
  const warning = openQueueWarning(address);
  if (warning) log(`warning: ${warning}`);
  const sources = opts.sources ? loadSourcesFile(opts.sources) : null;
  const manifest = opts.manifest ? loadManifest(opts.manifest).manifest : null;
  const g = params(opts);
  const experiment: JobExperiment = {
    provider: providerName(opts),
    model: g.model,
    baseUrl: opts.baseUrl,
    mode: contextMode(opts),
    temperature: g.temperature,
    maxTokens: g.maxTokens,
    topP: g.topP,
    k: opts.k,
    publishedContext: opts.publishedContext,
    embedUrl: opts.embedUrl,
    embedModel: opts.embedModel,
    samples: opts.samples,
    repairRounds: opts.repairRounds,
    mutation: !!opts.mutation,
    executor: opts.executor,
    // Only when asked for: a job without them is what workers before them read.
    ...(opts.improveRounds ? { improveRounds: opts.improveRounds } : {}),
    ...(opts.reruns ? { reruns: opts.reruns } : {}),
    ...(rateLimit ? { rateLimit } : {}),
  };
  return {
    // `reproduce --queue`: the published images, pinned by digest, are the tasks' source and their environment.
    sourceOf: (task) => sourceOf(task, sources, manifest, opts.images),
    runner: async (runDir, byTask) => {
      await checkQueueReachable(address);
      log(`bench: tasks go to the workers on ${address.display}, signed with run key ${runKey.id} (start them with \`xrepotest worker --queue …\` and the same key)`);
      if (rateLimit) {
        await applyRateLimit(address, experiment.provider, rateLimit);
        log(`bench: at most ${rateLimit.max} ${experiment.provider} calls per ${rateLimit.durationMs / 1000} s across all workers`);
      }
      return new QueueCoordinator(address, runKey, runIdOf(runDir), experiment, (bt) => byTask.get(bt)!, log);
    },
  };
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
      timeouts: {
        ...(opts.compileTimeout ? { compileMs: opts.compileTimeout * 1000 } : {}),
        ...(opts.buildTimeout ? { buildMs: opts.buildTimeout * 1000 } : {}),
      },
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
          // Only when asked for: a run folder from before improvement rounds resumes with the same settings.
          ...(opts.improveRounds ? { improveRounds: opts.improveRounds } : {}),
          ...(opts.reruns ? { reruns: opts.reruns } : {}),
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
      remote: remoteServices(opts, log),
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
        const workers = Object.entries(p.workers);
        const perWorker = workers.length
          ? ` | ${workers.length} worker(s): ${workers.map(([w, s]) => `${w} ${s.tasks} (${(s.ms / 1000 / s.tasks).toFixed(1)} s/task)`).join(', ')}${p.failed ? `, ${p.failed} failed` : ''}`
          : '';
        const line = `bench ${p.tasksDone}/${p.tasksTotal} tasks, ${p.results} results (${p.resumed} from before) | CSR ${pct(p.compiled)}% TPR ${pct(p.passed)}% Cov ${pct(p.coverageSum)}%${p.environment ? ` | ${p.environment} environment failures (not in N)` : ''}${perWorker} | ${duration(elapsed)} elapsed, ETA ${eta}`;
        process.stderr.write(isTty ? `\r${line.padEnd(process.stderr.columns ?? 120).slice(0, (process.stderr.columns ?? 120) - 1)}` : `${line}\n`);
      },
    },
  );
  if (isTty) process.stderr.write('\n');
  log(formatSummaryText(outcome.summary));
  for (const f of outcome.failures) log(`task ${f.id}: no worker could run it: ${f.reason}`);
  if (outcome.interrupted) {
    log(`interrupted: ${outcome.results.length} results are kept in ${opts.runDir}; run the same command again to continue`);
    return 130;
  }
  log(`results: ${path.join(opts.runDir, 'results.jsonl')}; report: ${path.join(opts.runDir, 'report.html')} (also .md, .json)`);
  if (outcome.failures.length) {
    log(`${outcome.failures.length} task(s) were not run (above); run the same command again to retry them`);
    return 1;
  }
  return 0;
}
