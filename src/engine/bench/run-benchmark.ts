import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Executor } from '../execute/types';
import type { Prompt, Provider } from '../generate/types';
import { parseLanguageId, type LanguageId } from '../languages';
import { buildReport } from '../report/report';
import { runLabel } from '../report/run-label';
import { dedupeSlots, duplicatesNote } from '../report/dedupe';
import { reportHtml } from '../report/html';
import { reportJson } from '../report/json';
import { reportMarkdown } from '../report/markdown';
import type { ResultRecord } from '../store/results';
import { summarizeByLanguage, type Summary } from '../report/summary';
import { formatProblem } from '../tasks/jsonl';
import { loadTasks, type LoadedTask } from '../tasks/load';
import { checkTasks, isWithin, loadManifest, type CheckedTasks } from '../tasks/manifest';
import { repositoryNameOf } from '../tasks/task-path';
import { acquireRunLock } from '../store/run-lock';
import type { RemoteRunner } from '../distributed/coordinator';
import type { TaskSource } from '../distributed/task-job';
import { runBench, type BenchHooks, type BenchProgress, type BenchSettings, type BenchTask } from './bench';

/** Which tasks, where their checkouts are, and where the run goes. */
export interface BenchmarkPlan {
  dataset: string[];
  manifest?: string;
  repos?: string;
  /** Without manifest and repos: the folder a task record's own checkout path must lie in to be used. */
  allowCheckouts?: string;
  /**
   * Every checkout, however found (manifest, repos, the record's own), must lie in this folder, links
   * followed; the others are excluded and said. An agent's benchmark names its paths; the user named the workspace.
   */
  checkoutsWithin?: string;
  /** Comma-separated languages. */
  lang?: string;
  limit?: number;
  runDir: string;
  concurrency: number;
  /** Everything of `BenchSettings` but the datasets (resolved from `dataset`). */
  settings: Omit<BenchSettings, 'datasets'>;
  timeouts?: BenchHooks['timeouts'];
}

/**
 * What the caller brings: the CLI its flags and headless language servers, the engine server the
 * editor's settings and secret storage. Made lazily, in the CLI's order, so a missing container
 * engine or model is reported after the dataset's own problems.
 */
export interface BenchmarkServices {
  executor(): Promise<Executor>;
  provider(): Provider;
  /** The image a repository's tests run in (docker), or undefined. */
  imageFor?(executor: Executor): (checkout: string, language: LanguageId) => Promise<string | undefined>;
  promptBuilder(): { promptFor(task: BenchTask): Promise<Prompt>; close(): Promise<void> };
  mutate?(executor: Executor, imageFor: (checkout: string, language: LanguageId) => Promise<string | undefined>): BenchHooks['mutate'];
  /** Who runs the tasks; default: the in-process pool of `plan.concurrency`. */
  scheduler?: BenchHooks['scheduler'];
  /**
   * Workers on other machines run the tasks (`bench --queue`): where each task's code comes from for
   * them, and the runner for the run folder. This process then runs no test and needs no checkout.
   */
  remote?: {
    sourceOf(task: BenchTask['task']): TaskSource | { problem: string };
    runner(runDir: string, sources: Map<LoadedTask, TaskSource>): Promise<RemoteRunner>;
  };
}

/** Where the run's lines and progress go, and what stops it (results so far are kept). */
export interface BenchmarkIo {
  log(line: string): void;
  onProgress?(p: BenchProgress): void;
  /** A task's phase as it changes (null: the task is done). */
  onTaskPhase?: BenchHooks['onTaskPhase'];
  signal: AbortSignal;
}

export interface BenchmarkOutcome {
  runDir: string;
  results: ResultRecord[];
  resumed: number;
  interrupted: boolean;
  summary: Summary;
  tasks: number;
  excluded: number;
  /** report.html, report.md, report.json; empty when there is no result yet. */
  reports: { html?: string; markdown?: string; json?: string };
  /** `<repository name>` → absolute checkout path, as written to checkouts.json. */
  checkouts: Record<string, string>;
  /** A distributed run's tasks that no worker could run (a rerun retries them). */
  failures: Array<{ id: string; reason: string }>;
}

/** checkouts.json: where each repository of the run is, so a viewer can open the focal functions. */
export function checkoutsOf(tasks: readonly BenchTask[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of tasks) out[repositoryNameOf(t.task.task)] ??= path.resolve(t.checkout);
  return out;
}

/**
 * Generates, runs and scores a dataset into a run folder (the CLI's `bench` and the editor's "Run a
 * benchmark…"): loads and filters the tasks, excludes what cannot run here (said, never scored as
 * zeros), runs them resumably, and writes summary.json, report.{html,md,json} and checkouts.json.
 */
export async function runBenchmark(plan: BenchmarkPlan, services: BenchmarkServices, io: BenchmarkIo): Promise<BenchmarkOutcome> {
  const { tasks, problems } = await loadTasks(plan.dataset);
  for (const p of problems) io.log(formatProblem(p));
  const languages = plan.lang ? new Set(plan.lang.split(',').map((l) => parseLanguageId(l) ?? l)) : null;
  let selected = tasks.filter((t) => !languages || languages.has(t.language));
  if (plan.limit) selected = selected.slice(0, plan.limit);
  const manifest = plan.manifest ? loadManifest(plan.manifest) : null;
  const remote = services.remote;
  // Workers fetch the code themselves: checkouts here are optional (given, they are checked as ever).
  const checked =
    remote && !plan.repos && !plan.manifest && !plan.allowCheckouts
      ? { usable: selected.map((task) => ({ task, checkout: '' })), excluded: [], warnings: [] }
      : checkTasks(selected, manifest, plan.repos, plan.allowCheckouts);
  for (const w of checked.warnings) io.log(`warning: ${w}`);
  if (plan.checkoutsWithin) confineCheckouts(checked, plan.checkoutsWithin);
  if (remote) return runRemote(plan, services, io, checked, remote);

  const executor = await services.executor();
  // A language this executor cannot run here is excluded up front and said, never scored as zeros.
  for (const language of new Set(checked.usable.map((u) => u.task.language))) {
    const why = await executor.unavailable?.(language);
    if (!why) continue;
    const gone = checked.usable.filter((u) => u.task.language === language);
    checked.usable = checked.usable.filter((u) => u.task.language !== language);
    checked.excluded.push(...gone.map((u) => ({ task: u.task, reason: why })));
    io.log(`excluded ${gone.length} ${language} tasks: ${why}`);
  }
  // One process per run folder from here on: a second would run every task again and double the results.
  const lock = acquireRunLock(plan.runDir, 'bench');
  for (const line of lock.tookOver) io.log(line);
  try {
    return await runLocked(plan, services, io, checked, executor);
  } finally {
    lock.release();
    // Reused containers end with the run (a crashed run's are reaped by the next by their labels).
    await executor.close?.();
  }
}

/** Moves the tasks whose checkout (links followed) is not inside `root` from usable to excluded, with the reason. */
function confineCheckouts(checked: CheckedTasks, root: string): void {
  const kept: CheckedTasks['usable'] = [];
  for (const u of checked.usable) {
    if (isWithin(root, u.checkout)) kept.push(u);
    else checked.excluded.push({ task: u.task, reason: `refused: the checkout ${u.checkout} of ${repositoryNameOf(u.task.task)} is outside ${root} (links followed); only repositories inside it can run` });
  }
  checked.usable = kept;
}

/** `bench --queue`: the tasks go to workers with where their code comes from; this process writes the folder. */
async function runRemote(plan: BenchmarkPlan, services: BenchmarkServices, io: BenchmarkIo, checked: CheckedTasks, remote: NonNullable<BenchmarkServices['remote']>): Promise<BenchmarkOutcome> {
  const sources = new Map<LoadedTask, TaskSource>();
  const usable: CheckedTasks['usable'] = [];
  for (const u of checked.usable as BenchTask[]) {
    const s = remote.sourceOf(u.task);
    if ('problem' in s) checked.excluded.push({ task: u.task, reason: s.problem });
    else {
      sources.set(u.task, s);
      usable.push(u);
    }
  }
  checked.usable = usable;
  const lock = acquireRunLock(plan.runDir, 'bench');
  for (const line of lock.tookOver) io.log(line);
  let runner: RemoteRunner | null = null;
  try {
    fs.mkdirSync(plan.runDir, { recursive: true });
    runner = await remote.runner(plan.runDir, sources);
    return await runLocked(plan, services, io, checked, null, runner);
  } finally {
    lock.release();
    await runner?.close();
  }
}

async function runLocked(plan: BenchmarkPlan, services: BenchmarkServices, io: BenchmarkIo, checked: CheckedTasks, executor: Executor | null, remote?: RemoteRunner): Promise<BenchmarkOutcome> {
  if (checked.excluded.length) {
    fs.writeFileSync(
      path.join(plan.runDir, 'excluded.jsonl'),
      checked.excluded.map((e) => JSON.stringify({ id: e.task.task.id, task_id: e.task.task.task_id, language: e.task.language, file_path: e.task.task.file_path, reason: e.reason })).join('\n') + '\n',
    );
    io.log(`excluded ${checked.excluded.length} tasks in all (listed in ${path.join(plan.runDir, 'excluded.jsonl')}); first: ${checked.excluded[0].reason}`);
  }
  if (!checked.usable.length) throw new Error('no task can run: see the exclusions above');

  const settings: BenchSettings = { datasets: plan.dataset.map((d) => path.resolve(d)), ...plan.settings };
  // A coordinator asks no model: its workers do, with their own keys.
  const provider = remote ? null : services.provider();
  const imageFor = (executor && services.imageFor?.(executor)) ?? (async () => undefined);
  const usable = checked.usable as BenchTask[];
  // A distributed run without local checkouts has none to name.
  const checkouts = checkoutsOf(usable.filter((u) => u.checkout));
  fs.writeFileSync(path.join(plan.runDir, 'checkouts.json'), JSON.stringify(checkouts, null, 2) + '\n');
  const byLanguage = new Map<LanguageId, number>();
  for (const u of usable) byLanguage.set(u.task.language, (byLanguage.get(u.task.language) ?? 0) + 1);
  io.log(
    `bench: ${usable.length} tasks (${[...byLanguage].map(([l, n]) => `${l} ${n}`).join(', ')}), ${settings.samples} sample(s), ` +
      `${settings.repairRounds} repair round(s), ${settings.improveRounds ? `${settings.improveRounds} improvement round(s), ` : ''}${settings.reruns ? `${settings.reruns} rerun(s) of a passing test, ` : ''}mode ${settings.mode}, provider ${settings.provider}${settings.provider === 'baseline' || provider?.isBaseline ? ' (offline baseline: a lower bound)' : ` model ${settings.model}`}, ` +
      `executor ${settings.executor}, concurrency ${plan.concurrency}; run folder ${plan.runDir}`,
  );

  const builder = remote ? { promptFor: () => Promise.reject(new Error('a coordinator builds no prompt')), close: async () => undefined } : services.promptBuilder();
  const outcome = await runBench(plan.runDir, settings, usable, {
    provider: provider ?? undefined,
    executor: executor ?? undefined,
    promptFor: (bt) => builder.promptFor(bt),
    imageFor: (bt) => imageFor(bt.checkout, bt.task.language),
    mutate: executor ? services.mutate?.(executor, imageFor) : undefined,
    remote,
    concurrency: plan.concurrency,
    scheduler: services.scheduler,
    signal: io.signal,
    timeouts: plan.timeouts,
    onProgress: io.onProgress,
    onTaskPhase: io.onTaskPhase,
  }).finally(() => builder.close());

  // A folder once shared by two processes (before the lock) may hold a slot twice: count it once.
  const deduped = dedupeSlots(outcome.results);
  if (deduped.dropped) io.log(`${plan.runDir}: ${duplicatesNote(deduped.dropped)}`);
  outcome.results = deduped.results;
  const summary = summarizeByLanguage(outcome.results);
  fs.writeFileSync(path.join(plan.runDir, 'summary.json'), JSON.stringify(summary, null, 2) + '\n');
  // The full report (tables with intervals, charts) is derived from the results, never the other way.
  const reports: BenchmarkOutcome['reports'] = {};
  if (outcome.results.length) {
    const report = buildReport(outcome.results, { label: `XRepoTest benchmark: ${runLabel(settings)}` });
    reports.markdown = path.join(plan.runDir, 'report.md');
    reports.html = path.join(plan.runDir, 'report.html');
    reports.json = path.join(plan.runDir, 'report.json');
    fs.writeFileSync(reports.markdown, reportMarkdown(report));
    fs.writeFileSync(reports.html, reportHtml(report));
    fs.writeFileSync(reports.json, JSON.stringify(reportJson(summary, report), null, 2) + '\n');
  }
  return {
    runDir: plan.runDir,
    results: outcome.results,
    resumed: outcome.resumed,
    interrupted: outcome.interrupted,
    summary,
    tasks: usable.length,
    excluded: checked.excluded.length,
    reports,
    checkouts,
    failures: outcome.failures.map((f) => ({ id: f.task.task.task.id ?? `${f.task.task.language}:${f.task.task.task.task_id}`, reason: f.reason })),
  };
}
