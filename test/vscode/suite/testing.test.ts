import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Engine } from '../../../src/extension/engine';
import type { TestingApi, TestingRunRecord } from '../../../src/extension/testing';
import { DEFAULT_ENGINE_SETTINGS } from '../../../src/shared/protocol';
import { RUN_CANDIDATE, type ScoreFunctionResult } from '../../../src/shared/scoring-protocol';
import { EXTENSION_ID, openInEditor, screenshot, waitFor, workspaceRoot } from './helpers';

const FILE = 'item.go';
const STATUS_LINE = 7;

/** A test that compiles and asserts a wrong value: Status of an empty shelf is not "ok". */
const WRONG_VALUE = `package inventory

import "testing"

func TestStatusWrongValue(t *testing.T) {
	it := Item{SKU: "bk-1", Quantity: 0}
	got := it.Status(1)
	if got != "ok" {
		t.Errorf("got %q, want %q", got, "ok")
	}
}
`;
const WRONG_VALUE_ASSERT_LINE = 9;

/** A test calling a function the package does not have. */
const NOT_COMPILING = `package inventory

import "testing"

func TestStatusNoSuchHelper(t *testing.T) {
	if noSuchHelper(Item{}) != "ok" {
		t.Fatal("unreachable")
	}
}
`;
const NOT_COMPILING_LINE = 6;

function children(item: vscode.TestItem | vscode.TestItemCollection): vscode.TestItem[] {
  const out: vscode.TestItem[] = [];
  ('children' in item ? item.children : item).forEach((i) => out.push(i));
  return out;
}

function stateOf(run: TestingRunRecord, item: vscode.TestItem): { state: string; messages: vscode.TestMessage[] } {
  const s = run.states.get(item.id);
  assert.ok(s, `the run reported ${item.id}; it reported ${[...run.states.keys()].join(', ')}`);
  return s;
}

/** Every file of the workspace, to see that nothing was written into it. */
function listFiles(dir: string, rel = ''): string[] {
  return fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const p = path.posix.join(rel, e.name);
    return e.isDirectory() ? listFiles(dir, p) : [p];
  });
}

describe('Testing view: generated tests, coverage and actions (baseline provider, local executor)', () => {
  let testing: TestingApi;
  let engine: Engine;
  let editor: vscode.TextEditor;
  let generated: ScoreFunctionResult;
  let baselineItem: vscode.TestItem;
  let filesBefore: string[];
  let wrongItem: vscode.TestItem;
  let wrongMessage: vscode.TestMessage;

  const runCandidate = (testCode: string): Promise<ScoreFunctionResult> =>
    engine.request(RUN_CANDIDATE, {
      uri: editor.document.uri.toString(),
      startLine: STATUS_LINE,
      testCode,
      coverage: true,
      settings: { ...DEFAULT_ENGINE_SETTINGS, provider: 'baseline', executor: 'local' },
    });

  before(async function () {
    this.timeout(240_000);
    const ext = vscode.extensions.getExtension<Engine & { testing: TestingApi }>(EXTENSION_ID);
    assert.ok(ext);
    filesBefore = listFiles(workspaceRoot());
    editor = await openInEditor(FILE);
    const api = await ext.activate();
    testing = api.testing;
    engine = api;
    const uri = editor.document.uri;
    const generate = await waitFor('the Generate lens on Status', 30_000, async () => {
      const found = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri)) ?? [];
      return found.find((l) => l.command?.title === 'Generate scored tests' && l.range.start.line === STATUS_LINE - 1);
    });
    generated = (await vscode.commands.executeCommand(generate.command!.command, ...(generate.command!.arguments ?? []))) as ScoreFunctionResult;
    assert.ok(generated, 'the lens command returned a score');
  });

  it('shows the generation as focal function -> candidate -> test cases, with the runner\'s states', () => {
    const focal = testing.controller.items.get(`${editor.document.uri.toString()}#${STATUS_LINE}`);
    assert.ok(focal, `a focal item for Status; items: ${children(testing.controller.items).map((i) => i.id).join(', ')}`);
    assert.strictEqual(focal.label, 'Status');
    assert.strictEqual(focal.uri?.toString(), editor.document.uri.toString());
    assert.strictEqual(focal.range?.start.line, STATUS_LINE - 1);
    assert.strictEqual(focal.range?.end.line, generated.endLine - 1);

    const candidates = children(focal);
    baselineItem = candidates.find((c) => testing.resultOf(c)?.testCode === generated.testCode)!;
    assert.ok(baselineItem, 'a candidate holds the generated test');
    assert.match(String(baselineItem.label), /^offline baseline test \d+$/);

    const cases = children(baselineItem);
    assert.ok(generated.cases.length > 0, 'the runner reported test cases');
    assert.deepStrictEqual(cases.map((c) => c.label).sort(), generated.cases.map((c) => c.name).sort());
    // The generation's run: each case in the runner's state, the candidate passed exactly when the score did.
    const run = testing.runs.find((r) => r.states.has(baselineItem.id));
    assert.ok(run, 'the generation recorded a run');
    for (const c of generated.cases) assert.strictEqual(stateOf(run, cases.find((i) => i.label === c.name)!).state, c.status, c.name);
    assert.strictEqual(stateOf(run, baselineItem).state, generated.passed ? 'passed' : 'failed');
    // A top-level case points at its declaration in the candidate's code.
    const top = cases.find((c) => !String(c.label).includes('/'));
    if (top?.range) assert.match(generated.testCode.split('\n')[top.range.start.line], new RegExp(`func ${top.label}\\(`));
  });

  it('the Coverage profile reports item.go: a declaration for Status and the score\'s covered and executable lines', async function () {
    this.timeout(180_000);
    const run = await testing.run('coverage', [baselineItem]);
    const file = run.coverage.find((c) => c.fileCoverage.uri.fsPath === path.join(workspaceRoot(), FILE));
    assert.ok(file, `coverage for ${FILE}; files: ${run.coverage.map((c) => c.fileCoverage.uri.fsPath).join(', ')}`);
    const again = testing.resultOf(baselineItem)!;
    assert.ok(again.executableLines.length > 0, 'the run measured Status');

    const declarations = file.details.filter((d): d is vscode.DeclarationCoverage => d instanceof vscode.DeclarationCoverage);
    assert.deepStrictEqual(declarations.map((d) => d.name), ['Status (focal function)']);
    const range = declarations[0].location as vscode.Range;
    assert.strictEqual(range.start.line, STATUS_LINE - 1);
    assert.strictEqual(declarations[0].executed, again.coveredLines.length > 0);

    const statements = file.details.filter((d): d is vscode.StatementCoverage => d instanceof vscode.StatementCoverage);
    const lineOf = (s: vscode.StatementCoverage) => (s.location as vscode.Range).start.line + 1;
    assert.deepStrictEqual(statements.map(lineOf), again.executableLines);
    assert.deepStrictEqual(statements.filter((s) => s.executed).map(lineOf), again.coveredLines);
    assert.strictEqual(file.fileCoverage.statementCoverage.covered, again.coveredLines.length);
    assert.strictEqual(file.fileCoverage.statementCoverage.total, again.executableLines.length);
    assert.deepStrictEqual(file.fileCoverage.includesTests?.map((t) => t.id), [baselineItem.id], 'per-candidate coverage');
    // The same statements the score counted: the re-run scores the same test the same way.
    assert.deepStrictEqual(again.coveredLines, generated.coveredLines);
  });

  it('a test asserting a wrong value fails with the expected and actual values go test printed', async function () {
    this.timeout(180_000);
    const r = await runCandidate(WRONG_VALUE);
    assert.strictEqual(r.compiled, true, r.compileError?.message);
    assert.strictEqual(r.passed, false);
    wrongItem = testing.record(r);
    let run = testing.runs[testing.runs.length - 1];
    // And once more through the Run profile, as the Testing view's button runs it.
    run = await testing.run('run', [wrongItem]);
    assert.strictEqual(stateOf(run, wrongItem).state, 'failed');
    const testCase = children(wrongItem).find((c) => c.label === 'TestStatusWrongValue');
    assert.ok(testCase, 'the case is under the candidate');
    const { state, messages } = stateOf(run, testCase);
    assert.strictEqual(state, 'failed');
    const [m] = messages;
    assert.strictEqual(m.expectedOutput, '"ok"');
    // Status reports an empty shelf as out of stock (item.go).
    assert.strictEqual(m.actualOutput, '"out-of-stock"');
    assert.strictEqual(m.contextValue, 'xrepotest.failed');
    assert.strictEqual(m.location?.uri.toString(), wrongItem.uri?.toString(), 'located in the candidate\'s code');
    assert.strictEqual(m.location?.range.start.line, WRONG_VALUE_ASSERT_LINE - 1);
    wrongMessage = m;
  });

  it('a test that does not compile is an error with the compiler\'s message at the line it names', async function () {
    this.timeout(180_000);
    const r = await runCandidate(NOT_COMPILING);
    assert.strictEqual(r.compiled, false);
    const item = testing.record(r);
    const { state, messages } = stateOf(testing.runs[testing.runs.length - 1], item);
    assert.strictEqual(state, 'errored');
    const [m] = messages;
    assert.match(String(m.message), /undefined: noSuchHelper/);
    assert.doesNotMatch(String(m.message), /xrt-sandbox-/, 'sandbox paths are mapped back to the workspace');
    assert.strictEqual(m.contextValue, 'xrepotest.errored');
    assert.strictEqual(m.location?.range.start.line, NOT_COMPILING_LINE - 1);
  });

  it('"Repair with model" on the baseline adds no candidate: the baseline cannot repair (a model\'s repair: keep.test.ts)', async function () {
    this.timeout(180_000);
    const focal = testing.controller.items.get(`${editor.document.uri.toString()}#${STATUS_LINE}`)!;
    const before = children(focal).length;
    // As the failure message's menu calls it.
    const r = await vscode.commands.executeCommand('xrepotest.repairWithModel', { test: wrongItem, message: wrongMessage });
    assert.strictEqual(r, undefined, 'refused');
    assert.strictEqual(children(focal).length, before);
  });

  it('"Regenerate" adds a new sample of the same function as a candidate', async function () {
    this.timeout(180_000);
    const focal = testing.controller.items.get(`${editor.document.uri.toString()}#${STATUS_LINE}`)!;
    const samples = children(focal).map((c) => testing.resultOf(c)!.sample);
    const r = (await vscode.commands.executeCommand('xrepotest.regenerate', { test: baselineItem })) as ScoreFunctionResult;
    assert.ok(r, 'the regeneration returned a score');
    assert.strictEqual(r.round, 0);
    assert.strictEqual(r.sample, Math.max(...samples) + 1, 'a sample not generated before');
    const added = children(focal).at(-1)!;
    assert.strictEqual(testing.resultOf(added)?.sample, r.sample);
    assert.match(String(added.label), /^offline baseline test \d+$/);
  });

  it('"Accept into project" writes the test where Go puts tests, and nothing was written before', async function () {
    this.timeout(60_000);
    assert.deepStrictEqual(listFiles(workspaceRoot()), filesBefore, 'generating and running wrote nothing into the workspace');
    const written = (await vscode.commands.executeCommand('xrepotest.acceptIntoProject', { test: baselineItem })) as string;
    assert.ok(written, 'the command wrote a file');
    try {
      assert.strictEqual(path.dirname(written), path.dirname(path.join(workspaceRoot(), FILE)), 'next to the package\'s sources');
      assert.strictEqual(path.basename(written), 'item_status_test.go', 'named after the focal file and function, as Go tests are');
      assert.strictEqual(fs.readFileSync(written, 'utf8'), testing.resultOf(baselineItem)!.testCode);
      assert.strictEqual(vscode.window.activeTextEditor?.document.uri.fsPath, written, 'the accepted test is opened');
      assert.strictEqual(path.dirname(testing.resultOf(baselineItem)!.placement!.path), path.dirname(written), 'the folder the sandbox used');
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
      fs.rmSync(written, { force: true });
    }
  });

  it('shows Status with its score lens and the coverage in the gutter (screenshot)', async function () {
    this.timeout(180_000);
    const run = await testing.run('coverage', [baselineItem]);
    const { fileCoverage } = run.coverage[0];
    editor = await vscode.window.showTextDocument(editor.document, { preview: false });
    editor.revealRange(new vscode.Range(STATUS_LINE - 1, 0, STATUS_LINE - 1, 0), vscode.TextEditorRevealType.AtTop);
    editor.selection = new vscode.Selection(STATUS_LINE - 1, 0, STATUS_LINE - 1, 0);
    const receipt = await screenshot({ name: 'testing-coverage-status', waitForText: generated.lensSummary });
    assert.strictEqual(receipt.textFound, true, `the workbench shows "${generated.lensSummary}"`);
    // The explorer's coverage figure appears only once the workbench shows the run's coverage (the
    // gutter too; look at the picture): statements and the declaration together, as VS Code counts.
    const counts = [fileCoverage.statementCoverage, fileCoverage.declarationCoverage!];
    const percent = `${Math.round((100 * counts.reduce((n, c) => n + c.covered, 0)) / counts.reduce((n, c) => n + c.total, 0))}%`;
    const shown = await screenshot({ name: 'testing-coverage-explorer', waitForText: percent });
    assert.strictEqual(shown.textFound, true, `the explorer shows ${FILE} covered ${percent}`);
  });

  it('lists the candidates in the Testing view (screenshot)', async function () {
    this.timeout(60_000);
    await vscode.commands.executeCommand('workbench.view.testing.focus');
    // Revealing a test case expands its focal function and candidate.
    await vscode.commands.executeCommand('vscode.revealTestInExplorer', children(baselineItem)[0]);
    const receipt = await screenshot({ name: 'testing-view', waitForText: String(baselineItem.label) });
    assert.strictEqual(receipt.textFound, true, `the Testing view shows ${baselineItem.label}`);
    await vscode.commands.executeCommand('workbench.view.explorer');
  });
});

