/** Hits per line (1-based) for one source file, as the language's coverage tool reported them. */
export type LineHits = Map<number, number>;

/** Focal coverage: executable focal lines, and those that ran. */
export interface FocalCoverage {
  executable: number[];
  covered: number[];
}

export interface TestCaseResult {
  name: string;
  status: 'passed' | 'failed' | 'errored' | 'skipped';
  message?: string;
  expected?: string;
  actual?: string;
}

/** What the test runner itself reported. */
export interface TestReport {
  ran: number;
  passed: number;
  failed: number;
  errored: number;
  skipped: number;
  cases: TestCaseResult[];
  /** Errors outside any test (a spec file that fails to load, a panic in init). */
  outsideErrors: number;
}

export type FailureCategory =
  | 'syntactic-compilation'
  | 'type-system-memory'
  | 'api-hallucination'
  | 'logic-assertion'
  | 'test-design-mocking'
  /** Ours, not the paper's: the test forged its score or changed the focal code (METRICS.md). */
  | 'tampering'
  /** Ours: reruns of a passing test disagreed; stays in N as not passing, its pass count kept (METRICS.md). */
  | 'flaky'
  /** Ours: the harness or the machine could not build or run the project; not the test's fault, left out of N (METRICS.md). */
  | 'environment';

/** Why a slot could not be scored: the harness's or the machine's failure, never the test's. */
export interface EnvironmentProblem {
  /** A short id: 'toolchain-missing', 'checkout-mismatch', 'repository-not-copyable', 'project-does-not-build', 'image-does-not-build', 'dependencies-unresolvable' (Rust). */
  cause: string;
  /** Names the cause and the fix, for people (the command line's words: flags, `xrepotest doctor`). */
  reason: string;
  /**
   * The fixes as actions, for front ends that offer them in their own words (the editor: a button that
   * opens the setting, runs the install command in a terminal, checks the project); absent: only `reason`.
   */
  fixes?: EnvironmentFix[];
}

/** One way out of an environment verdict, named without any front end's words. */
export type EnvironmentFix =
  /** Try again: a build cut short by a limit was kept and the next try continues it. */
  | { kind: 'retry' }
  /** Give builds more time: the limit that ended it (`silence`: time without progress; `total`: wall time). */
  | { kind: 'build-limit'; limit: 'silence' | 'total' }
  /** Run the other executor (local toolchains, or containers). */
  | { kind: 'executor'; executor: 'local' | 'docker' }
  /** The project's own command (an install, a build), to run in a terminal in `cwd`. */
  | { kind: 'command'; command: string; cwd: string }
  /** The project check (`xrepotest doctor --repo`): does it build here, what is missing. */
  | { kind: 'check-project'; repoDir: string };

export const FAILURE_CATEGORY_LABELS: Record<FailureCategory, string> = {
  'syntactic-compilation': 'Syntactic & Compilation',
  'type-system-memory': 'Type System & Memory',
  'api-hallucination': 'API Hallucination',
  'logic-assertion': 'Logic & Assertion',
  'test-design-mocking': 'Test Design & Mocking',
  tampering: 'Tampering',
  flaky: 'Flaky',
  environment: 'Environment (not the test)',
};

export interface InvocationResult {
  /** A call whose name matches the focal function (the release's check, fixed per METRICS.md item 7). */
  invoked: boolean;
  /** The call's receiver or module also matches where the language lets us tell. */
  strict: boolean;
}
