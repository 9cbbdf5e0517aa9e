import * as assert from 'node:assert';
import * as vscode from 'vscode';
import type { Engine } from '../../../src/extension/engine';
import type { TestingApi } from '../../../src/extension/testing';
import { DEFAULT_ENGINE_SETTINGS } from '../../../src/shared/protocol';
import { SCORE_FUNCTION, SCORING_BUSY_CODE } from '../../../src/shared/scoring-protocol';
import { EXTENSION_ID, openInEditor, screenshot, waitFor } from './helpers';

/** Status in the fixture's item.go: its lenses are on line 7 (0-based 6). */
const STATUS_LINE = 7;
const PHASE_PREFIX = '$(sync~spin) ';

function children(item: vscode.TestItem | undefined): vscode.TestItem[] {
  const out: vscode.TestItem[] = [];
  item?.children.forEach((i) => out.push(i));
  return out;
}

async function statusLenses(uri: vscode.Uri): Promise<vscode.CodeLens[]> {
  const found = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri)) ?? [];
  return found.filter((l) => l.range.start.line === STATUS_LINE - 1);
}

/** A scoring started and not awaited, with whether it has ended yet. */
function start(uri: vscode.Uri): { done: () => boolean; result: Promise<unknown> } {
  let ended = false;
  const result = Promise.resolve(vscode.commands.executeCommand('xrepotest.generateScoredTests', uri.toString(), STATUS_LINE)).finally(() => (ended = true));
  return { done: () => ended, result };
}

/**
 * Polls the lenses every 100 ms until the phase and Cancel lenses show (or the scoring ends): what
 * was seen, and whether the scoring was still running then.
 */
async function phaseLensesWhileRunning(uri: vscode.Uri, scoring: { done: () => boolean }, limitMs = 60_000): Promise<{ phases: string[]; cancel: vscode.CodeLens | undefined; runningWhenSeen: boolean }> {
  const phases: string[] = [];
  const until = Date.now() + limitMs;
  while (Date.now() < until && !scoring.done()) {
    const lenses = await statusLenses(uri);
    const running = !scoring.done();
    for (const l of lenses) if (l.command?.title.startsWith(PHASE_PREFIX) && !phases.includes(l.command.title)) phases.push(l.command.title);
    const cancel = lenses.find((l) => l.command?.command === 'xrepotest.cancelScoring');
    if (phases.length && cancel) return { phases, cancel, runningWhenSeen: running };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { phases, cancel: undefined, runningWhenSeen: false };
}

describe('Scoring progress at the function', () => {
  // Mutation testing makes the second test's scoring long enough for the notification; the runner's value is put back.
  let mutationBefore: number | undefined;
  let engine: Engine & { testing: TestingApi };
  before(async () => {
    engine = (await vscode.extensions.getExtension(EXTENSION_ID)!.activate()) as Engine & { testing: TestingApi };
    mutationBefore = vscode.workspace.getConfiguration('xrepotest').inspect<number>('reruns')?.globalValue;
  });
  after(() => vscode.workspace.getConfiguration('xrepotest').update('reruns', mutationBefore, vscode.ConfigurationTarget.Global));
  // A test that failed half-way leaves no scoring running into the next one.
  afterEach(async () => {
    const editor = await openInEditor('item.go');
    await vscode.commands.executeCommand('xrepotest.cancelScoring', editor.document.uri.toString(), STATUS_LINE);
    await waitFor('no scoring of Status in flight', 60_000, async () => ((await statusLenses(editor.document.uri)).some((l) => l.command?.title === 'Cancel') ? undefined : true));
  });

  it('shows the phase and Cancel on the lens while scoring, and starts no second scoring of the same function', async function () {
    // The first scoring of a session builds the package (minutes on a busy machine).
    this.timeout(600_000);
    const editor = await openInEditor('item.go');
    const uri = editor.document.uri;
    await waitFor('the Generate lens on Status', 30_000, async () => ((await statusLenses(uri)).some((l) => l.command?.title === 'Generate scored tests') ? true : undefined));
    const focalId = `${uri.toString()}#${STATUS_LINE}`;
    const candidatesBefore = children(engine.testing.controller.items.get(focalId)).length;

    const scoring = start(uri);
    const seen = await phaseLensesWhileRunning(uri, scoring);
    assert.ok(seen.phases.length > 0 && seen.cancel, `a phase lens and a Cancel lens on Status while it was scored; phases seen: ${seen.phases.join(' | ') || 'none'}`);
    assert.ok(seen.runningWhenSeen, 'the lenses showed while the scoring was still running');
    assert.deepStrictEqual(seen.cancel.command?.arguments, [uri.toString(), STATUS_LINE], 'Cancel names this function');

    // A second click: the extension does not send it (it says which phase the first is in) …
    const again = await vscode.commands.executeCommand('xrepotest.generateScoredTests', uri.toString(), STATUS_LINE);
    assert.strictEqual(again, undefined, 'the second invocation scored nothing');
    assert.ok(!scoring.done(), 'the first scoring still runs after the second click');
    // … and the engine server refuses one sent anyway (another window, the Testing view), saying what it is doing.
    await assert.rejects(
      engine.request(SCORE_FUNCTION, { uri: uri.toString(), startLine: STATUS_LINE, settings: { ...DEFAULT_ENGINE_SETTINGS, mutation: true } }),
      (e: Error & { code?: number }) => e.code === SCORING_BUSY_CODE && /^already scoring Status: .+…$/.test(e.message),
      'the server refuses a second scoring of Status',
    );

    const lensShot = await screenshot({ name: 'progress-lens', waitForText: 'Cancel' });
    assert.strictEqual(lensShot.textFound, true, 'the workbench shows the Cancel lens');

    const result = (await scoring.result) as { functionName: string } | undefined;
    assert.strictEqual(result?.functionName, 'Status', 'the first scoring finished with a score');
    const after = await waitFor('the phase lenses to go', 10_000, async () => {
      const lenses = await statusLenses(uri);
      return lenses.some((l) => l.command?.title.startsWith(PHASE_PREFIX) || l.command?.title === 'Cancel') ? undefined : lenses;
    });
    assert.ok(after.some((l) => l.command?.title === 'Generate scored tests'), 'the Generate lens stays');
    assert.strictEqual(children(engine.testing.controller.items.get(focalId)).length, candidatesBefore + 1, 'one candidate was added: the duplicate scored nothing');
  });

  it('a long scoring gets a notification with Cancel, and the Cancel lens cancels it: nothing is scored and no candidate is added', async function () {
    this.timeout(180_000);
    // A long scoring: a passing test rerun many times in fresh copies (mutants no longer hold a score back).
    await vscode.workspace.getConfiguration('xrepotest').update('reruns', 30, vscode.ConfigurationTarget.Global);
    const editor = await openInEditor('item.go');
    const uri = editor.document.uri;
    const focalId = `${uri.toString()}#${STATUS_LINE}`;
    const candidatesBefore = children(engine.testing.controller.items.get(focalId)).length;
    const scoring = start(uri);
    const seen = await phaseLensesWhileRunning(uri, scoring);
    assert.ok(seen.cancel?.command && seen.runningWhenSeen, `a Cancel lens while scoring; phases seen: ${seen.phases.join(' | ') || 'none'}`);
    // Still running after NOTIFY_AFTER_MS (a build, a run and 30 reruns take longer): the notification with the phase and Cancel.
    const notification = await screenshot({ name: 'progress-notification', waitForText: 'XRepoTest: scoring Status' });
    assert.strictEqual(notification.textFound, true, `the notification "XRepoTest: scoring Status" shows while the scoring runs (still running: ${!scoring.done()})`);
    assert.ok(!scoring.done(), 'the scoring still runs, to be cancelled');
    const cancelled = await vscode.commands.executeCommand(seen.cancel.command.command, ...(seen.cancel.command.arguments ?? []));
    assert.strictEqual(cancelled, true, 'the server had a scoring of Status to cancel');
    assert.strictEqual(await scoring.result, undefined, 'the cancelled scoring returns nothing');
    assert.strictEqual(children(engine.testing.controller.items.get(focalId)).length, candidatesBefore, 'no candidate was added');
    await waitFor('the Cancel lens to go', 10_000, async () => ((await statusLenses(uri)).some((l) => l.command?.title === 'Cancel') ? undefined : true));
    // Nothing in flight now: the palette's Cancel says so instead of cancelling anything.
    assert.strictEqual(await vscode.commands.executeCommand('xrepotest.cancelScoring', uri.toString(), STATUS_LINE), false);
  });
});
