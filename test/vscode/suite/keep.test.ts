import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Engine } from '../../../src/extension/engine';
import type { TestingApi } from '../../../src/extension/testing';
import { canRepair, messageContext } from '../../../src/extension/testing-model';
import { DEFAULT_ENGINE_SETTINGS } from '../../../src/shared/protocol';
import { REPAIR_CANDIDATE, RUN_CANDIDATE, type ScoreFunctionResult } from '../../../src/shared/scoring-protocol';
import { readPackageJson, visibleActions } from '../../helpers/menus';
import { clickLens, EXTENSION_ID, openInEditor, REPO_ROOT, screenshot, startChatServer, userInput, useChatServer, waitFor, workspaceRoot } from './helpers';

const FILE = 'item.go';
const STATUS_LINE = 7;
/** Where Go's convention (and the sandbox's run) puts a test of Status in item.go. */
const ACCEPTED = 'item_status_test.go';

/** Compiles and asserts a wrong value: Status of an empty shelf is "out-of-stock", not "ok". */
const WRONG_VALUE = `package inventory

import "testing"

func TestStatusWrongValue(t *testing.T) {
	it := Item{SKU: "bk-1", Quantity: 0}
	if got := it.Status(1); got != "ok" {
		t.Errorf("got %q, want %q", got, "ok")
	}
}
`;

/** Calls a function the package does not have. */
const NOT_COMPILING = `package inventory

import "testing"

func TestStatusNoSuchHelper(t *testing.T) {
	if noSuchHelper(Item{}) != "ok" {
		t.Fatal("unreachable")
	}
}
`;

/** Fails with a message long enough to fill the peek's width (the button is drawn at its bottom right). */
const LONG_FAILURE = `package inventory

import "testing"

func TestStatusLongStory(t *testing.T) {
	it := Item{SKU: "bk-1", Quantity: 0}
	if got := it.Status(1); got != "ok" {
		t.Errorf("an empty shelf of SKU %s was expected to read %q on the first day, as the store's old dashboard showed it before the reorder rules changed and every empty shelf turned red, but Status said %q instead, which the team that owns the dashboard still disputes", it.SKU, "ok", got)
	}
}
`;

/** A model's repair of WRONG_VALUE, as an OpenAI-compatible server answers it. */
const REPAIRED = [
  '```go',
  'package inventory',
  '',
  'import "testing"',
  '',
  'func TestStatusRepaired(t *testing.T) {',
  '\tit := Item{SKU: "bk-1", Quantity: 0}',
  '\tif got := it.Status(1); got != "out-of-stock" {',
  '\t\tt.Errorf("got %q, want %q", got, "out-of-stock")',
  '\t}',
  '}',
  '```',
].join('\n');

const children = (item: vscode.TestItem): vscode.TestItem[] => {
  const out: vscode.TestItem[] = [];
  item.children.forEach((i) => out.push(i));
  return out;
};

describe('Keep a generated test', () => {
  let testing: TestingApi;
  let engine: Engine;
  let editor: vscode.TextEditor;
  let generated: ScoreFunctionResult;
  let passing: vscode.TestItem;
  let wrongItem: vscode.TestItem;
  const accepted = (): string => path.join(workspaceRoot(), ACCEPTED);
  const lensesOnStatus = async (): Promise<vscode.CodeLens[]> =>
    ((await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', editor.document.uri)) ?? []).filter((l) => l.range.start.line === STATUS_LINE - 1);
  const runCandidate = (testCode: string): Promise<ScoreFunctionResult> =>
    engine.request(RUN_CANDIDATE, {
      uri: editor.document.uri.toString(),
      startLine: STATUS_LINE,
      testCode,
      settings: { ...DEFAULT_ENGINE_SETTINGS, provider: 'baseline', executor: 'local' },
    });
  const closeAll = () => vscode.commands.executeCommand('workbench.action.closeAllEditors');

  before(async function () {
    // The first scoring of the session builds the package (slow on a busy machine); mutants are not what this tests.
    this.timeout(480_000);
    await vscode.workspace.getConfiguration('xrepotest').update('mutation.enabled', false, vscode.ConfigurationTarget.Global);
    const ext = vscode.extensions.getExtension<Engine & { testing: TestingApi }>(EXTENSION_ID);
    assert.ok(ext);
    editor = await openInEditor(FILE);
    const api = await ext.activate();
    testing = api.testing;
    engine = api;
    fs.rmSync(accepted(), { force: true });
    const generate = await waitFor('the Generate lens on Status', 30_000, async () => (await lensesOnStatus()).find((l) => l.command?.title === 'Generate scored tests'));
    generated = (await vscode.commands.executeCommand(generate.command!.command, ...(generate.command!.arguments ?? []))) as ScoreFunctionResult;
    assert.ok(generated, 'the lens command returned a score');
    assert.strictEqual(generated.passed, true, `the baseline's test of Status passes: ${generated.summary} ${generated.reason ?? ''}`);
    const focal = testing.controller.items.get(`${editor.document.uri.toString()}#${STATUS_LINE}`)!;
    passing = children(focal).at(-1)!;
    assert.strictEqual(testing.resultOf(passing)?.testCode, generated.testCode, 'the newest candidate is the scored test');
  });

  afterEach(() => fs.rmSync(accepted(), { force: true }));
  after(() => vscode.workspace.getConfiguration('xrepotest').update('mutation.enabled', undefined, vscode.ConfigurationTarget.Global));

  it('the score lens of a passing test has "Accept test" beside it (screenshot)', async function () {
    this.timeout(60_000);
    await vscode.commands.executeCommand('notifications.clearAll');
    const lenses = await waitFor('the Accept test lens', 20_000, async () => {
      const found = await lensesOnStatus();
      return found.some((l) => l.command?.title === 'Accept test') ? found : undefined;
    });
    const titles = lenses.map((l) => l.command?.title ?? '');
    const scoreAt = titles.findIndex((t) => t === generated.lensSummary);
    assert.ok(scoreAt >= 0, `the score lens is there: ${titles.join(' | ')}`);
    assert.strictEqual(titles[scoreAt + 1], 'Accept test', 'right after the score');
    // As a new user sees it (issue 30): 1400 px wide, the side bar open; the actions must not run off the editor's right edge.
    await vscode.commands.executeCommand('workbench.view.explorer');
    editor = await vscode.window.showTextDocument(editor.document, { preview: false });
    editor.revealRange(new vscode.Range(STATUS_LINE - 1, 0, STATUS_LINE - 1, 0), vscode.TextEditorRevealType.AtTop);
    const receipt = await screenshot({ name: 'keep-accept-lens', waitForText: 'Accept test' });
    assert.strictEqual(receipt.textFound, true, 'the workbench shows the Accept test lens');
    assert.strictEqual(receipt.fitsEditor, true, `"Accept test" runs past the editor's right edge: ${titles.join(' | ')}`);
    const last = titles[titles.length - 1];
    const lastShot = await screenshot({ name: 'keep-lens-last-action', waitForText: last });
    assert.strictEqual(lastShot.fitsEditor, true, `the lens's last action "${last}" runs past the editor's right edge`);
  });

  it('"Accept test" on the lens writes the scored test as item_status_test.go next to item.go', async function () {
    this.timeout(60_000);
    const lens = (await lensesOnStatus()).find((l) => l.command?.title === 'Accept test')!;
    const written = (await vscode.commands.executeCommand(lens.command!.command, ...(lens.command!.arguments ?? []))) as string;
    assert.strictEqual(written, accepted(), 'named after the focal file and function, next to it, as Go tests are');
    assert.strictEqual(fs.readFileSync(written, 'utf8'), generated.testCode);
    assert.strictEqual(vscode.window.activeTextEditor?.document.uri.fsPath, written, 'the accepted test is opened');
    await closeAll();
  });

  it('after "Accept test" a notification names the new file with Undo and Reveal; its Undo removes the file, and Ctrl+Z in the new file undoes the acceptance', async function () {
    this.timeout(120_000);
    const acceptLens = async () => waitFor('the Accept test lens', 20_000, async () => (await lensesOnStatus()).find((l) => l.command?.title === 'Accept test'));
    const notice = `Status's test is now in ${ACCEPTED}`;
    await vscode.commands.executeCommand('notifications.clearAll');
    // The notification's Undo, clicked in the workbench as a user clicks it.
    const written = await clickLens<string>(await acceptLens());
    assert.strictEqual(written, accepted());
    assert.ok(fs.existsSync(written));
    const shown = await screenshot({ name: 'keep-accept-notification', waitForText: notice });
    assert.strictEqual(shown.textFound, true, `a notification says "${notice}"`);
    const undo = await userInput({ name: 'keep-accept-notification-undo', steps: [{ waitForText: notice, click: '.notifications-toasts .notification-list-item:has-text("is now in item_status_test.go") .monaco-button:has-text("Undo")' }] });
    assert.strictEqual(undo.error, undefined, undo.error);
    await waitFor(`${ACCEPTED} removed by the notification's Undo`, 15_000, () => (fs.existsSync(written) ? undefined : true));
    await closeAll();

    // Reveal: the notification's other button shows the new file in the Explorer.
    await vscode.commands.executeCommand('notifications.clearAll');
    await clickLens<string>(await acceptLens());
    const reveal = await userInput({ name: 'keep-accept-notification-reveal', steps: [{ waitForText: notice, click: '.notifications-toasts .notification-list-item:has-text("is now in item_status_test.go") .monaco-button:has-text("Reveal")' }] });
    assert.strictEqual(reveal.error, undefined, reveal.error);
    const revealed = await screenshot({ name: 'keep-accept-revealed', waitForText: ACCEPTED });
    assert.strictEqual(revealed.textFound, true);

    // Ctrl+Z pressed in the new file's editor (the lens's Accept opened it) takes the acceptance back.
    assert.strictEqual(vscode.window.activeTextEditor?.document.uri.fsPath, written, 'the accepted test is the active editor');
    await vscode.window.showTextDocument(vscode.window.activeTextEditor!.document, { preview: false });
    await vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');
    const pressed = await userInput({ name: 'keep-accept-ctrl-z', steps: [{ click: '.editor-group-container.active .monaco-editor .view-lines' }, { press: 'Control+z' }] });
    assert.strictEqual(pressed.error, undefined, pressed.error);
    await waitFor(`${ACCEPTED} removed by Ctrl+Z`, 15_000, () => (fs.existsSync(written) ? undefined : true));
    await closeAll();
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  it('accepting a Testing view item creates the file as a workspace edit that Undo takes back', async function () {
    this.timeout(60_000);
    // As the item's context menu calls it (testing/item/context passes the item).
    const written = (await vscode.commands.executeCommand('xrepotest.acceptIntoProject', passing)) as string;
    assert.strictEqual(written, accepted());
    assert.strictEqual(fs.readFileSync(written, 'utf8'), generated.testCode);
    const doc = vscode.window.activeTextEditor?.document;
    assert.strictEqual(doc?.uri.fsPath, written);
    assert.strictEqual(doc.isDirty, false, 'saved');
    // The editor's Undo, with the new test's editor focused, as a user presses Ctrl+Z.
    await vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');
    await vscode.commands.executeCommand('undo');
    await waitFor(`${ACCEPTED} removed by Undo`, 10_000, () => (fs.existsSync(written) ? undefined : true));
    await closeAll();
  });

  it('the Testing view\'s context menu of a candidate (and of its test cases) offers Accept first', () => {
    // package.json's testing/item/context in VS Code's menu order, with the context keys the Testing
    // view sets for this item (the runner types but does not click, so the menu is not opened here).
    const pkg = readPackageJson(REPO_ROOT);
    const menuOf = (item: vscode.TestItem, canRepairNow: boolean) =>
      visibleActions(pkg, 'testing/item/context', { controllerId: testing.controller.id, testId: item.id, testResultState: 'passed', 'xrepotest.canRepair': canRepairNow });
    // A passing test can be improved (more tests for what it misses); it is not offered Repair.
    assert.deepStrictEqual(menuOf(passing, false), ['xrepotest.acceptIntoProject', 'xrepotest.openEditable', 'xrepotest.regenerate', 'xrepotest.improve', 'xrepotest.openTranscript']);
    assert.deepStrictEqual(menuOf(children(passing)[0], true), ['xrepotest.acceptIntoProject', 'xrepotest.openEditable', 'xrepotest.regenerate', 'xrepotest.improve', 'xrepotest.openTranscript'], 'a passing test is not offered Repair');
    assert.deepStrictEqual(menuOf(passing.parent!, false), [], 'the function itself is no test to keep');
  });

  it('from the palette with no argument it lists this session\'s tests (function, score, author) and accepts the one picked', async function () {
    this.timeout(60_000);
    const pending = vscode.commands.executeCommand('xrepotest.acceptIntoProject') as Thenable<string | undefined>;
    // The newest passing test is listed first; its detail says who wrote it.
    await vscode.commands.executeCommand('notifications.clearAll');
    const shown = await screenshot({ name: 'keep-palette-pick', waitForText: 'written by the offline baseline' });
    assert.strictEqual(shown.textFound, true, 'the quick pick says who wrote each test');
    const typed = await userInput({ name: 'keep-palette-enter', steps: [{ waitForText: 'generated tests of this session', press: 'Enter' }] });
    assert.strictEqual(typed.error, undefined, typed.error);
    const written = await pending;
    assert.strictEqual(written, accepted());
    assert.strictEqual(fs.readFileSync(written, 'utf8'), generated.testCode);
    await closeAll();
  });

  it('"Open as editable copy" opens the test in an untitled Go editor, and Accept writes the edited text', async function () {
    this.timeout(60_000);
    const copy = (await vscode.commands.executeCommand('xrepotest.openEditable', passing)) as vscode.TextEditor;
    assert.ok(copy, 'an editor');
    assert.strictEqual(copy.document.uri.scheme, 'untitled');
    assert.strictEqual(copy.document.languageId, 'go');
    assert.strictEqual(copy.document.getText(), generated.testCode);
    const note = '// Kept after review.\n';
    const pkgLine = copy.document.getText().indexOf('\n') + 1;
    assert.ok(await copy.edit((e) => e.insert(copy.document.positionAt(pkgLine), note)));
    await screenshot({ name: 'keep-editable-copy', waitForText: 'Kept after review' });
    // The palette's Accept with the copy active takes the copy, as the editor's title-bar button does.
    const written = (await vscode.commands.executeCommand('xrepotest.acceptIntoProject')) as string;
    assert.strictEqual(written, accepted());
    const text = fs.readFileSync(written, 'utf8');
    assert.ok(text.includes(note), 'the edited text was written');
    assert.strictEqual(text.replace(note, ''), generated.testCode);
    assert.ok(!vscode.workspace.textDocuments.some((d) => d.uri.toString() === copy.document.uri.toString() && !d.isClosed && d.isDirty), 'the copy was closed without a save prompt');
    await closeAll();
  });

  it('on a failure the peek\'s button is Regenerate with the baseline (Repair needs a model), never Accept; on a compile error too', async function () {
    this.timeout(180_000);
    const pkg = readPackageJson(REPO_ROOT);
    const provider = vscode.workspace.getConfiguration('xrepotest').get<string>('provider', 'baseline');
    assert.strictEqual(provider, 'baseline');
    const buttonFor = (m: vscode.TestMessage, repairable: boolean) => visibleActions(pkg, 'testing/message/content', { testMessage: m.contextValue, 'xrepotest.canRepair': repairable })[0];

    const wrong = await runCandidate(WRONG_VALUE);
    assert.strictEqual(wrong.compiled, true, wrong.compileError?.message);
    wrongItem = testing.record(wrong);
    const wrongRun = testing.runs.at(-1)!;
    const failed = wrongRun.states.get(wrongItem.id)!;
    assert.strictEqual(failed.state, 'failed');
    assert.strictEqual(failed.messages[0].contextValue, messageContext('failed'));
    assert.strictEqual(buttonFor(failed.messages[0], canRepair(provider)), 'xrepotest.regenerate');
    assert.strictEqual(buttonFor(failed.messages[0], canRepair('anthropic')), 'xrepotest.repairWithModel', 'with a model, Repair');

    // The peek on the failing assertion (the test case's message points into the candidate's code), with its button.
    const located = [...wrongRun.states.values()].flatMap((s) => s.messages).find((m) => m.location);
    assert.ok(located, 'the failing case\'s message has a location');
    assert.strictEqual(buttonFor(located, false), 'xrepotest.regenerate');
    await vscode.commands.executeCommand('notifications.clearAll');
    const focused = await vscode.window.showTextDocument(located.location!.uri, { preview: false });
    focused.selection = new vscode.Selection(0, 0, 0, 0);
    await vscode.commands.executeCommand('testing.openOutputPeek');
    const peek = await screenshot({ name: 'keep-peek-regenerate', waitForText: 'Regenerate' });
    assert.strictEqual(peek.textFound, true, 'the peek shows Regenerate as its button');
    await closeAll();

    const broken = testing.record(await runCandidate(NOT_COMPILING));
    const errored = testing.runs.at(-1)!.states.get(broken.id)!;
    assert.strictEqual(errored.state, 'errored');
    for (const repairable of [false, true]) assert.strictEqual(buttonFor(errored.messages[0], repairable), 'xrepotest.regenerate', `a test that does not compile (repairable: ${repairable})`);
    const menu = visibleActions(pkg, 'testing/message/context', { testMessage: errored.messages[0].contextValue, 'xrepotest.canRepair': false });
    assert.ok(menu.includes('xrepotest.acceptIntoProject'), 'Accept stays in the message\'s context menu');

    await closeAll();
  });

  it('the peek\'s button on a failure sits below the message\'s text, never over it (screenshot)', async function () {
    this.timeout(180_000);
    const failed = await runCandidate(LONG_FAILURE);
    assert.strictEqual(failed.compiled, true, failed.compileError?.message);
    assert.strictEqual(failed.passed, false);
    // Only this failure in the Testing results: Peek Output shows the newest failed result, and the
    // last test's failure (a short message) must not be the one measured.
    await vscode.commands.executeCommand('testing.clearTestResults');
    testing.record(failed);
    const run = testing.runs.at(-1)!;
    const messages = [...run.states.values()].flatMap((s) => s.messages).filter((m) => m.contextValue);
    assert.ok(messages.length >= 2, 'the candidate\'s message and its failing case\'s');
    const located = messages.find((m) => m.location)!;
    assert.ok(located, 'the failing case\'s message has a location');
    await vscode.commands.executeCommand('notifications.clearAll');
    // The cursor on the failing line, as a user puts it there, then Peek Output (it peeks the failure at
    // the cursor). The workbench learns of the run a moment after the extension ended it; until then
    // Peek Output falls back to the last message peeked (the previous test's), so it is tried again.
    let shot: Awaited<ReturnType<typeof screenshot>> | undefined;
    for (let attempt = 1; attempt <= 3 && !shot?.textFound; attempt++) {
      const focused = await vscode.window.showTextDocument(located.location!.uri, { preview: false });
      const at = located.location!.range.start;
      focused.selection = new vscode.Selection(at, at);
      await vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');
      await vscode.commands.executeCommand('testing.openOutputPeek');
      shot = await screenshot({ name: 'keep-peek-button-clear', waitForText: 'an empty shelf of SKU bk-1', peekActions: true });
    }
    assert.ok(shot);
    assert.strictEqual(shot.textFound, true, 'the peek shows the long failure');
    console.log(`      the peek measured: ${JSON.stringify(shot.peek)}`);
    assert.ok(shot.peek, 'the peek\'s message and its button were measured');
    assert.strictEqual(shot.peek.button, 'Regenerate');
    assert.match(shot.peek.text, /an empty shelf of SKU bk-1/, 'the long message was measured');
    assert.deepStrictEqual(shot.peek.covered, [], 'no line of the message lies under the button');
    assert.strictEqual(shot.peek.buttonInside, true, 'the button is whole, inside the message\'s area');
    // What makes it so: every message that gets a button ends with room for it, empty lines after the text.
    for (const m of messages) assert.match(String(m.message), /\S\n\n\n$/, `room for the button after: ${JSON.stringify(String(m.message).slice(-80))}`);
    await closeAll();
  });

  it('"Repair with model" on the baseline says why instead of returning the same test', async function () {
    this.timeout(60_000);
    const focal = testing.controller.items.get(`${editor.document.uri.toString()}#${STATUS_LINE}`)!;
    const before = children(focal).length;
    const r = await vscode.commands.executeCommand('xrepotest.repairWithModel', { test: wrongItem });
    assert.strictEqual(r, undefined, 'no repair');
    assert.strictEqual(children(focal).length, before, 'no new candidate');
    const shown = await screenshot({ name: 'keep-repair-baseline-refused', waitForText: 'the offline baseline cannot repair a test' });
    assert.strictEqual(shown.textFound, true, 'the notification says why');
    const w = testing.resultOf(wrongItem)!;
    await assert.rejects(
      engine.request(REPAIR_CANDIDATE, { uri: w.uri, startLine: w.startLine, testCode: w.testCode, sample: w.sample, round: w.round, settings: { ...DEFAULT_ENGINE_SETTINGS, provider: 'baseline' } }),
      /the offline baseline cannot repair a test; choose a model in xrepotest\.provider/,
    );
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  it('"Repair with model" with a model sends the failed test and its log, and adds the repair as a new candidate', async function () {
    this.timeout(180_000);
    const server = await startChatServer(() => REPAIRED);
    const received = server.received;
    const settings = await useChatServer(server, 'local-repairer');
    try {
      const focal = testing.controller.items.get(`${editor.document.uri.toString()}#${STATUS_LINE}`)!;
      const before = children(focal).length;
      const r = (await vscode.commands.executeCommand('xrepotest.repairWithModel', { test: wrongItem })) as ScoreFunctionResult;
      assert.ok(r, 'the repair returned a score');
      assert.strictEqual(received.length, 1, 'one call reached the model');
      assert.match(received[0], /TestStatusWrongValue/, 'the repair prompt holds the failed test');
      assert.match(received[0], /out-of-stock/, 'and its error log');
      assert.strictEqual(r.round, 1);
      assert.strictEqual(r.passed, true, r.reason ?? r.summary);
      assert.match(r.testCode, /TestStatusRepaired/);
      assert.strictEqual(children(focal).length, before + 1);
      assert.match(String(children(focal).at(-1)!.label), /^local-repairer test \d+ \(repair 1\)$/);
    } finally {
      await settings.undo();
      await server.close();
    }
  });
  it('a failing score\'s lens offers Repair and Regenerate; Repair on the lens runs a repair round, and the lens then shows the repaired score', async function () {
    this.timeout(300_000);
    // A model (the OpenAI wire format, served here): its first test asserts a wrong value, its repair passes.
    const server = await startChatServer((call) => (call === 1 ? ['```go', WRONG_VALUE.trimEnd(), '```'].join('\n') : REPAIRED));
    const settings = await useChatServer(server, 'local-lens-repairer');
    try {
      await vscode.commands.executeCommand('notifications.clearAll');
      const generate = await waitFor('the Generate lens on Status', 30_000, async () => (await lensesOnStatus()).find((l) => l.command?.title === 'Generate scored tests'));
      const failing = await clickLens<ScoreFunctionResult>(generate);
      assert.ok(failing, 'the lens command returned a score');
      assert.strictEqual(failing.compiled, true, failing.compileError?.message);
      assert.strictEqual(failing.passed, false, `the model's first test fails: ${failing.summary}`);
      assert.match(failing.testCode, /TestStatusWrongValue/);
      assert.strictEqual(server.received.length, 1);

      const titles = (await lensesOnStatus()).map((l) => l.command?.title ?? '');
      const at = titles.indexOf(failing.lensSummary!);
      assert.ok(at >= 0, `the failing score is on the lens: ${titles.join(' | ')}`);
      assert.match(failing.lensSummary!, /^✗ 0\/1 · /);
      assert.deepStrictEqual(titles.slice(at + 1), ['Repair', 'Regenerate', 'Generate scored tests'], 'Repair and Regenerate beside the failing score, no Accept');
      editor = await vscode.window.showTextDocument(editor.document, { preview: false });
      editor.revealRange(new vscode.Range(STATUS_LINE - 1, 0, STATUS_LINE - 1, 0), vscode.TextEditorRevealType.AtTop);
      const shot = await screenshot({ name: 'keep-failing-lens-repair', waitForText: 'Regenerate' });
      assert.strictEqual(shot.textFound, true, 'the workbench shows the failing lens');
      assert.strictEqual(shot.fitsEditor, true, 'Regenerate runs past the editor\'s right edge');

      const repair = (await lensesOnStatus()).find((l) => l.command?.title === 'Repair')!;
      const repaired = await clickLens<ScoreFunctionResult>(repair);
      assert.ok(repaired, 'the Repair lens returned a score');
      assert.strictEqual(server.received.length, 2, 'one more call: the repair');
      assert.match(server.received[1], /TestStatusWrongValue/, 'the repair prompt holds the failing test');
      assert.match(server.received[1], /out-of-stock/, 'and why it failed');
      assert.strictEqual(repaired.round, failing.round + 1, 'a repair round of the same sample');
      assert.strictEqual(repaired.sample, failing.sample);
      assert.strictEqual(repaired.passed, true, repaired.reason ?? repaired.summary);
      assert.match(repaired.testCode, /TestStatusRepaired/);
      const after = await waitFor('the repaired score on the lens', 20_000, async () => {
        const t = (await lensesOnStatus()).map((l) => l.command?.title ?? '');
        return t.includes(repaired.lensSummary!) ? t : undefined;
      });
      assert.match(repaired.lensSummary!, /^✓ 1\/1 · /);
      assert.ok(!after.includes(failing.lensSummary!), 'the failing score is gone from the lens');
      assert.strictEqual(after[after.indexOf(repaired.lensSummary!) + 1], 'Accept test', 'a passing test can now be accepted');
      assert.ok(!after.includes('Repair'), 'no Repair on a passing test');
      const focal = testing.controller.items.get(`${editor.document.uri.toString()}#${STATUS_LINE}`)!;
      assert.match(String(children(focal).at(-1)!.label), /^local-lens-repairer test \d+ \(repair 1\)$/, 'the repair is the newest candidate in the Testing view');
      await screenshot({ name: 'keep-repaired-lens', waitForText: 'Accept test' });
    } finally {
      await settings.undo();
      await server.close();
    }
  });
});
