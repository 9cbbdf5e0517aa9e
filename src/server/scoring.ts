import * as path from 'node:path';
import { CodeLensRefreshRequest, type CancellationToken, type CodeLens } from 'vscode-languageserver/node';
import { classifyDocument, type DocumentFunction } from '../engine/extract/document';
import { outsideFilterNote, refusalOf } from '../engine/extract/targeting';
import { adapterForPath, languageChoice } from '../engine/languages';
import {
  CANCEL_SCORING,
  FOCAL_FUNCTION_AT,
  SCORE_FUNCTION,
  type CancelScoringParams,
  type CancelScoringResult,
  type FocalFunctionAtParams,
  type FocalFunctionAtResult,
  type ScoreFunctionParams,
  type ScoreFunctionResult,
} from '../shared/scoring-protocol';
import type { GenerationRecord, Provider } from '../engine/generate/types';
import { runMutationTesting, toResultMutation, type MutationResult, type ResultMutation } from '../engine/mutate/run';
import type { Executor } from '../engine/execute/types';
import { runTaskStep } from '../engine/task/run-task-step';
import type { LoadedTask } from '../engine/tasks/load';
import type { Credentials, EngineSettings } from '../shared/protocol';
import { environmentBeforeModel, environmentRefusal } from './environment';
import { environmentResultOf, focalOf, remember, rememberMutation, reportRunnerPhase, resultOf, scoreTooltip, withMutation, withProgress, type Focal, type Progress } from './candidates';
import { paramsFor, promptFor, providerFor } from './generation';
import { afterTheScore, progressLenses, scoringsInFlight } from './scoring-progress';
import type { ServerState } from './state';
import { onClientRequest } from './wire';
import { editorTimeouts } from './limits';
import { lensSummaryOf } from './lens-summary';

/** Scores of this session, per document and focal function start line, for the code lenses. */
const scores = new Map<string, Map<number, ScoreFunctionResult>>();

/**
 * The function's lens shows this score from now on (the latest generated test's). The result gets
 * the lens's short form (`lensSummary`), so the extension and its tests know what the lens says.
 */
export function showScoreOnLens(state: ServerState, result: ScoreFunctionResult): void {
  result.lensSummary = lensSummaryOf(result);
  const perDoc = scores.get(result.uri) ?? new Map<number, ScoreFunctionResult>();
  perDoc.set(result.startLine, result);
  scores.set(result.uri, perDoc);
  void state.connection.sendRequest(CodeLensRefreshRequest.type);
}

/** The score the function's lens shows now (undefined: none this session). */
export function scoreOnLens(uri: string, startLine: number): ScoreFunctionResult | undefined {
  return scores.get(uri)?.get(startLine);
}

/** The lens shows `previous` again (a score shown early whose scoring then did not finish is withdrawn). */
function restoreScoreOnLens(state: ServerState, uri: string, startLine: number, previous: ScoreFunctionResult | undefined): void {
  if (previous) scores.get(uri)?.set(startLine, previous);
  else scores.get(uri)?.delete(startLine);
  void state.connection.sendRequest(CodeLensRefreshRequest.type);
}

/**
 * Mutants on the lines a passing test covered, each run in its own disposable copy, with the
 * editor's progress; `onResult` gets the full result (the lens's counts).
 */
export function editorMutation(focal: Focal, settings: EngineSettings, executor: Executor, p: Progress, onResult?: (m: MutationResult) => void) {
  return async (testCode: string, coveredLines: number[]): Promise<ResultMutation | undefined> => {
    if (coveredLines.length === 0) return undefined;
    p.report(80, 'mutation testing', { kind: 'mutation', done: 0, total: 0 });
    const mutation = await runMutationTesting(focal.task, focal.adapter.id, testCode, {
      executor,
      repoDir: focal.root,
      coveredLines,
      limits: { memoryBytes: settings.memoryMb * 1024 * 1024 },
      signal: p.signal,
      onMutant: (done, total) => p.report(80 + Math.floor((19 * done) / Math.max(total, 1)), `mutation testing: ${done}/${total} mutants`, { kind: 'mutation', done, total }),
    });
    p.signal.throwIfAborted();
    onResult?.(mutation);
    const result = toResultMutation(mutation);
    // "Improve" starts from these survivors instead of running every mutant again.
    rememberMutation(focal, testCode, result);
    return result;
  };
}

/** Which slot the editor scores: a new sample, or a repair of a scored test (the next round of its sample). */
export type EditorSlot =
  | { kind: 'sample'; sample: number }
  | { kind: 'repair'; sample: number; round: number; testCode: string; feedback: string };

/**
 * The engine's task step for one focal function, with the editor's settings, progress and
 * cancellation: generate (or repair), run in a disposable copy, mutation-test a passing test, append
 * the record to the workspace's run folder, and show the score on the function's lens (what
 * generating, regenerating and repairing share).
 */
export async function scoreSlot(state: ServerState, focal: Focal, provider: Provider, settings: EngineSettings, slot: EditorSlot, p: Progress, credentials?: Credentials): Promise<ScoreFunctionResult> {
  const repair = slot.kind === 'repair';
  const params = paramsFor(settings);
  // The machine cannot run the language with this executor: say so before generating or running anything.
  const refused = await environmentRefusal(state, focal, settings);
  if (refused) {
    const result = environmentResultOf(focal, { provider: provider.id, model: params.model, sample: slot.sample, round: repair ? slot.round + 1 : 0 }, refused);
    showScoreOnLens(state, result);
    return result;
  }
  // What can be checked and built without a test is, before a model is paid for a test that could not run.
  const notReady = await environmentBeforeModel(state, focal, settings, p);
  if (notReady) {
    const result = environmentResultOf(focal, { provider: provider.id, model: params.model, sample: slot.sample, round: repair ? slot.round + 1 : 0 }, notReady);
    showScoreOnLens(state, result);
    return result;
  }
  const executor = await state.executor(settings.executor);
  const task: LoadedTask = { task: focal.task, language: focal.adapter.id, file: path.join(focal.root, focal.relPath), line: 0 };
  let mutation: MutationResult | undefined;
  // The test being run (the last generation): what the lens shows before its reruns end.
  let latest: GenerationRecord | undefined;
  const byOf = (g: GenerationRecord) => ({ provider: provider.id, model: g.model, sample: g.sample, round: g.round });
  const previous = scoreOnLens(focal.uri, focal.task.function_component.start_line);
  let shownEarly = false;
  const step = runTaskStep(
    task,
    {
      provider,
      params,
      labels: { provider: settings.provider, model: params.model, mode: settings.mode },
      prompt: async () => {
        const prompt = await promptFor(focal.task, focal.adapter.id, focal.root, settings, state.lspContext, p.signal, credentials);
        p.report(repair ? 20 : 10, repair ? `asking ${provider.id} for a repair` : `generating (${provider.id})`, { kind: repair ? 'repairing' : 'generating' });
        return prompt;
      },
      evaluation: {
        executor,
        checkout: focal.root,
        timeouts: editorTimeouts(settings),
        limits: { memoryBytes: settings.memoryMb * 1024 * 1024 },
        onPhase: (phase) => reportRunnerPhase(p, 60, phase),
        reruns: settings.reruns,
        // Results first (issue 30): a passing test's score is on the lens while its reruns, which can
        // only turn it flaky, run; the request (the Testing view, the record) ends with their verdict.
        beforeReruns: (first) => {
          if (!latest) return;
          showScoreOnLens(state, resultOf(focal, latest.test_code, byOf(latest), first));
          shownEarly = true;
        },
        onRerun: (run, total) => p.report(70 + Math.floor((10 * (run - 1)) / total), '', { kind: 'rerunning', run, total }),
      },
      mutate: editorMutation(focal, settings, executor, p, (m) => (mutation = m)),
      store: state.editorRun?.storeFor(focal.task, focal.root),
    },
    {
      samples: [slot.sample],
      repairRounds: repair ? 1 : 0,
      ...(repair ? { continueFrom: { sample: slot.sample, round: slot.round, testCode: slot.testCode, feedback: slot.feedback } } : {}),
      // Never inside the scoring (issue 30): the score shows first; with "xrepotest.mutation.enabled" the
      // extension asks for the mutants right after it ("Check with mutants", mutating.ts).
      mutation: false,
      signal: p.signal,
      onGenerated: (g) => {
        // A failed call is no test to show: the editor says why instead of scoring an empty test.
        if (g.error) throw new Error(repair ? `the repair failed: ${g.error}` : `generation failed: ${g.error}`);
        latest = g;
        p.report(repair ? 40 : 30, repair ? 'running the repaired test in a disposable copy' : 'running the test in a disposable copy');
      },
    },
  );
  // Cancelled (or failed) during the reruns: the early score is withdrawn, so nothing on the lens
  // (Accept among it) stands for a test that was neither recorded nor remembered.
  const slots = await step.catch((e: unknown) => {
    if (shownEarly) restoreScoreOnLens(state, focal.uri, focal.task.function_component.start_line, previous);
    throw e;
  });
  const { generation, evaluation } = slots[slots.length - 1];
  if (!evaluation) throw new Error('the test was not run');
  remember(focal, generation.test_code, evaluation);
  const result = withMutation(resultOf(focal, generation.test_code, byOf(generation), evaluation), mutation);
  showScoreOnLens(state, result);
  return result;
}

/** A new sample for the focal function, scored (the lens's "Generate scored tests" is sample 0; "Regenerate" the next). */
export async function scoreNewSample(state: ServerState, params: ScoreFunctionParams, sample: number, first: string, token: CancellationToken): Promise<ScoreFunctionResult> {
  const settings = params.settings;
  const focal = await focalOf(state, params.uri, params.startLine, settings);
  const provider = providerFor(settings, params.credentials, state.editorChat);
  const phase = settings.mode === 'standard' ? ({ kind: 'generating' } as const) : ({ kind: 'context', mode: settings.mode } as const);
  return withProgress(state, token, `XRepoTest: ${focal.task.function_name}`, first, (p) => scoreSlot(state, focal, provider, settings, { kind: 'sample', sample }, p, params.credentials), { focal, phase });
}

/**
 * The functions that get lenses: the benchmark's filtered set, or with `codeLens.functions` "all"
 * every function a test can call (never test code, entry points, examples or scripts).
 */
export function withLens(functions: DocumentFunction[], settings: Pick<EngineSettings, 'codeLensFunctions'>): DocumentFunction[] {
  return functions.filter((f) => (settings.codeLensFunctions === 'all' ? f.untestable === null : f.rule === null));
}

/** The function lens's tooltip: what the line count is and why this function has a lens. */
export function functionLensTooltip(name: string, lines: number, filters: { minLines: number; maxLines: number }): string {
  return `${name} has ${lines} lines of code (comments and blank lines not counted). Functions of ${filters.minLines} to ${filters.maxLines} lines get this lens (settings "xrepotest.extract.minLines" and "xrepotest.extract.maxLines").`;
}

/** Whether "Improve" could add anything: lines no test runs, or mutants no test catches. */
function wantsMore(score: ScoreFunctionResult): boolean {
  const survivors = score.mutation && !score.mutation.error ? score.mutation.viable - score.mutation.killed - score.mutation.timedOut : 0;
  return score.coveredLines.length < score.executableLines.length || survivors > 0;
}

/** Code lenses on focal functions, and generating + scoring one of them with progress and cancellation. */
export function registerScoring(state: ServerState): void {
  const { connection, documents } = state;

  connection.onCodeLens(async (params): Promise<CodeLens[]> => {
    const doc = documents.get(params.textDocument.uri);
    if (!doc) return [];
    const filters = { minLines: state.settings.minLines, maxLines: state.settings.maxLines };
    const { root, relPath } = state.workspaceOf(doc.uri);
    const focal = withLens(await classifyDocument(relPath, doc.getText(), filters, root), state.settings);
    const scored = scores.get(doc.uri);
    return focal.flatMap((f) => {
      const range = { start: { line: f.startLine - 1, character: 0 }, end: { line: f.startLine - 1, character: 0 } };
      const lenses: CodeLens[] = [
        // A command's tooltip does not survive the protocol; `data.tooltip` carries it to the client's lens middleware (extension.ts).
        { range, command: { title: `XRepoTest: ${f.name} (${f.nonCommentLines} lines)`, command: '' }, data: { tooltip: functionLensTooltip(f.name, f.nonCommentLines, filters) } },
      ];
      // While the function is being scored, what it is doing and Cancel take the place of Generate and
      // of the last score (which the running scoring replaces): a long lens line is cut off at the right.
      const running = scoringsInFlight.get(doc.uri, f.startLine);
      const score = scored?.get(f.startLine);
      if (running) {
        // Reruns or mutants after the score was shown: the score stays, their progress and Cancel beside it.
        if (afterTheScore(running.phase) && score) lenses.push({ range, command: { title: lensSummaryOf(score), command: '' }, data: { tooltip: `${score.summary}\n\n${scoreTooltip(score)}` } });
        lenses.push(...progressLenses(running).map((command) => ({ range, command })));
        return lenses;
      }
      const at = { uri: doc.uri, startLine: f.startLine };
      const action = (title: string, command: string, args: unknown[] = [at]): CodeLens => ({ range, command: { title, command, arguments: args } });
      // Scored: the short score first, then what to do with the test, Generate last; the plain-words
      // summary and what each number means are the score's hover (the lens must fit at 1400 px).
      if (score) lenses.push({ range, command: { title: lensSummaryOf(score), command: '' }, data: { tooltip: `${score.summary}\n\n${scoreTooltip(score)}` } });
      if (score?.environment) {
        const retry = score.environment.actions?.some((a) => a.kind === 'retry');
        if (retry) lenses.push(action('Try again', 'xrepotest.generateScoredTests', [doc.uri, f.startLine]));
        lenses.push(action('How to fix', 'xrepotest.howToFixEnvironment', [score.environment, score.functionName, at]));
      } else if (score?.passed) {
        // A passing test can be kept from where its score is shown (the extension takes the function's latest candidate).
        lenses.push(action('Accept test', 'xrepotest.acceptIntoProject'));
        // More tests for what it misses (issue 17): only while lines are left to run or mutants to catch.
        if (wantsMore(score)) lenses.push(action('Improve', 'xrepotest.improve'));
        // Mutation testing is asked for, not waited for (issue 30): offered on a pass that has none yet.
        if (!score.mutation && score.coveredLines.length) lenses.push(action('Check with mutants', 'xrepotest.checkWithMutants'));
      } else if (score) {
        // A failing test: a repair (a model reads why it failed) or another test, where the peek offered them before.
        if (state.settings.provider !== 'baseline' && state.settings.provider !== 'replay') lenses.push(action('Repair', 'xrepotest.repairWithModel'));
        lenses.push(action('Regenerate', 'xrepotest.regenerate'));
      }
      lenses.push({ range, command: { title: 'Generate scored tests', command: 'xrepotest.generateScoredTests', arguments: [doc.uri, f.startLine] } });
      return lenses;
    });
  });

  onClientRequest(connection, FOCAL_FUNCTION_AT, async (params: FocalFunctionAtParams): Promise<FocalFunctionAtResult> => {
    const doc = documents.get(params.uri);
    if (!doc) return { why: 'the file is not open in the editor' };
    const { root, relPath } = state.workspaceOf(params.uri);
    const adapter = adapterForPath(relPath);
    if (!adapter) return { why: `${relPath} is not ${languageChoice()}` };
    const filters = { minLines: params.settings.minLines, maxLines: params.settings.maxLines };
    const line = params.line + 1;
    const around = (await classifyDocument(relPath, doc.getText(), filters, root))
      .filter((f) => f.startLine <= line && line <= f.endLine)
      .sort((a, b) => b.startLine - a.startLine)[0];
    if (!around) return { why: 'the cursor is not inside a function: put it in the function to test' };
    // Only what no test can call is refused; the benchmark's filter (length, names) is no reason to.
    if (around.untestable !== null) return { why: refusalOf(around, relPath, adapter.displayName) };
    const note = outsideFilterNote(around);
    return { name: around.name, startLine: around.startLine, endLine: around.endLine, ...(note ? { note } : {}) };
  });

  onClientRequest(connection, CANCEL_SCORING, (params: CancelScoringParams): CancelScoringResult => {
    const running = scoringsInFlight.get(params.uri, params.startLine);
    if (!running) return { cancelled: false };
    running.cancel();
    return { cancelled: true, functionName: running.functionName };
  });

  onClientRequest(connection, SCORE_FUNCTION, (params: ScoreFunctionParams, token) =>
    scoreNewSample(state, params, 0, params.settings.mode === 'standard' ? 'generating' : `gathering ${params.settings.mode} context`, token),
  );
}
