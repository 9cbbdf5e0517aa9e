import * as fs from 'node:fs';
import * as path from 'node:path';
import { DockerExecutor } from '../engine/execute/docker';
import { runBench, type BenchSettings, type BenchTask } from '../engine/bench/bench';
import { parseLanguageId, type LanguageId } from '../engine/languages';
import { runMutationTesting, toResultMutation } from '../engine/mutate/run';
import { summarizeByLanguage } from '../engine/store/results';
import { formatProblem } from '../engine/tasks/jsonl';
import { loadTasks } from '../engine/tasks/load';
import { checkTasks, loadManifest } from '../engine/tasks/manifest';
import { createExecutor, environmentImages } from './executors';
import { contextMode, params, promptBuilder, providerFrom, providerName, type GenerationCliOptions } from './generation-options';
import { reportHtml } from '../engine/report/html';
import { reportJson } from '../engine/report/json';
import { reportMarkdown } from '../engine/report/markdown';
import { buildReport } from '../engine/report/report';
import { formatSummaryText } from './report-command';

export interface BenchCommandOptions extends GenerationCliOptions {
  dataset: string[];
  manifest?: string;
  repos?: string;
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
  const { tasks, problems } = await loadTasks(opts.dataset);
  for (const p of problems) process.stderr.write(formatProblem(p) + '\n');
  const languages = opts.lang ? new Set(opts.lang.split(',').map((l) => parseLanguageId(l) ?? l)) : null;
  let selected = tasks.filter((t) => !languages || languages.has(t.language));
  if (opts.limit) selected = selected.slice(0, opts.limit);
  const manifest = opts.manifest ? loadManifest(opts.manifest) : null;
  const checked = checkTasks(selected, manifest, opts.repos);
  for (const w of checked.warnings) process.stderr.write(`warning: ${w}\n`);

  const executor = opts.images && opts.executor === 'docker' ? await DockerExecutor.create({ images: opts.images }) : await createExecutor(opts.executor);
  // A language this executor cannot run here is excluded up front and said, never scored as zeros.
  for (const language of new Set(checked.usable.map((u) => u.task.language))) {
    const why = await executor.unavailable?.(language);
    if (!why) continue;
    const gone = checked.usable.filter((u) => u.task.language === language);
    checked.usable = checked.usable.filter((u) => u.task.language !== language);
    checked.excluded.push(...gone.map((u) => ({ task: u.task, reason: why })));
    process.stderr.write(`excluded ${gone.length} ${language} tasks: ${why}\n`);
  }
  fs.mkdirSync(opts.runDir, { recursive: true });
  if (checked.excluded.length) {
    fs.writeFileSync(
      path.join(opts.runDir, 'excluded.jsonl'),
      checked.excluded.map((e) => JSON.stringify({ id: e.task.task.id, task_id: e.task.task.task_id, language: e.task.language, file_path: e.task.task.file_path, reason: e.reason })).join('\n') + '\n',
    );
    process.stderr.write(`excluded ${checked.excluded.length} tasks in all (listed in ${path.join(opts.runDir, 'excluded.jsonl')}); first: ${checked.excluded[0].reason}\n`);
  }
  if (!checked.usable.length) throw new Error('no task can run: see the exclusions above');

  const settings: BenchSettings = {
    datasets: opts.dataset.map((d) => path.resolve(d)),
    provider: providerName(opts),
    model: params(opts).model,
    mode: contextMode(opts),
    samples: opts.samples,
    repairRounds: opts.repairRounds,
    params: params(opts),
    executor: opts.executor,
    mutation: !!opts.mutation,
  };
  const provider = providerFrom(opts, opts.concurrency);
  const environmentImageFor = environmentImages(executor, undefined);
  const imageFor = async (checkout: string, language: LanguageId): Promise<string | undefined> => opts.images?.[language] ?? environmentImageFor(checkout, language);
  const builder = promptBuilder(opts, signal);
  const byLanguage = new Map<LanguageId, number>();
  for (const u of checked.usable) byLanguage.set(u.task.language, (byLanguage.get(u.task.language) ?? 0) + 1);
  process.stderr.write(
    `bench: ${checked.usable.length} tasks (${[...byLanguage].map(([l, n]) => `${l} ${n}`).join(', ')}), ${settings.samples} sample(s), ` +
      `${settings.repairRounds} repair round(s), mode ${settings.mode}, provider ${settings.provider}${provider.isBaseline ? ' (offline baseline: a lower bound)' : ` model ${settings.model}`}, ` +
      `executor ${opts.executor}, concurrency ${opts.concurrency}; run folder ${opts.runDir}\n`,
  );

  const isTty = process.stderr.isTTY && opts.progress;
  let lastLine = 0;
  const outcome = await runBench(opts.runDir, settings, checked.usable as BenchTask[], {
    provider,
    executor,
    promptFor: (bt) => builder.promptFor(bt.task, bt.checkout),
    imageFor: (bt) => imageFor(bt.checkout, bt.task.language),
    // Mutation score of passing tests, on the lines the test covered (METRICS.md item 6).
    mutate: async (bt, testCode, coveredLines) =>
      toResultMutation(
        await runMutationTesting(bt.task.task, bt.task.language, testCode, {
          executor,
          repoDir: bt.checkout,
          coveredLines,
          image: await imageFor(bt.checkout, bt.task.language),
          signal,
        }),
      ),
    concurrency: opts.concurrency,
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
      const line = `bench ${p.tasksDone}/${p.tasksTotal} tasks, ${p.results} results (${p.resumed} from before) | CSR ${pct(p.compiled)}% TPR ${pct(p.passed)}% Cov ${pct(p.coverageSum)}% | ${duration(elapsed)} elapsed, ETA ${eta}`;
      process.stderr.write(isTty ? `\r${line.padEnd(process.stderr.columns ?? 120).slice(0, (process.stderr.columns ?? 120) - 1)}` : `${line}\n`);
    },
  }).finally(() => builder.close());
  if (isTty) process.stderr.write('\n');

  const summary = summarizeByLanguage(outcome.results);
  fs.writeFileSync(path.join(opts.runDir, 'summary.json'), JSON.stringify(summary, null, 2) + '\n');
  process.stderr.write(formatSummaryText(summary) + '\n');
  // The full report (tables with intervals, charts) is derived from the results, never the other way.
  if (outcome.results.length) {
    const report = buildReport(outcome.results, { label: `bench: ${settings.provider} ${settings.model}, mode ${settings.mode}` });
    fs.writeFileSync(path.join(opts.runDir, 'report.md'), reportMarkdown(report));
    fs.writeFileSync(path.join(opts.runDir, 'report.html'), reportHtml(report));
    fs.writeFileSync(path.join(opts.runDir, 'report.json'), JSON.stringify(reportJson(summary, report), null, 2) + '\n');
  }
  if (outcome.interrupted) {
    process.stderr.write(`interrupted: ${outcome.results.length} results are kept in ${opts.runDir}; run the same command again to continue\n`);
    return 130;
  }
  process.stderr.write(`results: ${path.join(opts.runDir, 'results.jsonl')}; report: ${path.join(opts.runDir, 'report.html')} (also .md, .json)\n`);
  return 0;
}
