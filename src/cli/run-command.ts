import * as fs from 'node:fs';
import { BaseCheckouts, baseCommitOf } from '../engine/execute/regression';
import { formatProblem } from '../engine/tasks/jsonl';
import { loadGenerations } from '../engine/tasks/generations';
import { loadTasks, type LoadedTask } from '../engine/tasks/load';
import { locateCheckout } from '../engine/tasks/manifest';
import { inProcessPool } from '../engine/schedule/in-process-pool';
import type { ResultRecord } from '../engine/store/results';
import { summarizeByLanguage } from '../engine/report/summary';
import { scoreTest } from '../engine/task/run-task-step';
import { acquireLockFile } from '../engine/store/run-lock';
import { createExecutor, environmentImages } from './executors';
import { createProgress } from './progress';
import { formatSummaryText } from '../engine/report/summary-text';

export interface RunCommandOptions {
  tests: string[];
  executor: 'docker' | 'local';
  out?: string;
  repos?: string;
  /** --allow-checkouts: where a record's own checkout path may be used from. */
  allowCheckouts?: string;
  image?: string;
  concurrency: number;
  keepSandboxes?: boolean;
  compileTimeout: number;
  buildTimeout: number;
  testTimeout: number;
  memoryMb: number;
  progress: boolean;
  /** Flaky detection: a passing test runs this many more times in fresh sandboxes (default 0: the paper's setting). */
  reruns?: number;
  /** Tasks from `extract --changed-since`: each passing test is run again at the base commit (execute/regression.ts). */
  regressionCheck?: boolean;
}

/** Where a task's repository is checked out: `--repos DIR/<name>`, else (if allowed) where it was extracted. */
export function repositoryDir(task: LoadedTask, reposRoot: string | undefined, allowCheckouts?: string): string {
  const found = locateCheckout(task, { reposRoot, allowRecorded: allowCheckouts });
  if (found.checkout === null) throw new Error(`task ${task.task.task_id}: ${found.reason}`);
  return found.checkout;
}

export async function runRun(taskFiles: string[], opts: RunCommandOptions, signal: AbortSignal): Promise<number> {
  const { tasks, problems } = await loadTasks(taskFiles);
  for (const p of problems) process.stderr.write(formatProblem(p) + '\n');
  const loaded = await loadGenerations(opts.tests, tasks);
  for (const p of loaded.problems) process.stderr.write(formatProblem(p) + '\n');
  const generations = loaded.generations;
  if (!generations.length) throw new Error('nothing to run: no generation matched a task (see the lines above)');
  const executor = await createExecutor(opts.executor);
  const imageFor = environmentImages(executor, opts.image);
  // Two runs writing one --out file would truncate and interleave each other's results.
  const lock = opts.out ? acquireLockFile(`${opts.out}.lock`, opts.out, 'run') : null;
  for (const line of lock?.tookOver ?? []) process.stderr.write(`${line}\n`);
  const out = opts.out ? fs.openSync(opts.out, 'w') : null;
  const results: ResultRecord[] = [];
  const bases = opts.regressionCheck ? new BaseCheckouts() : undefined;
  if (bases && !generations.some((g) => baseCommitOf(g.task.task))) {
    process.stderr.write('--regression-check: no task names a base commit (extract the tasks with `xrepotest extract --changed-since <ref>`); nothing will be checked\n');
  }
  const progress = createProgress('run', opts.progress);
  let passed = 0;
  const step = async (g: (typeof generations)[number]): Promise<void> => {
    const repoDir = repositoryDir(g.task, opts.repos, opts.allowCheckouts);
    const record = await scoreTest(
      g.task,
      g.testCode,
      g.sample,
      g.origin,
      {
        executor,
        checkout: repoDir,
        // Resolved by the slot, as bench's are (task/run-task-step.ts, evaluateSlot): an image that does not
        // build, or a repository that cannot be copied, is the slot's environment row; the run goes on.
        image: () => imageFor(repoDir, g.task.language),
        keepSandbox: opts.keepSandboxes,
        timeouts: { compileMs: opts.compileTimeout * 1000, buildMs: opts.buildTimeout * 1000, testMs: opts.testTimeout * 1000 },
        limits: { memoryBytes: opts.memoryMb * 1024 * 1024 },
        reruns: opts.reruns ?? 0,
        ...(bases ? { regression: bases } : {}),
      },
      signal,
    );
    results.push(record);
    if (record.checks[0].tests) passed++;
    // One line per result as it finishes: a killed run keeps every finished result.
    if (out !== null) {
      fs.writeSync(out, JSON.stringify(record) + '\n');
      fs.fsyncSync(out);
    }
    progress.update(results.length, generations.length, `${passed} passed`);
  };
  try {
    await inProcessPool.run(generations, step, { concurrency: opts.concurrency, signal });
  } finally {
    progress.stop();
    if (out !== null) fs.closeSync(out);
    lock?.release();
    bases?.close();
    await executor.close?.();
  }
  if (!opts.out) for (const r of results) process.stdout.write(JSON.stringify(r) + '\n');
  process.stderr.write(formatSummaryText(summarizeByLanguage(results)) + '\n');
  if (bases) process.stderr.write(regressionLine(results) + '\n');
  if (opts.out) process.stderr.write(`wrote ${results.length} results to ${opts.out}\n`);
  return signal.aborted ? 130 : 0;
}

/** What `--regression-check` found, in one line: how many passing tests reveal the change. */
export function regressionLine(results: ResultRecord[]): string {
  const counts = { 'change-revealing': 0, 'passes-at-base': 0, 'absent-at-base': 0, 'not-checked': 0 };
  for (const r of results) if (r.xrt.regression) counts[r.xrt.regression.verdict]++;
  const checked = Object.values(counts).reduce((a, b) => a + b, 0);
  return `regression check: ${counts['change-revealing']} of ${checked} passing tests are change-revealing (fail at the base commit); ${counts['passes-at-base']} pass there too, ${counts['absent-at-base']} test a function the base commit lacks, ${counts['not-checked']} not checked`;
}
