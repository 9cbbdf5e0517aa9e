import { strict as assert } from 'node:assert';
import type { Evaluation } from '../../src/engine/execute/evaluate';
import { withReruns } from '../../src/engine/execute/reruns';

/** An evaluation that passed, failed, or was the machine's failure (only the fields withReruns reads matter). */
function evaluation(outcome: 'pass' | 'fail' | 'environment'): Evaluation {
  const failure = outcome === 'pass' ? null : { category: outcome === 'fail' ? ('logic-assertion' as const) : ('environment' as const), rule: 'r' };
  return {
    language: 'ruby',
    testHash: 'h',
    executor: { kind: 'local', engine: 'local', versions: {} },
    placement: null,
    phases: [],
    testReport: { ran: 1, passed: outcome === 'pass' ? 1 : 0, failed: outcome === 'fail' ? 1 : 0, errored: 0, skipped: 0, cases: [], outsideErrors: 0 },
    score: {
      compiled: true,
      passed: outcome === 'pass',
      coverage: { executable: [1, 2], covered: [1] },
      coverageRatio: 0.5,
      invocation: { invoked: true, strict: true },
      failure,
      reason: outcome === 'pass' ? null : `it ${outcome}ed`,
    },
    ...(outcome === 'environment' ? { environment: { cause: 'toolchain-missing', reason: 'no ruby' } } : {}),
  } as Evaluation;
}

/** `again` answering these outcomes in turn, and how often it was called. */
function runs(...outcomes: Array<'pass' | 'fail' | 'environment'>): { again: () => Promise<Evaluation>; calls: () => number } {
  let i = 0;
  return { again: async () => evaluation(outcomes[i++]), calls: () => i };
}

describe('flaky detection: reruns of a passing test', () => {
  it('a test that passes every rerun passes, with its count', async () => {
    const r = runs('pass', 'pass');
    const e = await withReruns(evaluation('pass'), 2, r.again);
    assert.equal(e.score.passed, true);
    assert.deepEqual(e.score.reruns, { runs: 3, passed: 3 });
    assert.equal(e.score.failure, null);
  });

  it('one failing rerun makes it flaky: not a pass, category flaky, the pass count and a failing run named; coverage kept', async () => {
    const e = await withReruns(evaluation('pass'), 2, runs('pass', 'fail').again);
    assert.equal(e.score.passed, false);
    assert.deepEqual(e.score.reruns, { runs: 3, passed: 2 });
    assert.equal(e.score.failure?.category, 'flaky');
    assert.match(e.score.reason ?? '', /passed 2 of 3 runs .*it failed/);
    assert.deepEqual(e.score.coverage.covered, [1]);
  });

  it("a rerun the machine could not score is not counted; a failing first run and k = 0 are not rerun", async () => {
    const e = await withReruns(evaluation('pass'), 2, runs('environment', 'pass').again);
    assert.equal(e.score.passed, true);
    assert.deepEqual(e.score.reruns, { runs: 2, passed: 2 });
    const failed = runs('pass');
    assert.equal((await withReruns(evaluation('fail'), 3, failed.again)).score.passed, false);
    assert.equal(failed.calls(), 0);
    const none = runs('fail');
    assert.equal((await withReruns(evaluation('pass'), 0, none.again)).score.reruns, undefined);
    assert.equal(none.calls(), 0);
  });
});
