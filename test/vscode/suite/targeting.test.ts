import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Engine } from '../../../src/extension/engine';
import { DEFAULT_ENGINE_SETTINGS } from '../../../src/shared/protocol';
import { FOCAL_FUNCTION_AT } from '../../../src/shared/scoring-protocol';
import { EXTENSION_ID, openInEditor, screenshot, waitFor, workspaceRoot } from './helpers';

/** A program written into the workspace copy: its `main` is an entry point, `greeting` a function main calls. */
const PROGRAM = 'cmd/x/main.go';
const PROGRAM_TEXT = `package main

import "fmt"

func main() {
	fmt.Println(greeting("inventory"))
}

func greeting(name string) string {
	return "hello " + name
}
`;
const REFUSAL = "main is a program's entry point: a unit test cannot call it; put the cursor in a function it calls";

/** The 1-based line of `func ... <name>(` in the document. */
function declarationLine(doc: vscode.TextDocument, name: string): number {
  const index = doc.getText().split('\n').findIndex((line) => new RegExp(`^func .*\\b${name}\\(`).test(line));
  assert.ok(index >= 0, `${name} is declared in ${doc.uri.fsPath}`);
  return index + 1;
}

/** The lines (1-based) that carry a "Generate scored tests" lens: how we tell which functions have one, whatever the titles say. */
async function lensLines(doc: vscode.TextDocument): Promise<number[]> {
  const all = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri)) ?? [];
  return [...new Set(all.filter((l) => l.command?.command === 'xrepotest.generateScoredTests').map((l) => l.range.start.line + 1))].sort((a, b) => a - b);
}

async function setLensFunctions(value: 'focal' | 'all' | undefined): Promise<void> {
  await vscode.workspace.getConfiguration('xrepotest').update('codeLens.functions', value, vscode.ConfigurationTarget.Workspace);
}

describe('Targeting any function', () => {
  let item: vscode.TextEditor;
  let getLabel: number;
  let status: number;

  before(async function () {
    this.timeout(60_000);
    await vscode.extensions.getExtension(EXTENSION_ID)!.activate();
    item = await openInEditor('item.go');
    getLabel = declarationLine(item.document, 'GetLabel');
    status = declarationLine(item.document, 'Status');
    // The server parses lazily: wait for the benchmark's lens on Status.
    await waitFor('the lens on Status', 30_000, async () => ((await lensLines(item.document)).includes(status) ? true : undefined));
  });

  after(async () => {
    await setLensFunctions(undefined);
    await vscode.workspace.getConfiguration('xrepotest').update('mutation.enabled', undefined, vscode.ConfigurationTarget.Workspace);
    fs.rmSync(path.join(workspaceRoot(), 'cmd'), { recursive: true, force: true });
  });

  it('lenses stay on the benchmark filter by default: GetLabel (3 lines) has none', async () => {
    assert.strictEqual(vscode.workspace.getConfiguration('xrepotest').get('codeLens.functions'), 'focal');
    const lines = await lensLines(item.document);
    assert.ok(lines.includes(status), `Status has a lens; lenses on ${lines.join(', ')}`);
    assert.ok(!lines.includes(getLabel), `GetLabel has no lens by default; lenses on ${lines.join(', ')}`);
  });

  it('with codeLens.functions "all", GetLabel gets a lens (screenshot)', async function () {
    this.timeout(60_000);
    await setLensFunctions('all');
    const lines = await waitFor('a lens on GetLabel', 20_000, async () => {
      const now = await lensLines(item.document);
      return now.includes(getLabel) ? now : undefined;
    });
    assert.ok(lines.includes(status), 'Status keeps its lens');
    item = await vscode.window.showTextDocument(item.document, { preview: false });
    item.revealRange(new vscode.Range(getLabel - 3, 0, getLabel - 3, 0), vscode.TextEditorRevealType.AtTop);
    const receipt = await screenshot({ name: 'targeting-all-lenses', waitForText: 'GetLabel' });
    assert.strictEqual(receipt.textFound, true);
  });

  it('scores GetLabel from the palette command with the cursor in it, although the benchmark filter leaves it out', async function () {
    // The first Go build of the package is minutes on a loaded machine; mutants would add as much again.
    this.timeout(600_000);
    await setLensFunctions(undefined);
    await vscode.workspace.getConfiguration('xrepotest').update('mutation.enabled', false, vscode.ConfigurationTarget.Workspace);
    item = await vscode.window.showTextDocument(item.document, { preview: false });
    item.selection = new vscode.Selection(getLabel, 2, getLabel, 2); // inside GetLabel's body
    const engine = vscode.extensions.getExtension(EXTENSION_ID)!.exports as Engine;
    const at = await engine.request(FOCAL_FUNCTION_AT, { uri: item.document.uri.toString(), line: getLabel, settings: DEFAULT_ENGINE_SETTINGS });
    assert.ok(!('why' in at), `not refused: ${'why' in at ? at.why : ''}`);
    assert.strictEqual(at.name, 'GetLabel');
    assert.match(at.note ?? '', /GetLabel is outside the benchmark's filter \(it has \d+ lines, fewer than the benchmark's minimum\)/);
    const result = (await vscode.commands.executeCommand('xrepotest.generateScoredTests')) as { functionName: string; compiled: boolean; startLine: number } | undefined;
    assert.ok(result, 'the command scored a function');
    assert.strictEqual(result.functionName, 'GetLabel');
    assert.strictEqual(result.startLine, getLabel);
    assert.strictEqual(result.compiled, true);
  });

  it("main in cmd/x/main.go gets no lens even with \"all\" (greeting does), and the palette refuses it with the reason (screenshot)", async function () {
    this.timeout(60_000);
    fs.mkdirSync(path.join(workspaceRoot(), 'cmd', 'x'), { recursive: true });
    fs.writeFileSync(path.join(workspaceRoot(), PROGRAM), PROGRAM_TEXT);
    await setLensFunctions('all');
    const program = await openInEditor(PROGRAM);
    const main = declarationLine(program.document, 'main');
    const greeting = declarationLine(program.document, 'greeting');
    const lines = await waitFor('a lens on greeting', 20_000, async () => {
      const now = await lensLines(program.document);
      return now.includes(greeting) ? now : undefined;
    });
    assert.ok(!lines.includes(main), `main has no lens; lenses on ${lines.join(', ')}`);

    const engine = vscode.extensions.getExtension(EXTENSION_ID)!.exports as Engine;
    const at = await engine.request(FOCAL_FUNCTION_AT, { uri: program.document.uri.toString(), line: main, settings: { ...DEFAULT_ENGINE_SETTINGS, codeLensFunctions: 'all' } });
    assert.strictEqual('why' in at ? at.why : '', REFUSAL);
    program.selection = new vscode.Selection(main, 1, main, 1); // inside main's body
    const result = await vscode.commands.executeCommand('xrepotest.generateScoredTests');
    assert.strictEqual(result, undefined, 'nothing is scored');
    const receipt = await screenshot({ name: 'targeting-main-refused', waitForText: "a program's entry point" });
    assert.strictEqual(receipt.textFound, true, 'the warning shows the reason');
  });
});
