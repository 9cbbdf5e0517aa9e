import { strict as assert } from 'node:assert';
import { lensSummaryOf } from '../../src/server/lens-summary';
import { scoreTooltip, summaryOf } from '../../src/server/candidates';

const base = {
  functionName: 'Commaf',
  compiled: true,
  passed: true,
  failureCategory: null,
  testsRan: 1,
  testsPassed: 1,
  coveredLines: [3, 4, 5, 6],
  executableLines: [3, 4, 5, 6],
  invoked: true,
  smoke: false,
  provider: 'anthropic',
};

/** Issue 30: the lens says the score short, so its actions stay on screen; the plain words are its hover. */
describe('the score lens, short', () => {
  it('says tests, lines and the call in a few characters, and is shorter than the plain words', () => {
    const s = lensSummaryOf(base);
    assert.equal(s, '✓ 1/1 · 100 % · calls Commaf');
    assert.ok(s.length < summaryOf(base).length / 2, `${s} vs ${summaryOf(base)}`);
  });

  it('says a failing test, a smoke pass, a flaky one, a suite and the mutants apart', () => {
    assert.equal(lensSummaryOf({ ...base, passed: false, testsPassed: 0, testsRan: 2, coveredLines: [3, 4], failureCategory: 'logic-assertion' }), '✗ 0/2 · 50 % · calls Commaf');
    assert.equal(lensSummaryOf({ ...base, smoke: true, coveredLines: [3] }), '◌ smoke · 25 %');
    assert.equal(lensSummaryOf({ ...base, passed: false, failureCategory: 'flaky', reruns: { runs: 3, passed: 2 } }), '⚠ flaky 2/3 · 100 % · calls Commaf');
    assert.equal(lensSummaryOf({ ...base, invoked: false, coveredLines: [] }), '✓ 1/1 · 0 % · no call to Commaf');
    assert.equal(lensSummaryOf({ ...base, mutation: { killed: 12, timedOut: 2, viable: 16, mutants: 18, score: 0.875 } }), '✓ 1/1 · 100 % · calls Commaf · 14/16 mutants');
    // None made (mutants are made only on the lines the test runs): said, not `0/0`.
    assert.equal(lensSummaryOf({ ...base, mutation: { killed: 0, timedOut: 0, viable: 0, mutants: 0, score: 0 } }), '✓ 1/1 · 100 % · calls Commaf · no mutants');
    assert.equal(lensSummaryOf({ ...base, suite: { tests: 3, first: { covered: 2, executable: 4 }, rounds: [] } }), 'suite of 3 · ✓ 1/1 · 100 % · calls Commaf');
  });

  it('says in the hover why the mutants counted are fewer than the mutants made', () => {
    const tip = scoreTooltip({ ...base, mutation: { killed: 12, timedOut: 2, viable: 16, mutants: 18, score: 0.875 } });
    assert.match(tip, /16 small changes were made/);
    assert.match(tip, /2 more of the 18 mutants made did not compile .*not counted/);
    assert.doesNotMatch(scoreTooltip({ ...base, mutation: { killed: 1, timedOut: 0, viable: 2, mutants: 2, score: 0.5 } }), /did not compile/);
    const none = { ...base, mutation: { killed: 0, timedOut: 0, viable: 0, mutants: 0, score: 0 } };
    assert.match(summaryOf(none), /no mutant on the lines it runs$/);
    assert.match(scoreTooltip(none), /made only on the \d+ line\(s\) the test runs/);
  });

  it('says what stopped a test that never ran, with nothing measured', () => {
    assert.equal(lensSummaryOf({ ...base, compiled: false, passed: false }), '✗ does not compile');
    assert.equal(lensSummaryOf({ ...base, failureCategory: 'tampering' }), '✗ tampers with its result');
    assert.equal(lensSummaryOf({ ...base, environment: { cause: 'julia is not installed', fix: 'install it' } }), "⚠ can't run here");
    assert.equal(lensSummaryOf({ ...base, environment: { cause: 'the first build of hex was still going', fix: 'try again', actions: [{ kind: 'retry', title: 'Try again' }] } }), '⏸ first build not finished');
  });
});
