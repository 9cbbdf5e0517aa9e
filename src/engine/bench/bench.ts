import * as fs from 'node:fs';
import * as path from 'node:path';
import { evaluateTest, testHash } from '../execute/evaluate';
import type { Executor } from '../execute/types';
import { generateOne, repairPrompt } from '../generate/generate';
import type { ChatMessage, ContextMode, GenerationParams, GenerationRecord, Prompt, Provider } from '../generate/types';
import { AppendLog } from '../store/append-log';
import type { EnvironmentProblem } from '../score/types';
import { toResultRecord, type ResultRecord } from '../store/results';
import type { LoadedTask } from '../tasks/load';

/** What makes a run: resuming with other settings would mix two experiments in one folder. */
export interface BenchSettings {
  datasets: string[];
  provider: string;
  model: string;
  mode: ContextMode;
  samples: number;
  repairRounds: number;
  params: GenerationParams;
  executor: 'docker' | 'local';
  mutation: boolean;
}

export interface BenchTask {
  task: LoadedTask;
  checkout: string;
}

export interface BenchHooks {
  provider: Provider;
  executor: Executor;
  /** The prompt for a task in the run's mode (context gathered as the mode needs). */
  promptFor(task: BenchTask): Promise<Prompt>;
  /** docker: the image for a repository's environment (built once); local: undefined. */
  imageFor?(task: BenchTask): Promise<string | undefined>;
  /** Mutation score of a passing test (when the run asks for it). */
  mutate?(task: BenchTask, testCode: string, coveredLines: number[]): Promise<ResultRecord['xrt']['mutation']>;
  concurrency: number;
  signal?: AbortSignal;
  onProgress?(p: BenchProgress): void;
  timeouts?: { compileMs?: number; testMs?: number };
}

export interface BenchProgress {
  tasksDone: number;
  tasksTotal: number;
  results: number;
  passed: number;
  compiled: number;
  coverageSum: number;
  /** Slots the harness could not score (category 'environment'): not in `results`, nor in its rates. */
  environment: number;
  startedAt: number;
  /** Results found on disk from an earlier run of this folder. */
  resumed: number;
}

export interface BenchOutcome {
  results: ResultRecord[];
  generations: GenerationRecord[];
  resumed: number;
  interrupted: boolean;
}

function taskKey(t: LoadedTask): string {
  return t.task.id ?? `${t.language}:${t.task.task_id}`;
}

function generationKey(t: LoadedTask, s: BenchSettings, sample: number, round: number): string {
  return [taskKey(t), s.provider, s.model, s.mode, sample, round].join('|');
}

/** Results are keyed by (task, model, mode, sample, round, hash of the test): a changed test is never a cached one. */
function resultKey(t: LoadedTask, s: BenchSettings, sample: number, round: number, testHash: string): string {
  return [taskKey(t), s.model, s.mode, sample, round, testHash].join('|');
}

export function settingsFile(runDir: string): string {
  return path.join(runDir, 'run.json');
}

/** Creates the run folder, or checks that a resumed one was started with the same settings. */
export function openRunDir(runDir: string, settings: BenchSettings): void {
  fs.mkdirSync(runDir, { recursive: true });
  const file = settingsFile(runDir);
  if (fs.existsSync(file)) {
    const before = JSON.parse(fs.readFileSync(file, 'utf8')) as BenchSettings;
    const differs = (Object.keys(settings) as Array<keyof BenchSettings>).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(settings[k]));
    if (differs.length) {
      throw new Error(`${runDir} holds a run with other settings (${differs.join(', ')}): resume it with the same settings, or use a new --run-dir`);
    }
    return;
  }
  const tmp = `${file}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(settings, null, 2) + '\n');
  fs.renameSync(tmp, file);
}

/**
 * Generates, runs and scores every task: resumable (records are appended as they finish and read back
 * on restart), concurrent, cancellable. A task's samples and repair rounds run in order; tasks run in
 * parallel. Each test runs in a fresh copy; environments (images, build caches) are shared.
 */
export async function runBench(runDir: string, settings: BenchSettings, tasks: BenchTask[], hooks: BenchHooks): Promise<BenchOutcome> {
  openRunDir(runDir, settings);
  const generations = AppendLog.open<GenerationRecord>(path.join(runDir, 'generations.jsonl'));
  const results = AppendLog.open<ResultRecord>(path.join(runDir, 'results.jsonl'));
  const genByKey = new Map<string, GenerationRecord>();
  const byTask = new Map(tasks.map((t) => [taskKey(t.task), t.task]));
  for (const g of generations.records) {
    const t = byTask.get(g.id ?? `${g.language}:${g.task_id}`);
    if (t) genByKey.set(generationKey(t, settings, g.sample, g.round), g);
  }
  const resultByKey = new Map<string, ResultRecord>();
  for (const r of results.records) {
    const t = byTask.get(r.id ?? `${r.xrt.language}:${r.task_id}`);
    if (t) resultByKey.set(resultKey(t, settings, r.xrt.sample, r.xrt.round, r.xrt.test_hash), r);
  }
  const progress: BenchProgress = {
    tasksDone: 0,
    tasksTotal: tasks.length,
    results: 0,
    passed: 0,
    compiled: 0,
    coverageSum: 0,
    environment: 0,
    startedAt: Date.now(),
    resumed: resultByKey.size,
  };
  const count = (r: ResultRecord): void => {
    if (r.xrt.failure_category === 'environment') {
      progress.environment++;
      return;
    }
    progress.results++;
    if (r.checks[0].tests) progress.passed++;
    if (r.checks[0].compilation) progress.compiled++;
    const c = r.coverage_stats[0];
    progress.coverageSum += c.total_lines ? c.covered_lines / c.total_lines : 0;
  };

  const runTask = async (bt: BenchTask): Promise<void> => {
    const { task, language } = bt.task;
    let prompt: Prompt | null = null;
    for (let sample = 0; sample < settings.samples; sample++) {
      const messages: ChatMessage[] = [];
      for (let round = 0; round <= settings.repairRounds; round++) {
        hooks.signal?.throwIfAborted();
        const gKey = generationKey(bt.task, settings, sample, round);
        let gen = genByKey.get(gKey);
        if (!gen) {
          prompt ??= await hooks.promptFor(bt);
          if (!messages.length) messages.push({ role: 'user', content: prompt.user });
          gen = await generateOne({ provider: hooks.provider, params: settings.params, prompt, messages, task, language, sample, round, signal: hooks.signal });
          generations.append(gen);
          genByKey.set(gKey, gen);
        }
        const rKey = resultKey(bt.task, settings, sample, round, testHash(gen.test_code));
        let result = resultByKey.get(rKey);
        if (!result) {
          // An environment image that does not build is the machine's failure: each slot says so, the run goes on.
          let image: string | undefined;
          let environmentProblem: EnvironmentProblem | undefined;
          try {
            image = await hooks.imageFor?.(bt);
          } catch (e) {
            hooks.signal?.throwIfAborted();
            const message = (e instanceof Error ? e.message : String(e)).split('\n')[0];
            environmentProblem = { cause: 'image-does-not-build', reason: `the ${language} environment image for ${path.basename(bt.checkout)} does not build (${message}); build it with \`xrepotest images build --lang ${language}\` and check with \`xrepotest doctor --repo DIR --executor docker\`` };
          }
          const evaluation = await evaluateTest(task, language, gen.test_code, {
            executor: hooks.executor,
            repoDir: bt.checkout,
            image,
            environmentProblem,
            signal: hooks.signal,
            timeouts: hooks.timeouts,
          });
          hooks.signal?.throwIfAborted();
          result = toResultRecord(task, gen.test_code, sample, evaluation, {
            round,
            mode: settings.mode,
            provider: settings.provider,
            model: settings.model,
            baseline: gen.baseline === true,
          });
          if (settings.mutation && result.checks[0].tests && hooks.mutate) {
            result.xrt.mutation = await hooks.mutate(bt, gen.test_code, result.coverage_stats[0].covered_line_numbers);
          }
          hooks.signal?.throwIfAborted();
          results.append(result);
          resultByKey.set(rKey, result);
        }
        count(result);
        hooks.onProgress?.(progress);
        // A repair round cannot mend the environment: the model would be asked to fix what is not its test.
        if (result.checks[0].tests || round === settings.repairRounds || gen.error || result.xrt.failure_category === 'environment') break;
        // The repair prompt comes from what was stored, so a resumed run asks exactly what it asked before.
        if (!messages.length) {
          prompt ??= await hooks.promptFor(bt);
          messages.push({ role: 'user', content: prompt.user });
        }
        messages.push({ role: 'assistant', content: gen.raw_response }, { role: 'user', content: repairPrompt(language, gen.test_code, result.xrt.feedback ?? '') });
      }
    }
  };

  let next = 0;
  let interrupted = false;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      if (hooks.signal?.aborted) return;
      const bt = tasks[next++];
      try {
        await runTask(bt);
      } catch (e) {
        if (hooks.signal?.aborted) {
          interrupted = true;
          return;
        }
        throw e;
      }
      progress.tasksDone++;
      hooks.onProgress?.(progress);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(hooks.concurrency, tasks.length)) }, worker));
  } finally {
    generations.close();
    results.close();
  }
  return {
    results: results.records.filter((r) => byTask.has(r.id ?? `${r.xrt.language}:${r.task_id}`)),
    generations: generations.records,
    resumed: progress.resumed,
    interrupted: interrupted || !!hooks.signal?.aborted,
  };
}

