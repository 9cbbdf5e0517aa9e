import { reportFromCases } from '../../src/engine/score/reports/report';
import type { Finding, TamperingInput } from '../../src/engine/score/tampering';

/* Shared by test/unit/hostile-score.test.ts and test/integration/hostile-score.test.ts. */

/** A tampering-check input for a test that ran and passed, with nothing else to see, overridden by `over`. */
export function input(over: Partial<TamperingInput> & Pick<TamperingInput, 'language' | 'testCode'>): TamperingInput {
  return {
    testRan: true,
    testExitCode: 0,
    testOutput: '',
    testOutputTruncated: false,
    report: reportFromCases([]),
    coverage: { executable: [], covered: [] },
    focalAfter: null,
    focalExpected: '',
    ...over,
  };
}

export const rules = (f: Finding[]) => f.map((x) => x.rule);
