import * as path from 'node:path';
import type { CancellationToken } from 'vscode-languageserver/node';
import { testHash, type Evaluation } from '../engine/execute/evaluate';
import { withReruns } from '../engine/execute/reruns';
import { generateOne } from '../engine/generate/generate';
import type { Prompt } from '../engine/generate/types';
import type { ResultMutation } from '../engine/mutate/run';
import { toResultRecord, type SuiteRecord } from '../engine/store/results';
import { improveSuite } from '../engine/task/improve-suite';
import type { LoadedTask } from '../engine/tasks/load';
import { IMPROVE_CANDIDATE, type ImproveCandidateParams, type ScoreFunctionResult, type SuiteSummary } from '../shared/scoring-protocol';
import { editorEvaluation, environmentResultOf, focalOf, recentEvaluation, recentMutation, remember, reportRunnerPhase, resultOf, summaryOf, withProgress, type Focal, type Progress } from './candidates';
import { environmentRefusal } from './environment';
import { paramsFor, promptFor, providerFor } from './generation';
import { editorMutation, showScoreOnLens } from './scoring';
import type { ServerState } from './state';
import { onClientRequest } from './wire';

/** Why "Improve" is refused on a test that does not pass, with what to do instead. */
export const IMPROVE_NEEDS_A_PASS = 'improving starts from a passing test, and this one does not pass: "Repair with model" or "Regenerate" first';

/** The suite's mutation counts as the lens shows them. */
function lensMutation(m: ResultMutation): NonNullable<ScoreFunctionResult['mutation']> {
  return { killed: m.killed, timedOut: m.timed_out, viable: m.viable, mutants: m.mutants, score: m.score };
}

function summaryOfSuite(suite: SuiteRecord, first: Evaluation): SuiteSummary {
  return {
    tests: suite.tests,
    first: { covered: first.score.coverage.covered.length, executable: first.score.coverage.executable.length },
    rounds: suite.rounds.map((r) => ({ improve: r.improve, kept: r.kept, verdict: r.verdict, reason: r.reason, addedLines: r.added_lines })),
  };
}

/**
 * "Improve" (issue 17): improvement rounds from a passing test with the editor's provider, executor
 * and settings (task/improve-suite.ts decides what is kept). The answer scores the suite's merged
 * file, evaluated as any candidate (and rerun for flakiness, `xrepotest.reruns`); when no test was
 * kept it is the first test's score, with every round's verdict.
 */
export async function improveCandidate(state: ServerState, params: ImproveCandidateParams, p: Progress, focal: Focal): Promise<ScoreFunctionResult> {
  const { settings } = params;
  const provider = providerFor(settings, params.credentials, state.editorChat);
  const genParams = paramsFor(settings);
  const by = { provider: provider.id, model: genParams.model, sample: params.sample, round: params.round };
  const refused = await environmentRefusal(state, focal, settings);
  if (refused) return { ...environmentResultOf(focal, by, refused), testCode: params.testCode };
  const executor = await state.executor(settings.executor);
  const task: LoadedTask = { task: focal.task, language: focal.adapter.id, file: path.join(focal.root, focal.relPath), line: 0 };
  const once = editorEvaluation(focal, executor, settings, p);

  // The run the user saw, or a new one: the rounds start from what the test covers now.
  const first = recentEvaluation(focal, params.testCode) ?? (await once(params.testCode, (phase) => reportRunnerPhase(p, 10, phase)));
  p.signal.throwIfAborted();
  if (!first.score.passed) throw new Error(IMPROVE_NEEDS_A_PASS);
  const record = toResultRecord(focal.task, params.testCode, params.sample, first, { round: params.round, mode: settings.mode, provider: provider.id, model: genParams.model, baseline: provider.isBaseline === true });
  const mutate = settings.mutation ? editorMutation(focal, settings, executor, p) : undefined;
  // The mutants of the run the user saw, when the server has them; else mutation-tested once here.
  if (mutate) record.xrt.mutation = recentMutation(focal, params.testCode) ?? (await mutate(params.testCode, record.coverage_stats[0].covered_line_numbers)) ?? null;

  let prompt: Prompt | null = null;
  const promptOnce = async (): Promise<Prompt> => (prompt ??= await promptFor(focal.task, focal.adapter.id, focal.root, settings, state.lspContext, p.signal, params.credentials));
  // The editor's run folder keeps what the rounds asked and the slot's suite, as a benchmark's does.
  const store = state.editorRun?.storeFor(focal.task, focal.root);
  const labels = { provider: settings.provider, model: genParams.model, mode: settings.mode };
  // Every evaluation of the rounds, by test: the suite's last merged file was scored there already.
  const evaluated = new Map<string, Evaluation>();
  const rounds = Math.max(1, settings.improveRounds);
  const suite = await improveSuite({
    task,
    first: { testCode: params.testCode, result: record },
    rounds,
    mutation: !!mutate,
    userPrompt: async () => (await promptOnce()).user,
    generate: async (improve, messages, hint) => {
      p.report(20 + Math.floor((50 * (improve - 1)) / rounds), `round ${improve} of ${rounds}: asking ${provider.id} for tests of ${hint.uncoveredLines.length} line(s) no test runs`, { kind: 'generating' });
      const g = await generateOne({ provider, params: genParams, prompt: await promptOnce(), messages, task: focal.task, language: focal.adapter.id, sample: params.sample, round: params.round, improvement: hint, signal: p.signal });
      store?.addGeneration(task, labels, g);
      p.report(25 + Math.floor((50 * (improve - 1)) / rounds), `round ${improve} of ${rounds}: running the new test`);
      return g;
    },
    evaluate: async (code) => {
      const e = await once(code);
      evaluated.set(testHash(code), e);
      return e;
    },
    ...(mutate ? { mutate } : {}),
    signal: p.signal,
  });
  p.signal.throwIfAborted();
  // The slot's row again, now with its suite (the last row of a slot counts).
  store?.addResult(task, labels, { ...record, xrt: { ...record.xrt, suite } });
  const summary = summaryOfSuite(suite, first);
  if (suite.tests === 1) {
    const base = resultOf(focal, params.testCode, by, first);
    const result = { ...base, suite: summary, ...(record.xrt.mutation ? { mutation: lensMutation(record.xrt.mutation) } : {}) };
    return { ...result, summary: summaryOf(result) };
  }
  // The suite as it was kept (its last merged run), rerun for flakiness as the lens's scoring does.
  const merged = evaluated.get(suite.test_hash) ?? (await once(suite.test_code));
  const e = await withReruns(merged, settings.reruns, () => once(suite.test_code), p.signal);
  p.signal.throwIfAborted();
  remember(focal, suite.test_code, e);
  const base = resultOf(focal, suite.test_code, by, e);
  const result = { ...base, suite: summary, ...(suite.mutation ? { mutation: lensMutation(suite.mutation) } : {}) };
  return { ...result, summary: summaryOf(result) };
}

/** The Testing view's and the lens's "Improve". */
export function registerImproving(state: ServerState): void {
  onClientRequest(state.connection, IMPROVE_CANDIDATE, async (params: ImproveCandidateParams, token: CancellationToken): Promise<ScoreFunctionResult> => {
    const focal = await focalOf(state, params.uri, params.startLine, params.settings);
    const result = await withProgress(state, token, `XRepoTest: improving the tests of ${focal.task.function_name}`, 'reading what the test covers', (p) => improveCandidate(state, params, p, focal), {
      focal,
      phase: { kind: 'starting' },
    });
    showScoreOnLens(state, result);
    return result;
  });
}
