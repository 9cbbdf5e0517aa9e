import * as assert from 'node:assert/strict';
import { detectedMutants, mutationFraction, mutationScoreOf } from '../../src/engine/mutate/counts';
import { toResultMutation, type MutationResult } from '../../src/engine/mutate/run';
import { withMutation } from '../../src/server/candidates';
import type { ScoreFunctionResult } from '../../src/shared/scoring-protocol';

const RUN: MutationResult = { mutants: 10, viable: 8, killed: 5, survived: 1, timedOut: 2, unviable: 2, score: 7 / 8, perMutant: [], mutantTimeoutMs: 10_000 };

describe('mutant counts: one definition for the records and the editor (METRICS.md item 8)', () => {
  it('counts a timed-out mutant as detected in the score, kept apart from the killed ones', () => {
    assert.equal(detectedMutants({ killed: 5, timedOut: 2 }), 7);
    assert.equal(mutationScoreOf({ killed: 5, timedOut: 2, viable: 8 }), 7 / 8);
    assert.equal(mutationScoreOf({ killed: 0, timedOut: 0, viable: 0 }), 0);
    assert.equal(mutationFraction({ killed: 5, timedOut: 2, viable: 8 }), 'MS 7/8 (2 timed out)');
    assert.equal(mutationFraction({ killed: 5, timedOut: 0, viable: 8 }), 'MS 5/8');
  });

  it('gives the editor the numbers the stored record keeps, and its lens the same fraction', () => {
    const stored = toResultMutation(RUN);
    const base = { functionName: 'Status', smoke: true, compiled: true, passed: true, failureCategory: null, testsRan: 1, testsPassed: 1, coveredLines: [1], executableLines: [1], invoked: true, provider: 'baseline', summary: '' } as unknown as ScoreFunctionResult;
    const shown = withMutation(base, RUN);
    assert.deepEqual(shown.mutation, { killed: stored.killed, timedOut: stored.timed_out, viable: stored.viable, mutants: stored.mutants, score: stored.score });
    assert.match(shown.summary, / · caught 7 of 8 mutants \(2 by timing out\)$/);
    assert.equal(withMutation(base, undefined), base);
    // A run that could not start shows no MS, but says why in the result.
    const failed = withMutation(base, { ...RUN, error: 'the test does not pass on the original' });
    assert.equal(failed.mutation?.error, 'the test does not pass on the original');
    assert.doesNotMatch(failed.summary, /mutants/);
  });
});
