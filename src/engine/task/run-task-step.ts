import * as path from 'node:path';
import { evaluateTest, sandboxProblem, testHash, type EvaluateOptions, type Evaluation } from '../execute/evaluate';
import { feedbackOf } from '../execute/feedback';
import { regressionCheck, type BaseCheckouts } from '../execute/regression';
import { withReruns } from '../execute/reruns';
import type { Executor } from '../execute/types';
import { fencedTest, generateOne, repairPrompt } from '../generate/generate';
import type { ChatMessage, GenerationParams, GenerationRecord, Prompt, Provider } from '../generate/types';
import type { ResultMutation } from '../mutate/run';
import type { EnvironmentProblem } from '../score/types';
import { toResultRecord, type ResultRecord, type SuiteRecord } from '../store/results';
import type { LoadedTask } from '../tasks/load';
import { improveSuite } from './improve-suite';
import { NO_STORE, type SlotLabels, type SlotStore } from './slot-store';

/** How a task's tests are run and scored: everything already built by the caller. */
export interface StepEvaluation {
  executor: Executor;
  /** The task's repository checkout (copied for each run, never touched). */
  checkout: string;
  /** docker: the environment image (built once per repository); a throw is the machine's failure, said in the slot. */
  image?(): Promise<string | undefined>;
  timeouts?: EvaluateOptions['timeouts'];
  limits?: EvaluateOptions['limits'];
  keepSandbox?: boolean;
  onPhase?: EvaluateOptions['onPhase'];
  /** Flaky detection: a passing test is run this many more times, each in a fresh sandbox (execute/reruns.ts). */
  reruns?: number;
  /**
   * A passing test's first run, before its reruns start: the editor shows this score while the reruns
   * (which can only turn it into a flaky verdict) run, instead of holding it back for them.
   */
  beforeReruns?(first: Evaluation): void;
  /** A rerun starts: the `run`th (1-based) of `total`. */
  onRerun?(run: number, total: number): void;
  /** `--regression-check`: a passing test is run again at the task's base commit (execute/regression.ts); the run's base trees. */
  regression?: BaseCheckouts;
}

export interface TaskStepServices {
  provider: Provider;
  params: GenerationParams;
  /** What the records are labelled (and a resumable store keyed) with. */
  labels: SlotLabels;
  /** The task's prompt in the run's context mode: asked for once, and only when a generation is needed. */
  prompt(): Promise<Prompt>;
  /** Absent: generations only (no repair rounds, no result records). */
  evaluation?: StepEvaluation;
  /** Mutation score of a passing test on the lines it covered; undefined leaves the record without one. */
  mutate?(testCode: string, coveredLines: number[]): Promise<ResultMutation | null | undefined>;
  /** Where records go and are found again (bench: the run folder, resumable); default: nowhere. */
  store?: SlotStore;
}

export interface TaskStepOptions {
  /** A count (samples 0..n-1) or the sample numbers themselves (the editor's "Regenerate" is sample n). */
  samples: number | readonly number[];
  /** Repair rounds after a failing test (round 0 is the plain generation); with `continueFrom`, rounds after it. */
  repairRounds: number;
  /** Mutation-test passing tests (needs `mutate`). */
  mutation: boolean;
  /**
   * Improvement rounds after a passing test (task/improve-suite.ts): more tests asked for what the
   * suite does not run or detect, the kept ones merged into the slot's suite (`xrt.suite`). Default 0.
   */
  improveRounds?: number;
  /** Score every round into a result record (default); false: run tests only to ask for repairs (`generate`). */
  results?: boolean;
  /**
   * The editor's "Repair": a sample whose round `round` (the test `testCode`, failing with `feedback`)
   * was scored before; the step goes on from the next round.
   */
  continueFrom?: { sample: number; round: number; testCode: string; feedback: string };
  signal?: AbortSignal;
  /** A new generation, before its test runs: throw to stop the step (the editor stops on a failed call). */
  onGenerated?(g: GenerationRecord): void;
  /** After each slot (new or found in the store). */
  onSlot?(slot: SlotOutcome): void;
}

/** One (sample, round) of the task. */
export interface SlotOutcome {
  generation: GenerationRecord;
  /** The scored record; absent when the step ran with `results: false` or without evaluation. */
  result?: ResultRecord;
  /** The run itself (phases with their logs, cases); absent when the result came from the store. */
  evaluation?: Evaluation;
}

function sampleNumbers(samples: TaskStepOptions['samples']): readonly number[] {
  return typeof samples === 'number' ? Array.from({ length: samples }, (_, i) => i) : samples;
}

/**
 * One task step: prompt → generate → evaluate → repair rounds while it fails → mutation of a passing
 * test → records. Every road uses it (`generate`, `bench`, the editor's score / regenerate / repair);
 * `run`, which brings its own tests, uses its scoring half (`scoreTest`). A sample's rounds run in
 * order; the repair prompt is built from what was stored, so a resumed run asks what it asked before.
 * It does not know who schedules it (src/engine/schedule).
 */
export async function runTaskStep(task: LoadedTask, services: TaskStepServices, options: TaskStepOptions): Promise<SlotOutcome[]> {
  const { signal } = options;
  const store = services.store ?? NO_STORE;
  const { language } = task;
  const wantResults = options.results !== false && !!services.evaluation;
  const outcomes: SlotOutcome[] = [];
  let prompt: Prompt | null = null;
  const promptOnce = async (): Promise<Prompt> => (prompt ??= await services.prompt());
  const from = options.continueFrom;
  const samples = from ? [from.sample] : sampleNumbers(options.samples);
  for (const sample of samples) {
    const messages: ChatMessage[] = [];
    const firstRound = from ? from.round + 1 : 0;
    const lastRound = from ? from.round + Math.max(1, options.repairRounds) : options.repairRounds;
    if (from) {
      // The paper's repair round: the first request, the failed test as the model's reply, then the error log.
      const p = await promptOnce();
      messages.push({ role: 'user', content: p.user }, { role: 'assistant', content: fencedTest(language, from.testCode) }, { role: 'user', content: repairPrompt(language, from.testCode, from.feedback) });
    }
    for (let round = firstRound; round <= lastRound; round++) {
      signal?.throwIfAborted();
      let gen = store.generation(task, services.labels, sample, round);
      if (!gen) {
        const p = await promptOnce();
        if (!messages.length) messages.push({ role: 'user', content: p.user });
        gen = await generateOne({ provider: services.provider, params: services.params, prompt: p, messages, task: task.task, language, sample, round, signal });
        options.onGenerated?.(gen);
        store.addGeneration(task, services.labels, gen);
      }
      const last = round === lastRound;
      const outcome: SlotOutcome = { generation: gen };
      let passed: boolean;
      let environment: boolean;
      let feedback: string;
      if (wantResults) {
        let result = store.result(task, services.labels, sample, round, testHash(gen.test_code));
        if (!result) {
          outcome.evaluation = await evaluateSlot(task, gen.test_code, services.evaluation as StepEvaluation, signal);
          signal?.throwIfAborted();
          result = toResultRecord(task.task, gen.test_code, sample, outcome.evaluation, {
            round,
            mode: services.labels.mode,
            provider: services.labels.provider,
            model: services.labels.model,
            baseline: gen.baseline === true,
          });
          if (options.mutation && result.checks[0].tests && services.mutate) {
            result.xrt.mutation = await services.mutate(gen.test_code, result.coverage_stats[0].covered_line_numbers);
          }
          signal?.throwIfAborted();
          if (!wantsSuite(result, gen, options)) store.addResult(task, services.labels, result);
        }
        if (wantsSuite(result, gen, options)) {
          // Stored once with its suite; a result from before the rounds ran is stored again with it (the last row of a slot counts).
          result = { ...result, xrt: { ...result.xrt, suite: await improveSlot(task, services, options, sample, round, gen, result, promptOnce) } };
          signal?.throwIfAborted();
          store.addResult(task, services.labels, result);
        }
        outcome.result = result;
        passed = result.checks[0].tests;
        environment = result.xrt.failure_category === 'environment';
        feedback = result.xrt.feedback ?? '';
      } else if (services.evaluation && !last && !gen.error) {
        // Only to ask for a repair: the test is run, nothing is kept.
        outcome.evaluation = await evaluateSlot(task, gen.test_code, services.evaluation, signal);
        passed = outcome.evaluation.score.passed;
        environment = outcome.evaluation.score.failure?.category === 'environment';
        feedback = feedbackOf(outcome.evaluation);
      } else {
        outcomes.push(outcome);
        options.onSlot?.(outcome);
        break;
      }
      outcomes.push(outcome);
      options.onSlot?.(outcome);
      // A repair round cannot mend the environment: the model would be asked to fix what is not its test.
      if (passed || last || gen.error || environment) break;
      if (!messages.length) messages.push({ role: 'user', content: (await promptOnce()).user });
      messages.push({ role: 'assistant', content: gen.raw_response }, { role: 'user', content: repairPrompt(language, gen.test_code, feedback) });
    }
  }
  return outcomes;
}

function wantsSuite(result: ResultRecord, gen: GenerationRecord, options: TaskStepOptions): boolean {
  return (options.improveRounds ?? 0) > 0 && result.checks[0].tests && !gen.error && !result.xrt.suite;
}

/** The slot's improvement rounds: each round's reply stored like any generation (so a resumed run asks nothing twice). */
function improveSlot(
  task: LoadedTask,
  services: TaskStepServices,
  options: TaskStepOptions,
  sample: number,
  round: number,
  gen: GenerationRecord,
  result: ResultRecord,
  promptOnce: () => Promise<Prompt>,
): Promise<SuiteRecord> {
  const store = services.store ?? NO_STORE;
  const ev = services.evaluation as StepEvaluation;
  const { signal } = options;
  return improveSuite({
    task,
    first: { testCode: gen.test_code, result },
    rounds: options.improveRounds ?? 0,
    mutation: options.mutation && !!services.mutate,
    userPrompt: async () => (await promptOnce()).user,
    generate: async (improve, messages, hint) => {
      let g = store.generation(task, services.labels, sample, round, improve);
      if (!g) {
        const p = await promptOnce();
        g = await generateOne({ provider: services.provider, params: services.params, prompt: p, messages, task: task.task, language: task.language, sample, round, improvement: hint, signal });
        options.onGenerated?.(g);
        store.addGeneration(task, services.labels, g);
      }
      return g;
    },
    evaluate: (code) => evaluateSlot(task, code, { ...ev, keepSandbox: false }, signal),
    ...(services.mutate ? { mutate: services.mutate } : {}),
    signal,
  });
}

/** Runs one test of the task in a disposable copy of its checkout; an environment image that does not build is the slot's environment verdict. */
async function evaluateSlot(task: LoadedTask, testCode: string, ev: StepEvaluation, signal: AbortSignal | undefined): Promise<Evaluation> {
  let image: string | undefined;
  let environmentProblem: EnvironmentProblem | undefined;
  try {
    image = await ev.image?.();
  } catch (e) {
    signal?.throwIfAborted();
    const message = (e instanceof Error ? e.message : String(e)).split('\n')[0];
    // A repository that cannot be copied (a hostile tree) says so, as its sandbox would.
    environmentProblem = sandboxProblem(e) ?? {
      cause: 'image-does-not-build',
      reason: `the ${task.language} environment image for ${path.basename(ev.checkout)} does not build (${message}); build it with \`xrepotest images build --lang ${task.language}\` and check with \`xrepotest doctor --repo DIR --executor docker\``,
    };
  }
  // The slot's task in its checkout, or (regression check) the task as it was in the base commit's tree.
  // `phases`: the runner's phases reach ev.onPhase for the scored run only; a rerun's are its own
  // (onRerun says it runs): they would read "Compiling the test…" over the score already shown.
  const evaluate = (record = task.task, repoDir = ev.checkout, keepSandbox = ev.keepSandbox, phases = true): Promise<Evaluation> =>
    evaluateTest(record, task.language, testCode, {
      executor: ev.executor,
      repoDir,
      image,
      environmentProblem,
      signal,
      ...(ev.timeouts ? { timeouts: ev.timeouts } : {}),
      ...(ev.limits ? { limits: ev.limits } : {}),
      ...(keepSandbox ? { keepSandbox } : {}),
      ...(ev.onPhase && phases && record === task.task ? { onPhase: ev.onPhase } : {}),
    });
  // Reruns keep no sandbox: the first run's is the one kept for inspection.
  const first = await evaluate();
  const reruns = ev.reruns ?? 0;
  if (reruns > 0 && first.score.passed) ev.beforeReruns?.(first);
  let started = 0;
  const again = (): Promise<Evaluation> => {
    ev.onRerun?.(++started, reruns);
    return evaluate(task.task, ev.checkout, false, false);
  };
  const e = await withReruns(first, reruns, again, signal);
  if (!ev.regression || !e.score.passed) return e;
  const regression = await regressionCheck(task.task, ev.checkout, ev.regression, (atBase, repoDir) => evaluate(atBase, repoDir, false));
  return { ...e, score: { ...e.score, regression } };
}

/**
 * The step's scoring half for a test that is already written (`run`): evaluated in a disposable copy
 * and made a result record, labelled with where the test came from.
 */
export async function scoreTest(task: LoadedTask, testCode: string, sample: number, origin: Parameters<typeof toResultRecord>[4], ev: StepEvaluation, signal?: AbortSignal): Promise<ResultRecord> {
  const evaluation = await evaluateSlot(task, testCode, ev, signal);
  return toResultRecord(task.task, testCode, sample, evaluation, origin);
}
