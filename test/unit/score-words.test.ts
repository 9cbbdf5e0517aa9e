import * as assert from 'node:assert/strict';
import { scoreTooltip, summaryOf, withMutation } from '../../src/server/candidates';
import { functionLensTooltip } from '../../src/server/scoring';
import type { ScoreFunctionResult } from '../../src/shared/scoring-protocol';

const passing = {
  functionName: 'Find',
  compiled: true,
  passed: true,
  failureCategory: null,
  testsRan: 1,
  testsPassed: 1,
  coveredLines: [3, 4, 5, 6, 7],
  executableLines: Array.from({ length: 21 }, (_, i) => i + 3),
  invoked: true,
  provider: 'anthropic',
  smoke: false,
  mutation: { killed: 1, timedOut: 0, viable: 2, mutants: 3, score: 0.5 },
};

describe('the score in plain words (lens, tooltip, Testing view)', () => {
  it("says a model's passing test with assertions in words: tests, lines run, the call, mutants caught", () => {
    assert.equal(summaryOf(passing), "✓ 1 of 1 tests pass · 24 % of the function's lines run · calls Find · caught 1 of 2 mutants");
    assert.doesNotMatch(summaryOf(passing), /TPR|Cov|IR|MS/);
  });

  it('never gives a smoke test ✓: the baseline and an assertion-free test get ◌ and say why', () => {
    const baseline = summaryOf({ ...passing, provider: 'baseline', smoke: true });
    assert.equal(baseline, "◌ smoke test only: runs Find without checking results (offline baseline) · 24 % of the function's lines run · caught 1 of 2 mutants");
    assert.ok(!baseline.includes('✓'));
    assert.match(summaryOf({ ...passing, smoke: true }), /^◌ smoke test only: runs Find without checking results \(no assertions\)/);
    assert.match(summaryOf({ ...passing, smoke: true, invoked: false }), /^◌ smoke test only: does not call Find and checks no results \(no assertions\)/);
    // A failing smoke test fails like any other.
    assert.match(summaryOf({ ...passing, smoke: true, passed: false, testsPassed: 0 }), /^✗ 0 of 1 tests pass · /);
  });

  it('says a flaky test is flaky with its pass count, never ✓; a steady one says it passed every run', () => {
    const flaky = { ...passing, passed: false, failureCategory: 'flaky', reruns: { runs: 3, passed: 2 }, mutation: undefined };
    assert.equal(summaryOf(flaky), "⚠ flaky: passed 2 of 3 runs · 24 % of the function's lines run · calls Find");
    assert.match(scoreTooltip(flaky), /^Flaky: the test passed its first run, then ran again 2 times, each in a fresh copy, and passed 2 of the 3 runs/);
    const steady = { ...passing, reruns: { runs: 3, passed: 3 } };
    assert.equal(summaryOf(steady), "✓ 1 of 1 tests pass · 24 % of the function's lines run · calls Find · passed all 3 runs · caught 1 of 2 mutants");
    assert.match(scoreTooltip(steady), /\npassed all 3 runs: after passing once it ran 2 more times/);
    assert.doesNotMatch(summaryOf(passing), /runs$|flaky/, 'not rerun: no word about reruns');
  });

  it('puts what "Improve" did first: the suite and the first test\'s share of lines, or that no test was kept and why', () => {
    const rounds = [
      { improve: 1, kept: true, verdict: 'adds-coverage', reason: 'it runs focal line(s) 9, 10 that no test of the suite ran', addedLines: [9, 10] },
      { improve: 2, kept: false, verdict: 'adds-nothing', reason: 'it runs no focal line the suite does not run', addedLines: [] },
    ];
    const suite = { ...passing, coveredLines: [3, 4, 5, 6, 7, 9, 10], suite: { tests: 2, first: { covered: 5, executable: 21 }, rounds } };
    assert.equal(summaryOf(suite), "suite of 2 tests (the first alone: 24 % of the lines) · ✓ 1 of 1 tests pass · 33 % of the function's lines run · calls Find · caught 1 of 2 mutants");
    const tip = scoreTooltip(suite);
    assert.match(tip, /suite of 2 tests: "Improve" added 1 test\(s\) to the first one, merged into one file and scored as one; the first test alone ran 5 of 21 lines/);
    assert.match(tip, /\n  round 1: kept: it runs focal line\(s\) 9, 10 that no test of the suite ran\n  round 2: dropped: it runs no focal line the suite does not run$/);
    const none = { ...passing, suite: { tests: 1, first: { covered: 5, executable: 21 }, rounds: rounds.slice(1) } };
    assert.match(summaryOf(none), /^improve: no test kept in 1 round · ✓ 1 of 1 tests pass/);
    assert.match(scoreTooltip(none), /kept none .*\n  round 2: dropped: it runs no focal line/);
  });

  it('says why a test failed in words', () => {
    assert.equal(summaryOf({ ...passing, compiled: false, passed: false }), '✗ the test does not compile');
    assert.equal(summaryOf({ ...passing, passed: false, failureCategory: 'tampering' }), '✗ the test tampers with its own result');
    assert.equal(summaryOf({ ...passing, passed: false, testsRan: 0, testsPassed: 0, mutation: undefined }), "✗ no test ran · 24 % of the function's lines run · calls Find");
    assert.equal(summaryOf({ ...passing, passed: false, testsRan: 3, testsPassed: 1, invoked: false, mutation: undefined }), "✗ 1 of 3 tests pass · 24 % of the function's lines run · does not call Find");
    assert.match(summaryOf({ ...passing, mutation: { killed: 1, timedOut: 2, viable: 4, mutants: 4, score: 0.75 } }), / · caught 3 of 4 mutants \(2 by timing out\)$/);
  });

  it('explains each number in the tooltip, with this test\'s numbers', () => {
    const lines = scoreTooltip(passing).split('\n');
    assert.equal(lines.length, 4);
    assert.match(lines[0], /^1 of 1 tests pass: /);
    assert.match(lines[1], /^24 % of the function's lines run: 5 of the 21 executable lines of Find ran/);
    assert.match(lines[2], /^calls Find: the test calls Find itself/);
    assert.match(lines[3], /^caught 1 of 2 mutants: 2 small changes/);
    assert.match(scoreTooltip({ ...passing, provider: 'baseline', smoke: true }).split('\n')[0], /^Smoke test only: the test has no assertions \(the offline baseline writes such tests when no model is set\)/);
    assert.match(scoreTooltip({ ...passing, compiled: false }), /does not compile, so nothing ran/);
  });

  it('the function lens explains its line count and the range that gives a lens', () => {
    assert.equal(
      functionLensTooltip('Find', 28, { minLines: 20, maxLines: 50 }),
      'Find has 28 lines of code (comments and blank lines not counted). Functions of 20 to 50 lines get this lens (settings "xrepotest.extract.minLines" and "xrepotest.extract.maxLines").',
    );
  });

  it('withMutation puts the mutants caught into the summary', () => {
    const base = { ...passing, mutation: undefined, summary: '' } as unknown as ScoreFunctionResult;
    const shown = withMutation(base, { mutants: 10, viable: 8, killed: 5, survived: 1, timedOut: 2, unviable: 2, score: 7 / 8, perMutant: [], mutantTimeoutMs: 10_000 });
    assert.match(shown.summary, / · caught 7 of 8 mutants \(2 by timing out\)$/);
  });
});
