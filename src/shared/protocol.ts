/**
 * The engine server's custom requests, typed once for both sides (the server in src/server and the
 * extension in src/extension). Plain types only: no `vscode` and no engine code here.
 */
import type { EnvironmentReport } from '../engine/environment';

export const CHECK_ENVIRONMENT = 'xrepotest/checkEnvironment';
export type CheckEnvironmentResult = EnvironmentReport & { text: string };

/** Generate a test for the focal function starting at `startLine` (1-based), run and score it. */
export const SCORE_FUNCTION = 'xrepotest/scoreFunction';

export interface ScoreFunctionParams {
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
  /** The code lens line: `TPR 1/1 · Cov 85% · IR ✓`. */
  summary: string;
}

/** The settings the server needs to generate and run (API keys never travel here: the editor keeps them). */
export interface EngineSettings {
  minLines: number;
  maxLines: number;
  provider: string;
  executor: 'local' | 'docker';
  testTimeoutSeconds: number;
  memoryMb: number;
}
