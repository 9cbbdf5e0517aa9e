import { strict as assert } from 'node:assert';
import { candidatePicks, canRepair, messageContext, ROOM_FOR_THE_BUTTON, withRoomForTheButton, writtenBy, type CandidateSummary } from '../../src/extension/testing-model';
import { evaluateWhen, readPackageJson, visibleActions } from '../helpers/menus';
import { REPO_ROOT } from '../helpers/paths';

const pkg = readPackageJson(REPO_ROOT);
/** The peek's button: VS Code renders only the first `testing/message/content` action. */
const peekButton = (state: 'failed' | 'errored', provider: string): string | undefined =>
  visibleActions(pkg, 'testing/message/content', { testMessage: messageContext(state), 'xrepotest.canRepair': canRepair(provider) })[0];

describe('Keep a generated test: which actions a failure and a candidate offer', () => {
  it('only a model can repair: not the offline baseline, not replay', () => {
    assert.equal(canRepair('baseline'), false);
    assert.equal(canRepair('replay'), false);
    for (const p of ['anthropic', 'openai', 'openai-compatible']) assert.equal(canRepair(p), true, p);
  });

  it('the peek\'s button is Repair for an assertion failure with a model, else Regenerate; never Accept', () => {
    assert.equal(peekButton('failed', 'anthropic'), 'xrepotest.repairWithModel');
    assert.equal(peekButton('failed', 'baseline'), 'xrepotest.regenerate');
    assert.equal(peekButton('failed', 'replay'), 'xrepotest.regenerate');
    // A test that does not compile: Regenerate, with or without a model (the context menu still has Accept).
    assert.equal(peekButton('errored', 'openai'), 'xrepotest.regenerate');
    assert.equal(peekButton('errored', 'baseline'), 'xrepotest.regenerate');
    const context = visibleActions(pkg, 'testing/message/context', { testMessage: messageContext('errored'), 'xrepotest.canRepair': false });
    assert.ok(context.includes('xrepotest.acceptIntoProject'), `Accept stays in the message's context menu: ${context.join(', ')}`);
    assert.ok(!context.includes('xrepotest.repairWithModel'), 'no Repair with the baseline');
  });

  it('the Testing view\'s item menu offers Accept first on any candidate and its cases, not on the function', () => {
    const candidate = 'file:///w/item.go#7/2';
    const item = (testId: string, state = 'passed') => visibleActions(pkg, 'testing/item/context', { controllerId: 'xrepotest', testId, testResultState: state, 'xrepotest.canRepair': true });
    assert.equal(item(candidate)[0], 'xrepotest.acceptIntoProject');
    assert.equal(item(`${candidate}/TestStatus`)[0], 'xrepotest.acceptIntoProject');
    assert.ok(!item(candidate).includes('xrepotest.repairWithModel'), 'nothing to repair on a passing test');
    assert.ok(item(candidate, 'failed').includes('xrepotest.repairWithModel'));
    assert.deepEqual(item('file:///w/item.go#7'), [], 'the focal function is no test to keep');
    assert.deepEqual(visibleActions(pkg, 'testing/item/context', { controllerId: 'go', testId: candidate }), [], 'other controllers\' tests');
  });

  it('evaluates the when clauses it reads, and refuses ones it cannot', () => {
    assert.equal(evaluateWhen('a == x && b =~ /^y\\/z$/', { a: 'x', b: 'y/z' }), true);
    assert.equal(evaluateWhen('a == x && b =~ /^y\\/z$/', { a: 'x', b: 'y' }), false);
    assert.equal(evaluateWhen('!a || c', { a: true, c: true }), true);
    assert.equal(evaluateWhen('resourceScheme == xrepotest-candidate || xrepotest.editingCandidate', { resourceScheme: 'untitled', 'xrepotest.editingCandidate': true }), true);
    assert.throws(() => evaluateWhen('!(a || b)', {}), /parentheses/);
  });
});

describe('Keep a generated test: the palette\'s list of candidates', () => {
  const r = (functionName: string, passed: boolean, provider = 'baseline', model = 'baseline', sample = 0, round = 0): CandidateSummary['result'] => ({
    functionName,
    summary: passed ? '✓ TPR 1/1 · Cov 50%' : '✗ TPR 0/1',
    passed,
    compiled: true,
    provider,
    model,
    sample,
    round,
    focalFile: `/w/${functionName.toLowerCase()}.go`,
  });

  it('lists passing tests first, newest first, with the function, score and author', () => {
    const picks = candidatePicks(
      [
        { label: 'baseline #1', result: r('Status', true) },
        { label: 'claude #2', result: r('Status', false, 'anthropic', 'claude-x') },
        { label: 'baseline #1', result: r('Total', true) },
      ],
      (f) => f.slice(3),
    );
    assert.deepEqual(picks.map((p) => p.index), [2, 0, 1]);
    assert.equal(picks[0].label, '$(pass) Total — baseline #1');
    assert.equal(picks[0].description, 'total.go · ✓ TPR 1/1 · Cov 50%');
    assert.equal(picks[0].detail, 'written by the offline baseline (no model) · attempt 1');
    assert.equal(picks[2].label, '$(error) Status — claude #2');
  });

  it('says who wrote a test in plain words', () => {
    assert.equal(writtenBy({ provider: 'anthropic', model: 'claude-x', sample: 1, round: 1 }), 'written by claude-x (anthropic) · attempt 2, repair 1');
    assert.equal(writtenBy({ provider: 'manual', model: 'manual', sample: 0, round: 0 }), 'written by hand · attempt 1');
  });

  it('ends a peek message with room for its button, once, whatever blank space the text ended with', () => {
    assert.equal(ROOM_FOR_THE_BUTTON, '\n\n\n');
    assert.equal(withRoomForTheButton('got "a", want "b"'), 'got "a", want "b"\n\n\n');
    assert.equal(withRoomForTheButton('line 1\nline 2\n\n  \n'), 'line 1\nline 2\n\n\n');
    assert.equal(withRoomForTheButton(withRoomForTheButton('x')), 'x\n\n\n');
  });
});
