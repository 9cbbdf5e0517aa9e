/** Scoring one focal function from the editor (code lens, palette, Testing view). */
import type { WithSettings } from './protocol';

/** Generate a test for the focal function starting at `startLine` (1-based), run and score it. */
export const SCORE_FUNCTION = 'xrepotest/scoreFunction';

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
  /** The code lens line: `TPR 1/1 · Cov 85% · IR ✓`. */
  summary: string;
}

/** The focal function around a position (the palette and context menu act on the cursor's function). */
export const FOCAL_FUNCTION_AT = 'xrepotest/focalFunctionAt';

export interface FocalFunctionAtParams extends WithSettings {
  uri: string;
  /** 0-based, as in the editor. */
  line: number;
}

/** null when the cursor is in no focal function; `why` then says what it is in instead, if anything. */
export type FocalFunctionAtResult = { name: string; startLine: number; endLine: number } | { why: string };
