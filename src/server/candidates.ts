/**
 * What every request that evaluates a test for a focal function shares: finding the task for the
 * open document, cancellable work-done progress, the evaluation in a disposable copy, and the
 * result the code lens and the Testing view read.
 */
import * as path from 'node:path';
import { CodeLensRefreshRequest, LSPErrorCodes, ResponseError, type CancellationToken } from 'vscode-languageserver/node';
import { evaluateTest, testHash, type Evaluation } from '../engine/execute/evaluate';
import { withReruns } from '../engine/execute/reruns';
import { feedbackOf } from '../engine/execute/feedback';
import { mapSandboxPaths } from '../engine/execute/sandbox-paths';
import { focalPathInRepo } from '../engine/execute/sandbox';
import { detectedMutants } from '../engine/mutate/counts';
import type { MutationResult, ResultMutation } from '../engine/mutate/run';
import { classifyDocument, taskForDocumentFunction } from '../engine/extract/document';
import { refusalOf } from '../engine/extract/targeting';
import type { EnvironmentVerdict } from '../engine/environment';
import { adapterForPath, type LanguageAdapter } from '../engine/languages';
import { hasAssertions } from '../engine/score/assertions';
import type { TaskRecord } from '../engine/tasks/record';
import type { Executor, PhaseName, PhaseResult } from '../engine/execute/types';
import type { EngineSettings } from '../shared/protocol';
import { SCORING_BUSY_CODE, SCORING_PHASE, type CandidateCase, type CandidatePhase, type ScoreFunctionResult } from '../shared/scoring-protocol';
import { lineOfTest, locateInTest, tailOf, workspacePathOf } from './candidate-mapping';
import { busyMessage, phaseText, runnerPhase, scoringsInFlight, type InFlightScoring, type ScoringPhase } from './scoring-progress';
import type { ServerState } from './state';
import { editorVerdict } from './verdict-actions';
import { editorTimeouts } from './limits';

/** Enough of each phase's log to find the error; the whole log can be megabytes. */
export const PHASE_LOG_CHARS = 20_000;

export interface Focal {
  uri: string;
  root: string;
  relPath: string;
  adapter: LanguageAdapter;
  task: TaskRecord;
}

/**
 * The function starting on `startLine` (1-based) of an open document, as a task: any function a test
 * can call, inside the benchmark's filter or not; one no test can call is refused with the reason.
 */
export async function focalOf(state: ServerState, uri: string, startLine: number, settings: EngineSettings): Promise<Focal> {
  const doc = state.documents.get(uri);
  if (!doc) throw new Error(`${uri} is not open: open the file in the editor and try again`);
  const { root, relPath } = state.workspaceOf(uri);
  const adapter = adapterForPath(relPath);
  const filters = { minLines: settings.minLines, maxLines: settings.maxLines };
  const task = adapter ? await taskForDocumentFunction(root, relPath, doc.getText(), startLine, filters) : null;
  if (!adapter || !task) {
    const here = adapter ? (await classifyDocument(relPath, doc.getText(), filters, root)).find((f) => f.startLine === startLine) : undefined;
    if (adapter && here?.untestable) throw new Error(refusalOf(here, relPath, adapter.displayName));
    throw new Error(`no function starts on line ${startLine} of ${relPath}; the file may have changed since the test was generated`);
  }
  return { uri, root, relPath, adapter, task };
}

/** What the client receives for a cancelled request (vscode-languageclient then rejects quietly). */
function cancelled(): ResponseError<void> {
  return new ResponseError(LSPErrorCodes.RequestCancelled, 'cancelled: nothing was scored');
}

export interface Progress {
  /** `phase`: what the function's lens and the notification say from now on (the scoring's phase). */
  report(percentage: number, message: string, phase?: ScoringPhase): void;
  signal: AbortSignal;
}

/** Which function a request scores, and what it does first: the lens shows its phases, and a second scoring of it is refused. */
export interface ScoringAt {
  focal: Focal;
  phase: ScoringPhase;
}

/**
 * Runs `work` under a cancellable work-done progress; the request's own cancellation stops it too.
 * With `at`, the work is a scoring of that function: refused (SCORING_BUSY_CODE) while another
 * scoring of it runs, its phases shown on its lens and sent to the extension (SCORING_PHASE), and
 * cancellable from the lens's Cancel (CANCEL_SCORING).
 */
export async function withProgress<T>(state: ServerState, token: CancellationToken, title: string, first: string, work: (p: Progress) => Promise<T>, at?: ScoringAt): Promise<T> {
  const controller = new AbortController();
  const cancel = (): void => {
    if (controller.signal.aborted) return;
    state.connection.console.info(`${title}: cancelled, stopping`);
    controller.abort(new Error('cancelled'));
  };
  // Registered before the first await, so two requests arriving together cannot both start.
  let tracked: InFlightScoring | undefined;
  if (at) {
    const { focal } = at;
    const begun = scoringsInFlight.begin({
      uri: focal.uri,
      startLine: focal.task.function_component.start_line,
      functionName: focal.task.function_name,
      buildKey: `${focal.root}#${focal.adapter.id}`,
      phase: at.phase,
      cancel,
    });
    if ('busy' in begun) throw new ResponseError(SCORING_BUSY_CODE, busyMessage(begun.busy));
    tracked = begun.started;
    announcePhase(state, tracked, false);
  }
  try {
    const progress = await state.connection.window.createWorkDoneProgress();
    token.onCancellationRequested(cancel);
    progress.token.onCancellationRequested(cancel);
    progress.begin(title, 0, first, true);
    const report = (pct: number, message: string, phase?: ScoringPhase): void => {
      if (tracked && phase && !controller.signal.aborted && scoringsInFlight.setPhase(tracked, phase)) announcePhase(state, tracked, false);
      progress.report(pct, message || (phase ? phaseText(tracked?.phase ?? phase) : ''));
    };
    try {
      return await work({ report, signal: controller.signal });
    } catch (e) {
      throw controller.signal.aborted ? cancelled() : e;
    } finally {
      progress.done();
    }
  } finally {
    if (tracked) {
      scoringsInFlight.end(tracked);
      announcePhase(state, tracked, true);
    }
  }
}

/** Tells the extension (notification) and the lenses (refresh) that a scoring moved on or ended. */
function announcePhase(state: ServerState, s: InFlightScoring, done: boolean): void {
  const conn = state.connection;
  void conn
    .sendNotification(SCORING_PHASE, { uri: s.uri, startLine: s.startLine, functionName: s.functionName, phase: s.phase.kind, message: phaseText(s.phase), done })
    .catch(() => undefined);
  void conn.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
}

/** A runner's phase (evaluateTest's onPhase) as progress: the lens's phase, and its plain words in the progress. */
export function reportRunnerPhase(p: Progress, percentage: number, name: string): void {
  const phase = runnerPhase(name);
  p.report(percentage, phase ? '' : name, phase);
}

/** One run of a test against the focal function in a disposable copy of the workspace folder, with the editor's limits (no reruns). */
export function editorEvaluation(focal: Focal, executor: Executor, settings: EngineSettings, p: Progress) {
  return (testCode: string, onPhase?: (phase: string) => void): Promise<Evaluation> =>
    evaluateTest(focal.task, focal.adapter.id, testCode, {
      executor,
      repoDir: focal.root,
      signal: p.signal,
      timeouts: editorTimeouts(settings),
      limits: { memoryBytes: settings.memoryMb * 1024 * 1024 },
      ...(onPhase ? { onPhase } : {}),
    });
}

/** Runs one test against the focal function in a disposable copy of the workspace folder. */
export async function evaluateFor(state: ServerState, focal: Focal, testCode: string, settings: EngineSettings, p: Progress): Promise<Evaluation> {
  const run = editorEvaluation(focal, await state.executor(settings.executor), settings, p);
  const once = (): Promise<Evaluation> => run(testCode, (phase) => reportRunnerPhase(p, 60, phase));
  // Flaky detection as the lens's scoring does it (`xrepotest.reruns`): a passing run is run again.
  const e = await withReruns(await once(), settings.reruns, once, p.signal);
  // A cancelled run is scored as whatever it got to; that is no score to show or keep.
  if (p.signal.aborted) throw cancelled();
  remember(focal, testCode, e);
  return e;
}

type Scored = Pick<
  ScoreFunctionResult,
  'functionName' | 'compiled' | 'passed' | 'failureCategory' | 'testsRan' | 'testsPassed' | 'coveredLines' | 'executableLines' | 'invoked' | 'provider' | 'smoke' | 'mutation' | 'environment' | 'reruns' | 'suite'
>;

/** `suite of 3 tests (first test: 40 %)`, or why "Improve" kept nothing. */
function suitePart(suite: NonNullable<Scored['suite']>): string {
  const ran = suite.rounds.length;
  if (suite.tests === 1) return `improve: no test kept in ${ran} round${ran === 1 ? '' : 's'}`;
  const first = suite.first.executable ? Math.round((100 * suite.first.covered) / suite.first.executable) : 0;
  return `suite of ${suite.tests} tests (the first alone: ${first} % of the lines)`;
}

/** `24 %`: the share of the function's executable lines the test ran. */
export function linesRun(r: Pick<Scored, 'coveredLines' | 'executableLines'>): number {
  return r.executableLines.length ? Math.round((100 * r.coveredLines.length) / r.executableLines.length) : 0;
}

/** Why a test is a smoke test, in the words the lens shows. */
function smokeWhy(r: Pick<Scored, 'provider'>): string {
  return r.provider === 'baseline' ? 'offline baseline' : 'no assertions';
}

/** `caught 1 of 2 mutants (1 by timing out)`, counted as the stored records count it (counts.ts). */
function mutantsCaught(m: NonNullable<Scored['mutation']>): string {
  // Mutants are made only on the lines the test runs: none there is not "caught 0 of 0".
  if (m.mutants === 0) return 'no mutant on the lines it runs';
  return `caught ${detectedMutants(m)} of ${m.viable} mutant${m.viable === 1 ? '' : 's'}${m.timedOut ? ` (${m.timedOut} by timing out)` : ''}`;
}

/**
 * What the lens and the Testing view show once a function is scored, in plain words:
 * `✓ 1 of 1 tests pass · 24 % of the function's lines run · calls Find · caught 1 of 2 mutants`.
 * A smoke test's pass is ◌, never ✓: `◌ smoke test only: runs Find without checking results (offline baseline) · …`.
 */
export function summaryOf(r: Scored): string {
  // The machine's gap, not the test's: no metrics for a test that never ran.
  // A first build cut short by a limit is kept and continues: not scored yet, not a machine that cannot run it.
  if (r.environment?.actions?.some((a) => a.kind === 'retry')) return `⏸ not scored yet: ${r.environment.cause}`;
  if (r.environment) return `⚠ can't run here: ${r.environment.cause}`;
  if (!r.compiled) return '✗ the test does not compile';
  // A tampering test's report is the test's own forgery: its counts are not shown.
  if (r.failureCategory === 'tampering') return '✗ the test tampers with its own result';
  const name = r.functionName;
  const smokePass = r.passed && r.smoke;
  // Flaky: it passed, then failed a rerun in a fresh copy: not a pass, whatever its first run said.
  const head = r.failureCategory === 'flaky' && r.reruns
    ? `⚠ flaky: passed ${r.reruns.passed} of ${r.reruns.runs} runs`
    : smokePass
    ? `◌ smoke test only: ${r.invoked ? `runs ${name} without checking results` : `does not call ${name} and checks no results`} (${smokeWhy(r)})`
    : r.testsRan === 0
      ? '✗ no test ran'
      : `${r.passed ? '✓' : '✗'} ${r.testsPassed} of ${r.testsRan} tests pass`;
  const parts = [head, `${linesRun(r)} % of the function's lines run`];
  if (!smokePass) parts.push(r.invoked ? `calls ${name}` : `does not call ${name}`);
  if (r.passed && r.reruns) parts.push(`passed all ${r.reruns.runs} runs`);
  if (r.mutation && !r.mutation.error) parts.push(mutantsCaught(r.mutation));
  // First: the lens line is cut at the editor's right edge, and what "Improve" did is what changed.
  if (r.suite) parts.unshift(suitePart(r.suite));
  return parts.join(' · ');
}

/** The score lens's tooltip: what each number of the summary means, with this test's numbers. */
export function scoreTooltip(r: Scored): string {
  const name = r.functionName;
  if (r.environment) return `The test never ran: ${r.environment.cause}. How to fix: ${r.environment.fix}.`;
  if (!r.compiled) return `The test does not compile, so nothing ran: ${name} has no score yet. The Testing view shows the compiler's message; "Repair" or "Regenerate" there tries again.`;
  if (r.failureCategory === 'tampering') return 'The test changed how its results are reported (for example by exiting early or rewriting the runner\'s output), so its counts cannot be trusted and are not shown.';
  const flaky = r.failureCategory === 'flaky' && r.reruns;
  const lines = [
    ...(flaky
      ? [
          `Flaky: the test passed its first run, then ran again ${r.reruns!.runs - 1} times, each in a fresh copy, and passed ${r.reruns!.passed} of the ${r.reruns!.runs} runs. A test whose result changes from run to run does not count as passing (it may depend on time, order, randomness or the machine). "xrepotest.reruns" sets how many reruns.`,
        ]
      : []),
    r.smoke && r.passed
      ? `Smoke test only: the test has no assertions${r.provider === 'baseline' ? ' (the offline baseline writes such tests when no model is set)' : ''}. Passing shows that ${name} runs without crashing, not that its results are right. Choose a model ("XRepoTest: Choose a model…") for tests that check results.`
      : `${r.testsPassed} of ${r.testsRan} tests pass: the test cases the runner reported, and how many of them passed.`,
    `${linesRun(r)} % of the function's lines run: ${r.coveredLines.length} of the ${r.executableLines.length} executable lines of ${name} ran during the test.`,
    r.invoked ? `calls ${name}: the test calls ${name} itself (not only other code of the package).` : `does not call ${name}: the test never calls ${name} itself, so it does not test it.`,
  ];
  if (r.passed && r.reruns) lines.push(`passed all ${r.reruns.runs} runs: after passing once it ran ${r.reruns.runs - 1} more times, each in a fresh copy, to rule out a flaky test ("xrepotest.reruns").`);
  if (r.mutation && !r.mutation.error && r.mutation.mutants === 0)
    lines.push(`no mutant on the lines it runs: mutants (a + turned into a -, a condition negated…) are made only on the ${r.coveredLines.length} line(s) the test runs, and no change of that kind applies there. A test that runs more of ${name} gets mutants to catch.`);
  else if (r.mutation && !r.mutation.error)
    lines.push(
      `${mutantsCaught(r.mutation)}: ${r.mutation.viable} small changes were made to the lines the test runs (a + turned into a -, a condition negated…); a mutant is caught when the test then fails${r.mutation.timedOut ? ' or runs out of time' : ''}. A test that checks results catches most of them.${r.mutation.mutants > r.mutation.viable ? ` ${r.mutation.mutants - r.mutation.viable} more of the ${r.mutation.mutants} mutants made did not compile (a change the type checker or parser refuses): they say nothing about the test and are not counted.` : ''}`,
    );
  if (r.suite) {
    lines.push(
      r.suite.tests === 1
        ? `"Improve" asked for more tests in ${r.suite.rounds.length} round(s) and kept none (a new test is kept only when it compiles, passes, calls ${name} and runs a line, or catches a mutant, the others miss):`
        : `suite of ${r.suite.tests} tests: "Improve" added ${r.suite.tests - 1} test(s) to the first one, merged into one file and scored as one; the first test alone ran ${r.suite.first.covered} of ${r.suite.first.executable} lines.`,
      ...r.suite.rounds.map((x) => `  round ${x.improve}: ${x.kept ? 'kept' : 'dropped'}: ${x.reason}`),
    );
  }
  return lines.join('\n');
}

/**
 * Adds the mutation score of a passing test (from the task step's mutation run) and puts it in the
 * summary; a test with none (it failed, covered nothing, or the setting is off) is left as it is.
 */
export function withMutation(result: ScoreFunctionResult, m: MutationResult | undefined): ScoreFunctionResult {
  if (!m) return result;
  const mutation = { killed: m.killed, timedOut: m.timedOut, viable: m.viable, mutants: m.mutants, score: m.score, ...(m.error ? { error: m.error } : {}) };
  const scored = { ...result, mutation };
  return { ...scored, summary: summaryOf(scored) };
}

export interface Authorship {
  provider: string;
  model: string;
  sample: number;
  round: number;
}

/** Which function a result is about (in the workspace) and who wrote its test: every result carries both. */
function functionAndAuthor(focal: Focal, by: Authorship): Pick<ScoreFunctionResult, 'uri' | 'startLine' | 'endLine' | 'focalFile' | 'model' | 'sample' | 'round'> {
  const { task } = focal;
  return {
    uri: focal.uri,
    startLine: task.function_component.start_line,
    endLine: task.function_component.end_line,
    focalFile: path.join(focal.root, focalPathInRepo(task)),
    model: by.model,
    sample: by.sample,
    round: by.round,
  };
}

/** The evaluation as the editor reads it: score, cases located in the test, coverage and logs in workspace terms. */
export function resultOf(focal: Focal, testCode: string, by: Authorship, e: Evaluation, withCoverage = true): ScoreFunctionResult {
  const { root, task } = focal;
  const map = (text: string) => mapSandboxPaths(text, root);
  const placement = e.placement ? { ...workspacePathOf(e.placement.testFile, root), notes: e.placement.notes } : null;
  const testFileName = placement ? path.posix.basename(placement.relPath) : undefined;
  const compile = [...e.phases].reverse().find((p) => p.phase.startsWith('compile'));
  const compileError =
    e.environment ? null
    : !e.score.compiled && compile
      ? { message: map(tailOf(compile.output, PHASE_LOG_CHARS)), ...(testFileName ? locateInTest(compile.output, testFileName) : undefined) }
      : !e.score.compiled && e.error
        ? { message: e.error }
        : null;
  const cases: CandidateCase[] = e.testReport.cases.map((c) => {
    // Where the failure points (`x_test.go:15: got …`), else where the test is declared.
    const at = (c.message && testFileName ? locateInTest(c.message, testFileName)?.line : undefined) ?? lineOfTest(testCode, c.name);
    return {
      name: c.name,
      status: c.status,
      ...(c.message !== undefined ? { message: map(c.message) } : {}),
      ...(c.expected !== undefined ? { expected: c.expected } : {}),
      ...(c.actual !== undefined ? { actual: c.actual } : {}),
      ...(at !== undefined ? { line: at } : {}),
    };
  });
  const covered = new Set(e.score.coverage.covered);
  const base = {
    functionName: task.function_name,
    compiled: e.score.compiled,
    passed: e.score.passed,
    testsRan: e.testReport.ran,
    testsPassed: e.testReport.passed,
    coveredLines: e.score.coverage.covered,
    executableLines: e.score.coverage.executable,
    invoked: e.score.invocation.invoked,
    failureCategory: e.score.failure?.category ?? null,
    ...(e.score.reruns ? { reruns: e.score.reruns } : {}),
    reason: e.score.reason === null ? null : map(e.score.reason),
    testCode,
    provider: by.provider,
    // The harness or the machine failed before the test ran: a verdict with its fix, and nothing measured.
    ...(e.environment ? { invoked: false, environment: editorVerdict({ ...e.environment, reason: map(e.environment.reason) }, focal.adapter.id, e.executor.kind, focal.root) } : {}),
    smoke: by.provider === 'baseline' || !hasAssertions(focal.adapter.assertions, testCode),
  };
  return {
    ...base,
    summary: summaryOf(base),
    ...functionAndAuthor(focal, by),
    focalLines: withCoverage ? e.score.coverage.executable.map((line) => ({ line, covered: covered.has(line) })) : [],
    cases,
    compileError,
    placement,
    executor: { kind: e.executor.kind, engine: e.executor.engine },
    phases: e.phases.map((p) => candidatePhaseOf(p, root, focal.adapter)),
  };
}

/**
 * A phase as the editor shows it (Test Results, the transcript): its command and output with sandbox
 * paths mapped to `root` (where known), the output's tail kept, and the text a person reads.
 */
export function candidatePhaseOf(
  p: Pick<PhaseResult, 'argv' | 'exitCode' | 'signal' | 'timedOut' | 'stalled' | 'outputTruncated' | 'durationMs' | 'output'> & { phase: string },
  root: string | null,
  adapter: Pick<LanguageAdapter, 'toolchain'> | undefined,
): CandidatePhase {
  const map = (text: string): string => (root ? mapSandboxPaths(text, root) : text);
  return {
    phase: p.phase,
    argv: p.argv.map(map),
    exitCode: p.exitCode,
    signal: p.signal,
    timedOut: p.timedOut,
    ...(p.stalled ? { stalled: true } : {}),
    outputTruncated: p.outputTruncated,
    durationMs: p.durationMs,
    output: map(tailOf(p.output, PHASE_LOG_CHARS)),
    // Decoded before the tail is cut, so the tail is of the text a person reads.
    text: map(tailOf(adapter?.toolchain.displayText?.(p.phase as PhaseName, p.output) ?? p.output, PHASE_LOG_CHARS)),
  };
}

/**
 * A scoring refused before anything was generated or run (environment.ts's `environmentRefusal`):
 * the verdict alone, with no test, no cases and no metrics.
 */
export function environmentResultOf(focal: Focal, by: Authorship, environment: EnvironmentVerdict): ScoreFunctionResult {
  const { task } = focal;
  const base = {
    functionName: task.function_name,
    compiled: false,
    passed: false,
    testsRan: 0,
    testsPassed: 0,
    coveredLines: [],
    executableLines: [],
    invoked: false,
    failureCategory: 'environment',
    reason: `${environment.cause}; ${environment.fix}`,
    testCode: '',
    provider: by.provider,
    smoke: false,
    environment,
  };
  return {
    ...base,
    summary: summaryOf(base),
    ...functionAndAuthor(focal, by),
    focalLines: [],
    cases: [],
    compileError: null,
    placement: null,
    phases: [],
  };
}

/**
 * The last evaluations (and mutation runs), so "Repair with model" sends the feedback of the run the
 * user saw and "Improve" starts from its coverage and surviving mutants without running anything
 * again; a test not found here (the server restarted, the focal file changed) is evaluated once more.
 */
interface RecentRun {
  evaluation?: Evaluation;
  mutation?: ResultMutation;
}
const recent = new Map<string, RecentRun>();
const RECENT_MAX = 64;

/** The function's document and line, the test, and the focal file as scored: an edit since makes the run stale. */
function recentKey(focal: Focal, testCode: string): string {
  return `${focal.uri}#${focal.task.function_component.start_line}#${testHash(testCode)}#${testHash(focal.task.file_content)}`;
}

function keep(focal: Focal, testCode: string, run: RecentRun): void {
  const key = recentKey(focal, testCode);
  const merged = { ...recent.get(key), ...run };
  recent.delete(key);
  recent.set(key, merged);
  while (recent.size > RECENT_MAX) recent.delete(recent.keys().next().value as string);
}

/** The last evaluation of this test for this function, if the server still has it. */
export function recentEvaluation(focal: Focal, testCode: string): Evaluation | undefined {
  return recent.get(recentKey(focal, testCode))?.evaluation;
}

/** The last mutation run of this test for this function (its detected and surviving mutants), if kept. */
export function recentMutation(focal: Focal, testCode: string): ResultMutation | undefined {
  return recent.get(recentKey(focal, testCode))?.mutation;
}

export function remember(focal: Focal, testCode: string, e: Evaluation): void {
  // A new evaluation makes an earlier mutation run of the same test on the same file no less true.
  keep(focal, testCode, { evaluation: e });
}

export function rememberMutation(focal: Focal, testCode: string, m: ResultMutation): void {
  keep(focal, testCode, { mutation: m });
}

/** The repair prompt's error log for a test: from its last evaluation, or from a new one. */
export async function feedbackFor(state: ServerState, focal: Focal, testCode: string, settings: EngineSettings, p: Progress): Promise<{ feedback: string; passed: boolean }> {
  const e = recentEvaluation(focal, testCode) ?? (await evaluateFor(state, focal, testCode, settings, p));
  return { feedback: mapSandboxPaths(feedbackOf(e), focal.root), passed: e.score.passed };
}
