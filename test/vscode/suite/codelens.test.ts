import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { extractWithCli, openInEditor, screenshot, waitFor, workspaceRoot, type CliTask } from './helpers';

const FILE = 'item.go';
const LENS_TITLE = /^XRepoTest: (\S+) \((\d+) lines\)$/;

function ourLenses(lenses: vscode.CodeLens[]): vscode.CodeLens[] {
  return lenses.filter((lens) => lens.command?.title.startsWith('XRepoTest:'));
}

/** The 1-based first line of `func ... <name>(` in the document. */
function declarationLine(doc: vscode.TextDocument, name: string): number {
  const index = doc.getText().split('\n').findIndex((line) => new RegExp(`^func .*\\b${name}\\(`).test(line));
  assert.ok(index >= 0, `${name} is declared in ${FILE}`);
  return index + 1;
}

function tasksIn(tasks: CliTask[], relPath: string): CliTask[] {
  return tasks.filter((t) => t.file_path.endsWith(`/${relPath}`));
}

describe('code lens on focal functions (inventory-go)', () => {
  let editor: vscode.TextEditor;
  let lenses: vscode.CodeLens[];
  let cliFocal: CliTask[];

  before(async () => {
    editor = await openInEditor(FILE);
    // The engine server starts with the extension; its first answers may come before it parsed.
    lenses = await waitFor(`XRepoTest code lenses on ${FILE}`, 30_000, async () => {
      const all = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', editor.document.uri);
      const ours = ourLenses(all ?? []);
      return ours.length > 0 ? ours : undefined;
    });
    cliFocal = tasksIn(await extractWithCli(workspaceRoot()), FILE);
  });

  it('shows one lens per focal function the CLI extracts from the file, on its first line', () => {
    const fromLenses = lenses
      .map((lens) => ({ name: LENS_TITLE.exec(lens.command?.title ?? '')?.[1], line: lens.range.start.line + 1 }))
      .sort((a, b) => a.line - b.line);
    const fromCli = cliFocal.map((t) => ({ name: t.function_name, line: t.function_component.start_line })).sort((a, b) => a.line - b.line);
    assert.deepStrictEqual(fromLenses, fromCli);
    assert.ok(fromCli.some((f) => f.name === 'Status'), 'Status is a focal function of the fixture');
  });

  it('titles the lens on Status with its name and its non-comment line count', async () => {
    const lens = lenses.find((l) => LENS_TITLE.exec(l.command?.title ?? '')?.[1] === 'Status');
    assert.ok(lens, `a lens names Status; lenses: ${lenses.map((l) => l.command?.title).join(' | ')}`);
    assert.strictEqual(lens.range.start.line + 1, declarationLine(editor.document, 'Status'));
    const n = Number(LENS_TITLE.exec(lens.command?.title ?? '')?.[2]);
    // The count is the engine's: the CLI keeps Status with bounds [n, n] and drops it from n + 1.
    const exact = tasksIn(await extractWithCli(workspaceRoot(), ['--min-lines', `${n}`, '--max-lines', `${n}`]), FILE);
    const above = tasksIn(await extractWithCli(workspaceRoot(), ['--min-lines', `${n + 1}`, '--max-lines', '1000']), FILE);
    assert.ok(exact.some((t) => t.function_name === 'Status'), `Status has ${n} non-comment lines`);
    assert.ok(!above.some((t) => t.function_name === 'Status'), `Status has no more than ${n} non-comment lines`);
  });

  it('shows no lens on GetLabel, which is shorter than the 20-line minimum', async () => {
    const line = declarationLine(editor.document, 'GetLabel');
    assert.ok(!lenses.some((l) => l.range.start.line + 1 === line), 'a lens sits on GetLabel');
    assert.ok(!lenses.some((l) => l.command?.title.includes('GetLabel')), 'a lens names GetLabel');
    // Only its length keeps it out: without the minimum, the engine takes it.
    const anyLength = tasksIn(await extractWithCli(workspaceRoot(), ['--min-lines', '1']), FILE);
    assert.ok(anyLength.some((t) => t.function_name === 'GetLabel'), 'GetLabel is kept once the minimum is 1');
  });

  it('renders the Status lens in the editor (screenshot)', async () => {
    const line = declarationLine(editor.document, 'Status') - 1;
    editor = await vscode.window.showTextDocument(editor.document, { preview: false });
    editor.revealRange(new vscode.Range(line, 0, line, 0), vscode.TextEditorRevealType.AtTop);
    editor.selection = new vscode.Selection(line, 0, line, 0);
    const title = lenses.find((l) => l.command?.title.includes('Status'))?.command?.title;
    assert.ok(title);
    const receipt = await screenshot({ name: 'codelens-status', waitForText: title });
    assert.strictEqual(receipt.textFound, true, `the workbench shows "${title}"`);
    assert.ok(fs.statSync(receipt.file).size > 0, 'the screenshot is not empty');
  });
});
