import * as assert from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Engine } from '../../../src/extension/engine';
import type { TestingApi } from '../../../src/extension/testing';
import { DEFAULT_ENGINE_SETTINGS } from '../../../src/shared/protocol';
import { RUN_CANDIDATE, type ScoreFunctionResult } from '../../../src/shared/scoring-protocol';
import { EXTENSION_ID, openInEditor, screenshot, waitFor, workspaceRoot } from './helpers';

/**
 * Issue 17 in the editor: "Improve" grows a passing test into a suite (the baseline proposes a test
 * per branch the first one misses), a flaky test shows its pass count, and "Generate scored tests for
 * my changes" scores exactly the functions a change touched. Real server, local executor, real go.
 */
const FILE = 'inventory.go';
/** `func (inv *Inventory) Restock`: the baseline's first test misses its error branches. */
const RESTOCK_LINE = 58;

/** Passes or fails on a coin flip from the OS: run three times, it is flaky three times in four. */
const COIN_FLIP = `package inventory

import (
	"crypto/rand"
	"testing"
)

func TestStatusCoinFlip(t *testing.T) {
	var b [1]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	if b[0]&1 == 1 {
		t.Fatalf("the coin came up tails")
	}
	if (Item{Quantity: 5}).Status(10) != "ok" {
		t.Fatal("Status")
	}
}
`;

async function lensAt(uri: vscode.Uri, line: number, title: string | RegExp): Promise<vscode.CodeLens> {
  return waitFor(`the lens "${title}" on line ${line}`, 60_000, async () => {
    const found = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri)) ?? [];
    return found.find((l) => l.range.start.line === line - 1 && !!l.command && (typeof title === 'string' ? l.command.title === title : title.test(l.command.title)));
  });
}

function children(item: vscode.TestItem): vscode.TestItem[] {
  const out: vscode.TestItem[] = [];
  item.children.forEach((i) => out.push(i));
  return out;
}

describe('Improve, flaky marker and tests for my changes (baseline provider, local executor)', () => {
  let engine: Engine;
  let testing: TestingApi;
  let editor: vscode.TextEditor;

  before(async function () {
    this.timeout(120_000);
    const ext = vscode.extensions.getExtension<Engine & { testing: TestingApi }>(EXTENSION_ID);
    assert.ok(ext);
    editor = await openInEditor(FILE);
    const api = await ext.activate();
    engine = api;
    testing = api.testing;
  });

  it('"Improve" on a passing test keeps a test that runs new lines: a suite candidate, scored as one file, on the lens (screenshot)', async function () {
    this.timeout(600_000);
    const uri = editor.document.uri;
    const generate = await lensAt(uri, RESTOCK_LINE, 'Generate scored tests');
    const first = (await vscode.commands.executeCommand(generate.command!.command, ...(generate.command!.arguments ?? []))) as ScoreFunctionResult;
    assert.ok(first?.passed, `the baseline's test of Restock passes: ${first?.summary} ${first?.reason ?? ''}`);
    assert.ok(first.coveredLines.length < first.executableLines.length, 'the first test leaves lines to run');

    const improve = await lensAt(uri, RESTOCK_LINE, 'Improve');
    const suite = (await vscode.commands.executeCommand(improve.command!.command, ...(improve.command!.arguments ?? []))) as ScoreFunctionResult;
    assert.ok(suite?.suite, 'the answer says what the rounds did');
    assert.ok(suite.suite.rounds.length >= 1);
    const [round1] = suite.suite.rounds;
    assert.strictEqual(round1.kept, true, round1.reason);
    assert.strictEqual(round1.verdict, 'adds-coverage');
    assert.ok(round1.addedLines.length > 0);
    assert.ok(suite.suite.tests >= 2);
    assert.strictEqual(suite.passed, true, suite.reason ?? '');
    assert.ok(suite.coveredLines.length > first.coveredLines.length, `the suite runs more lines (${suite.coveredLines.length}) than the first test (${first.coveredLines.length})`);
    assert.deepStrictEqual(suite.suite.first, { covered: first.coveredLines.length, executable: first.executableLines.length });
    assert.match(suite.summary, new RegExp(`^suite of ${suite.suite.tests} tests \\(the first alone: \\d+ % of the lines\\) · `));
    // Go: one test file of the package (the kept test renamed where its name collides).
    assert.strictEqual(suite.testCode.match(/^package /gm)?.length, 1);

    // Nothing lost: the editor's run folder holds the rounds' replies and the slot's row with its suite.
    const editorRun = path.join((engine.context.storageUri ?? engine.context.globalStorageUri).fsPath, 'runs', 'editor');
    const rows = (file: string) => fs.readFileSync(path.join(editorRun, file), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { function_name?: string; improve?: number; xrt?: { suite?: { tests: number; test_code: string } } });
    assert.ok(rows('generations.jsonl').some((g) => g.improve === 1), 'the first round\'s reply is kept');
    const kept = rows('results.jsonl').filter((r) => r.function_name === 'Restock' && r.xrt?.suite);
    assert.strictEqual(kept[kept.length - 1]?.xrt?.suite?.tests, suite.suite.tests);
    assert.strictEqual(kept[kept.length - 1]?.xrt?.suite?.test_code, suite.testCode);

    const focal = testing.controller.items.get(`${uri.toString()}#${RESTOCK_LINE}`);
    assert.ok(focal, 'Restock has a focal item');
    const item = children(focal).find((c) => testing.resultOf(c)?.testCode === suite.testCode);
    assert.ok(item, 'the suite is a candidate of its own');
    assert.match(String(item.label), new RegExp(`^offline baseline suite \\d+ \\(${suite.suite.tests} tests\\)$`));

    editor = await vscode.window.showTextDocument(editor.document, { preview: false });
    editor.revealRange(new vscode.Range(RESTOCK_LINE - 1, 0, RESTOCK_LINE - 1, 0), vscode.TextEditorRevealType.AtTop);
    // The lens shows the suite's score, short (the plain words are its hover).
    const lensText = (await lensAt(uri, RESTOCK_LINE, /suite of/)).command!.title;
    assert.strictEqual(lensText, suite.lensSummary);
    assert.match(lensText, new RegExp(`^suite of ${suite.suite.tests} · `));
    const receipt = await screenshot({ name: 'improve-suite-lens', waitForText: lensText });
    assert.strictEqual(receipt.textFound, true, `the workbench shows "${lensText}"`);
    assert.strictEqual(receipt.fitsEditor, true, `"${lensText}" runs past the editor's right edge`);
  });

  it('a test that passes on a coin flip is marked flaky in the Testing view, with its pass count (screenshot)', async function () {
    this.timeout(600_000);
    const settings = { ...DEFAULT_ENGINE_SETTINGS, provider: 'baseline' as const, executor: 'local' as const, reruns: 2 };
    const item = await openInEditor('item.go').then((e) => e.document.uri);
    const run = (): Promise<ScoreFunctionResult> => engine.request(RUN_CANDIDATE, { uri: item.toString(), startLine: 7, testCode: COIN_FLIP, coverage: true, settings });
    // The candidate as the Testing view holds it, then its Run button until a run comes out flaky
    // (P = 3/8 each; 40 tries all missing it: about 1 in 10^8).
    const candidate = testing.record(await run());
    let shown: ScoreFunctionResult | undefined;
    for (let i = 0; i < 40; i++) {
      await testing.run('run', [candidate]);
      shown = testing.resultOf(candidate);
      if (shown?.failureCategory === 'flaky') break;
    }
    assert.strictEqual(shown?.failureCategory, 'flaky', `a run came out flaky; last: ${shown?.summary}`);
    assert.strictEqual(shown.passed, false, 'a flaky test is no pass');
    assert.ok(shown.reruns && shown.reruns.runs === 3 && shown.reruns.passed >= 1 && shown.reruns.passed < 3, JSON.stringify(shown.reruns));
    assert.match(shown.summary, /^⚠ flaky: passed [12] of 3 runs/);
    assert.strictEqual(candidate.description, shown.summary, 'the Testing view shows the marker beside the candidate');
    await vscode.commands.executeCommand('workbench.view.testing.focus');
    await vscode.commands.executeCommand('vscode.revealTestInExplorer', candidate);
    const receipt = await screenshot({ name: 'testing-flaky', waitForText: '⚠ flaky: passed' });
    assert.strictEqual(receipt.textFound, true, 'the Testing view shows the flaky marker');
    await vscode.commands.executeCommand('workbench.view.explorer');
  });

  describe('"Generate scored tests for my changes"', () => {
    const root = (): string => workspaceRoot();
    const file = (): string => path.join(root(), FILE);
    let original: string;
    const git = (...args: string[]): string => execFileSync('git', ['-C', root(), ...args], { encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });

    before(() => {
      original = fs.readFileSync(file(), 'utf8');
      git('init', '-q');
      git('add', '-A');
      git('commit', '-q', '-m', 'base');
    });
    after(async () => {
      // Back to the fixture's text, in the editor and on disk, and no repository left behind.
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file()));
      if (doc.getText() !== original) {
        const edit = new vscode.WorkspaceEdit();
        edit.replace(doc.uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), original);
        await vscode.workspace.applyEdit(edit);
        await doc.save();
      }
      fs.rmSync(path.join(root(), '.git'), { recursive: true, force: true });
    });

    it('scores exactly the function whose lines changed since HEAD, and says so when nothing changed', async function () {
      this.timeout(600_000);
      const folder = vscode.workspace.workspaceFolders![0].uri.toString();
      const none = (await vscode.commands.executeCommand('xrepotest.generateForChanges', folder, 'HEAD')) as ScoreFunctionResult[];
      assert.deepStrictEqual(none, [], 'nothing changed since HEAD: nothing scored');

      // One line of Restock's body changes (a comment is still a changed line of the function).
      const body = original.split('\n').findIndex((l, i) => i >= RESTOCK_LINE && l.includes('return'));
      assert.ok(body > 0, 'Restock has a return line');
      // As a user does: an edit in the editor, saved (the server scores the editor's text, git diffs the disk's).
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file()));
      const edit = new vscode.WorkspaceEdit();
      edit.insert(doc.uri, new vscode.Position(body, 0), '\t// reviewed\n');
      assert.ok(await vscode.workspace.applyEdit(edit));
      assert.ok(await doc.save());
      const scored = (await vscode.commands.executeCommand('xrepotest.generateForChanges', folder, 'HEAD')) as ScoreFunctionResult[];
      assert.deepStrictEqual(scored.map((r) => r.functionName), ['Restock']);
      assert.strictEqual(scored[0].startLine, RESTOCK_LINE);
      assert.strictEqual(scored[0].compiled, true, scored[0].reason ?? '');

      const refused = await vscode.commands.executeCommand('xrepotest.generateForChanges', folder, '--output=/tmp/x');
      assert.strictEqual(refused, undefined, 'an option is no ref: refused with a message, nothing scored');
    });
  });
});
