/** Scoring one focal function from the editor (code lens, palette, Testing view). */
import { withSettingsProperties, type WithSettings } from './protocol';
import { bool, ClientRequest, int, optional, ServerNotification, str } from './wire';

/** Generate a test for the focal function starting at `startLine` (1-based), run and score it. */
export interface ScoreFunctionParams extends WithSettings {
  uri: string;
  startLine: number;
}

export interface ScoreFunctionResult {
  functionName: string;
  compiled: boolean;
  passed: boolean;
  /** Runner's own counts. */
  testsRan: number;
  testsPassed: number;
  coveredLines: number[];
  executableLines: number[];
  invoked: boolean;
  failureCategory: string | null;
  reason: string | null;
  testCode: string;
  provider: string;
  /**
   * A smoke test: written by the offline baseline, or with no assertion of its language's test
   * frameworks (languages/<id>/assertions.ts). It shows the function runs, not that it is right; the
   * editor marks its pass ◌ instead of ✓. Presentation only: the benchmark counts its pass (METRICS.md).
   */
  smoke: boolean;
  /** The code lens line, in plain words: `✓ 1 of 1 tests pass · 85 % of the function's lines run · calls Find`. */
  summary: string;
  /** The lens's short form, set once the score is on a lens: `✓ 1/1 · 85 % · calls Find` (`summary` is its hover). */
  lensSummary?: string;
  /**
   * Set when the test could not run because of the machine, not the test (the language's toolchain
   * missing, no container engine or image, a dependency that cannot resolve): the cause, how to fix
   * it, and a command to copy or the setting to change. No metrics are shown then.
   */
  environment?: EnvironmentVerdictResult;
  /**
   * Mutation testing of a passing test on the lines it covers (METRICS.md items 6 and 8), counted as
   * the stored records count it: killed by a failing test and timed out apart, both detected in the
   * score; viable leaves out mutants that do not compile. Absent when not run (the test did not pass,
   * or the setting is off).
   */
  mutation?: { killed: number; timedOut: number; viable: number; mutants: number; score: number; error?: string };
  /** Flaky detection (setting `xrepotest.reruns`): all runs of a test that passed its first, and how many passed; absent when not rerun. */
  reruns?: { runs: number; passed: number };
  /** Set by "Improve": the suite the improvement rounds grew from the passing test it started with (this result scores the suite's merged file when a test was kept). */
  suite?: SuiteSummary;
  // What the Testing view needs besides the score.
  /** The focal document and the function's lines (1-based, inclusive). */
  uri: string;
  startLine: number;
  endLine: number;
  /** The focal file in the workspace (absolute; the sandbox's copy mapped back). */
  focalFile: string;
  /** The executable lines of the focal function, each covered or not (the runner's own hit counts). */
  focalLines: FocalLine[];
  model: string;
  sample: number;
  /** Repair round: 0 for a first generation. */
  round: number;
  /** The runner's test cases, with the line of each in `testCode` where it can be found. */
  cases: CandidateCase[];
  /** When the test did not compile: the compiler's output, and where in `testCode` it points first. */
  compileError: { message: string; line?: number; column?: number } | null;
  /** Where the sandbox put the test; the same place in the workspace is where "Accept into project" writes it. */
  placement: CandidatePlacement | null;
  /** The phases' logs (sandbox paths mapped back to the workspace, tails kept). */
  phases: CandidatePhase[];
  /** Where it ran: the executor's kind (`local`, `docker`) and engine (`bubblewrap 0.8.0`, `podman 4.3.1 …`); absent when nothing ran. */
  executor?: { kind: string; engine: string };
}

/** What "Improve" did: the tests it kept, every round's verdict, and the first test's coverage to compare with. */
export interface SuiteSummary {
  /** Tests in the suite: the first and every kept one (1: none was kept, the result is the first test's). */
  tests: number;
  /** The first test's covered and executable focal lines. */
  first: { covered: number; executable: number };
  rounds: Array<{ improve: number; kept: boolean; verdict: string; reason: string; addedLines: number[] }>;
}

export interface EnvironmentVerdictResult {
  /** `julia is not installed (Julia needs it on PATH)`. */
  cause: string;
  /** How the user fixes it. */
  fix: string;
  /** A few words (`julia missing`). */
  short?: string;
  /** A command to copy, when the fix is one. */
  command?: string;
  /** The setting that changes it (`xrepotest.executor`). */
  setting?: string;
  /** The fixes as the editor's own actions, in the order "How to fix" offers them (never a command-line flag). */
  actions?: VerdictAction[];
}

/** One way out of an environment verdict, as an editor action (a button of "How to fix"). */
export type VerdictAction =
  /** Score the function again: a build cut short was kept and this try continues it. */
  | { kind: 'retry'; title: string }
  /** Open a setting (the executor, a build limit). */
  | { kind: 'setting'; title: string; setting: string }
  /** The project's own command (an install, a build) in a terminal, in `cwd`. */
  | { kind: 'terminal'; title: string; command: string; cwd: string }
  /** "Check this project": does the workspace folder build here, what is missing. */
  | { kind: 'check-project'; title: string; folder: string }
  /** "Check the environment": toolchains, engine, images. */
  | { kind: 'check-environment'; title: string };

export interface FocalLine {
  line: number;
  covered: boolean;
}

export interface CandidateCase {
  name: string;
  status: 'passed' | 'failed' | 'errored' | 'skipped';
  message?: string;
  expected?: string;
  actual?: string;
  /** 1-based line in the test code (the test's declaration, or where its failure points). */
  line?: number;
}

export interface CandidatePlacement {
  /** Relative to the workspace folder, '/'-separated. */
  relPath: string;
  /** Absolute, in the workspace. */
  path: string;
  notes: string[];
}

export interface CandidatePhase {
  phase: string;
  /** The command as it ran (sandbox paths mapped back to the workspace). */
  argv: string[];
  exitCode: number | null;
  /** The signal that ended it (`SIGKILL`), when one did. */
  signal: string | null;
  /** Ended by a limit: its wall time or, with `stalled`, its silence. */
  timedOut: boolean;
  /** Ended because it printed nothing for the build's silence limit. */
  stalled?: boolean;
  /** The executor recorded only part of what it printed (its output cap); the tail below may be cut further. */
  outputTruncated: boolean;
  durationMs: number;
  /** The runner's raw output (its tail), as recorded. */
  output: string;
  /** The same output as a person reads it (`go test -json` events decoded to the test's text): what Test Results shows. */
  text: string;
}

export const SCORE_FUNCTION = new ClientRequest<ScoreFunctionParams, ScoreFunctionResult>(
  'xrepotest/scoreFunction',
  { type: 'object', required: ['uri', 'startLine', 'settings'], properties: { uri: str, startLine: int, ...withSettingsProperties } },
);

/** Runs a given test again (a candidate re-run from the Testing view, or a test written by hand). */

export interface RunCandidateParams extends WithSettings {
  uri: string;
  startLine: number;
  testCode: string;
  /** Who wrote the test, carried into the result (default: `manual`). */
  provider?: string;
  model?: string;
  sample?: number;
  round?: number;
  /**
   * Whether the result carries the per-line coverage. The engine measures it either way (the score
   * needs it); a Run profile leaves it out of the answer.
   */
  coverage?: boolean;
}

export const RUN_CANDIDATE = new ClientRequest<RunCandidateParams, ScoreFunctionResult>(
  'xrepotest/runCandidate',
  {
    type: 'object',
    required: ['uri', 'startLine', 'testCode', 'settings'],
    properties: {
      uri: str,
      startLine: int,
      testCode: str,
      provider: optional(str),
      model: optional(str),
      sample: optional(int),
      round: optional(int),
      coverage: optional(bool),
      ...withSettingsProperties,
    },
  },
);

/** "Repair with model": the paper's repair prompt with the failed run's feedback, then a new evaluation. */

export interface RepairCandidateParams extends WithSettings {
  uri: string;
  startLine: number;
  testCode: string;
  sample: number;
  /** The failed test's round; the repair is round + 1. */
  round: number;
}

export const REPAIR_CANDIDATE = new ClientRequest<RepairCandidateParams, ScoreFunctionResult>(
  'xrepotest/repairCandidate',
  {
    type: 'object',
    required: ['uri', 'startLine', 'testCode', 'sample', 'round', 'settings'],
    properties: { uri: str, startLine: int, testCode: str, sample: int, round: int, ...withSettingsProperties },
  },
);

/**
 * "Improve": improvement rounds (xrepotest.improveRounds) from a passing test: the model is shown the
 * lines no test runs (and the mutants none detects) and asked for more tests; each is kept only when
 * it adds something, and the kept ones are merged into one suite. The result scores the suite.
 */
export interface ImproveCandidateParams extends WithSettings {
  uri: string;
  startLine: number;
  testCode: string;
  sample: number;
  round: number;
}

export const IMPROVE_CANDIDATE = new ClientRequest<ImproveCandidateParams, ScoreFunctionResult>(
  'xrepotest/improveCandidate',
  {
    type: 'object',
    required: ['uri', 'startLine', 'testCode', 'sample', 'round', 'settings'],
    properties: { uri: str, startLine: int, testCode: str, sample: int, round: int, ...withSettingsProperties },
  },
);

/**
 * "Check with mutants" (issue 30: mutation testing is off by default in the editor, so the score is
 * never held back by it): the mutants on the lines a passing test runs, each in its own copy; the
 * answer is the test's score with the mutation counts filled in.
 */
export interface MutateCandidateParams extends ImproveCandidateParams {
  /** Who wrote the test (a smoke test of the baseline stays one). */
  provider: string;
  model: string;
}

export const MUTATE_CANDIDATE = new ClientRequest<MutateCandidateParams, ScoreFunctionResult>('xrepotest/mutateCandidate', {
  type: 'object',
  required: ['uri', 'startLine', 'testCode', 'sample', 'round', 'provider', 'model', 'settings'],
  properties: { uri: str, startLine: int, testCode: str, sample: int, round: int, provider: str, model: str, ...withSettingsProperties },
});

/**
 * "Generate scored tests for my changes": the functions a test can call whose lines changed since a
 * git ref (committed since, staged or not, and files git does not track), in one workspace folder.
 */
export interface ChangedFunctionsParams extends WithSettings {
  /** The workspace folder (a file: URI). */
  folder: string;
  /** A branch, tag or commit of the folder's repository (HEAD: what is not committed yet). */
  ref: string;
}

export interface ChangedFunction {
  uri: string;
  /** Relative to the folder, '/'-separated. */
  relPath: string;
  name: string;
  startLine: number;
  endLine: number;
}

export interface ChangedFunctionsResult {
  /** The commit the ref named. */
  commit: string;
  functions: ChangedFunction[];
  /** Changed files left out, with why (not a language of the extension, a link, too large). */
  skipped: Array<{ relPath: string; why: string }>;
}

export const CHANGED_FUNCTIONS = new ClientRequest<ChangedFunctionsParams, ChangedFunctionsResult>(
  'xrepotest/changedFunctions',
  { type: 'object', required: ['folder', 'ref', 'settings'], properties: { folder: str, ref: str, ...withSettingsProperties } },
);

/** "Regenerate": a new sample from the provider, evaluated. */

export interface RegenerateCandidateParams extends WithSettings {
  uri: string;
  startLine: number;
  sample: number;
}

export const REGENERATE_CANDIDATE = new ClientRequest<RegenerateCandidateParams, ScoreFunctionResult>(
  'xrepotest/regenerateCandidate',
  { type: 'object', required: ['uri', 'startLine', 'sample', 'settings'], properties: { uri: str, startLine: int, sample: int, ...withSettingsProperties } },
);

/**
 * Where and as what the language's toolchain places a test (as in the sandbox, mapped to the
 * workspace): "Accept into project" writes exactly that, and only on that action.
 */

export interface PlaceCandidateParams extends WithSettings {
  uri: string;
  startLine: number;
  testCode: string;
}

export interface PlaceCandidateResult {
  relPath: string;
  path: string;
  /** The test as the toolchain writes it (a renamed class, a wrapped module…). */
  code: string;
  /** Add `code` at the end of the existing file (Rust's test module in the focal file) instead of creating one. */
  append: boolean;
  /** With `append`: where to add it instead of the end (0-based; Rust: the end of the inline module holding the focal item). */
  insertAt?: { line: number; character: number };
  notes: string[];
}

export const PLACE_CANDIDATE = new ClientRequest<PlaceCandidateParams, PlaceCandidateResult>(
  'xrepotest/placeCandidate',
  { type: 'object', required: ['uri', 'startLine', 'testCode', 'settings'], properties: { uri: str, startLine: int, testCode: str, ...withSettingsProperties } },
);

/** The focal function around a position (the palette and context menu act on the cursor's function). */

export interface FocalFunctionAtParams extends WithSettings {
  uri: string;
  /** 0-based, as in the editor. */
  line: number;
}

/**
 * The function around the cursor that a test can call (`note` when the benchmark's filter leaves it
 * out: it is scored all the same), or `why` not: no function there, or one no test can call, with
 * what to do instead.
 */
export type FocalFunctionAtResult = { name: string; startLine: number; endLine: number; note?: string } | { why: string };

export const FOCAL_FUNCTION_AT = new ClientRequest<FocalFunctionAtParams, FocalFunctionAtResult>(
  'xrepotest/focalFunctionAt',
  { type: 'object', required: ['uri', 'line', 'settings'], properties: { uri: str, line: int, ...withSettingsProperties } },
);

/**
 * Progress at the function (server → extension): a scoring of the function on `startLine` moved to a
 * new phase, or ended (`done`). Sent for every scoring request (generate, regenerate, repair, run),
 * whichever part of the editor started it; the extension shows long ones as a notification with Cancel.
 */
export interface ScoringPhaseParams {
  uri: string;
  startLine: number;
  functionName: string;
  /** What it is doing: starting, context, generating, building, compiling, testing, coverage, mutation… */
  phase: string;
  /** The phase in plain words, as the lens says it (`Running the test…`). */
  message: string;
  /** The scoring ended (scored, failed or cancelled). */
  done: boolean;
}

export const SCORING_PHASE = new ServerNotification<ScoringPhaseParams>('xrepotest/scoringPhase');

/** Cancels the scoring in flight for a function (the lens's and the notification's Cancel), whoever started it. */

export interface CancelScoringParams {
  uri: string;
  startLine: number;
}

/** Whether a scoring was in flight there (and is now stopping). */
export interface CancelScoringResult {
  cancelled: boolean;
  functionName?: string;
}

export const CANCEL_SCORING = new ClientRequest<CancelScoringParams, CancelScoringResult>(
  'xrepotest/cancelScoring',
  { type: 'object', required: ['uri', 'startLine'], properties: { uri: str, startLine: int } },
);

/**
 * The error code of a scoring request refused because the function is already being scored (one
 * scoring per function at a time); the message says which phase the running one is in. In the
 * JSON-RPC range left to applications (outside -32768..-32000).
 */
export const SCORING_BUSY_CODE = 14_003;
