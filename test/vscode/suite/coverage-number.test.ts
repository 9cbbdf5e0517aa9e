import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Engine } from '../../../src/extension/engine';
import type { TestingApi, TestingRunRecord } from '../../../src/extension/testing';
import type { ScoreFunctionResult } from '../../../src/shared/scoring-protocol';
import { EXTENSION_ID, openInEditor, screenshot, userInput, waitFor, workspaceRoot } from './helpers';

const FILE = 'item.go';
const STATUS_LINE = 7;

/**
 * Go source lines that hold no code: blank, or only comments (`//…`, inside or around a `/* … *\/`).
 * Strings and runes are skipped so a `//` inside one is not taken for a comment.
 */
function codeFreeLines(source: string): Set<number> {
  const lines = source.split('\n');
  const hasCode = new Array<boolean>(lines.length).fill(false);
  let inBlock = false;
  lines.forEach((text, i) => {
    for (let j = 0; j < text.length; j++) {
      if (inBlock) {
        if (text.startsWith('*/', j)) {
          inBlock = false;
          j++;
        }
        continue;
      }
      if (text.startsWith('//', j)) break;
      if (text.startsWith('/*', j)) {
        inBlock = true;
        j++;
        continue;
      }
      const ch = text[j];
      if (/\s/.test(ch)) continue;
      hasCode[i] = true;
      if (ch === '"' || ch === "'" || ch === '`') {
        const end = text.indexOf(ch, j + 1);
        j = end < 0 ? text.length : end;
      }
    }
  });
  return new Set(hasCode.flatMap((code, i) => (code ? [] : [i + 1])));
}

/** The first percentage a lens title shows: its coverage, whatever the wording around it. */
function percentIn(title: string): number {
  const m = /(\d+(?:\.\d+)?)\s?%/.exec(title);
  assert.ok(m, `a percentage in the lens "${title}"`);
  return Number(m[1]);
}

describe('One coverage number', () => {
  let testing: TestingApi;
  let editor: vscode.TextEditor;
  let generated: ScoreFunctionResult;
  let candidate: vscode.TestItem;
  let run: TestingRunRecord;

  before(async function () {
    this.timeout(300_000);
    const ext = vscode.extensions.getExtension<Engine & { testing: TestingApi }>(EXTENSION_ID);
    assert.ok(ext);
    editor = await openInEditor(FILE);
    testing = (await ext.activate()).testing;
    const uri = editor.document.uri;
    const generate = await waitFor('the Generate lens on Status', 30_000, async () => {
      const found = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri)) ?? [];
      return found.find((l) => l.command?.title === 'Generate scored tests' && l.range.start.line === STATUS_LINE - 1);
    });
    generated = (await vscode.commands.executeCommand(generate.command!.command, ...(generate.command!.arguments ?? []))) as ScoreFunctionResult;
    assert.ok(generated, 'the lens command returned a score');
    assert.ok(generated.executableLines.length > 0, 'the scoring measured Status');
    const focal = testing.controller.items.get(`${uri.toString()}#${STATUS_LINE}`);
    assert.ok(focal, 'a focal item for Status');
    const all: vscode.TestItem[] = [];
    focal.children.forEach((c) => all.push(c));
    const found = all.reverse().find((c) => testing.resultOf(c)?.testCode === generated.testCode);
    assert.ok(found, 'a candidate holds the generated test');
    candidate = found;
    run = await testing.run('coverage', [candidate]);
  });

  it('the lens, the Coverage view\'s function entry and the result count the same lines', async () => {
    const result = testing.resultOf(candidate)!;
    const file = run.coverage.find((c) => c.fileCoverage.uri.fsPath === path.join(workspaceRoot(), FILE));
    assert.ok(file, `coverage for ${FILE}`);
    const declarations = file.details.filter((d): d is vscode.DeclarationCoverage => d instanceof vscode.DeclarationCoverage);
    assert.deepStrictEqual(declarations.map((d) => d.name), ['Status (focal function)']);
    // As VS Code computes a declaration's figure: the statements its range contains.
    const range = declarations[0].location as vscode.Range;
    const inside = file.details.filter((d): d is vscode.StatementCoverage => d instanceof vscode.StatementCoverage && range.contains(d.location as vscode.Range));
    const covered = inside.filter((s) => s.executed).length;
    assert.strictEqual(inside.length, result.executableLines.length, 'the function entry counts the executable lines, nothing else');
    assert.strictEqual(covered, result.coveredLines.length, 'and the covered ones');
    // No statement of the function lies outside its entry (those would count in the file, not the function).
    const statements = file.details.filter((d) => d instanceof vscode.StatementCoverage);
    assert.strictEqual(statements.length, inside.length, 'every statement the run reports is inside the function');

    const lenses = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', editor.document.uri)) ?? [];
    const scored = lenses.filter((l) => l.range.start.line === STATUS_LINE - 1 && l.command && /%/.test(l.command.title));
    assert.ok(scored.length > 0, `a score lens on Status; lenses there: ${lenses.filter((l) => l.range.start.line === STATUS_LINE - 1).map((l) => l.command?.title).join(' | ')}`);
    const lens = percentIn(scored[0].command!.title);
    const exact = (100 * covered) / inside.length;
    assert.strictEqual(lens, Math.round(exact), `the lens (${lens} %) rounds the function entry's ${exact.toFixed(2)} %`);
    assert.strictEqual(Math.round((100 * result.coveredLines.length) / result.executableLines.length), lens, 'the result\'s coveredLines/executableLines');
    assert.deepStrictEqual(result.coveredLines, generated.coveredLines, 'the coverage run scored the test as the scoring did');
  });

  it('paints no blank or comment-only line', () => {
    const file = run.coverage.find((c) => c.fileCoverage.uri.fsPath === path.join(workspaceRoot(), FILE))!;
    const source = fs.readFileSync(path.join(workspaceRoot(), FILE), 'utf8');
    const empty = codeFreeLines(source);
    // The fixture's Status has both inside it, so this could fail.
    const statusLines = Array.from({ length: generated.endLine - STATUS_LINE + 1 }, (_, i) => STATUS_LINE + i);
    assert.ok(statusLines.filter((l) => empty.has(l)).length >= 3, 'Status holds comment-only lines');
    const painted = file.details.filter((d): d is vscode.StatementCoverage => d instanceof vscode.StatementCoverage).map((s) => (s.location as vscode.Range).start.line + 1);
    assert.deepStrictEqual(painted.filter((l) => empty.has(l)), [], 'statements on lines without code');
    assert.deepStrictEqual(painted.filter((l) => /^\s*[{}()]*\s*$/.test(source.split('\n')[l - 1])), [], 'statements on brace-only lines');
  });

  it('Test Results shows the runner\'s text, not go test -json, and says Go\'s percentage is the package\'s', () => {
    const output = (run.output ?? []).join('');
    assert.ok(output.length > 0, 'the run wrote to Test Results');
    assert.doesNotMatch(output, /\{"Time":/);
    assert.match(output, /=== RUN {3}Test/);
    assert.match(output, /coverage: [\d.]+% of statements \(go test's figure for the whole package/);
  });

  it('shows the gutter and the Test Coverage view with the function entry (screenshots)', async function () {
    this.timeout(120_000);
    editor = await vscode.window.showTextDocument(editor.document, { preview: false });
    editor.revealRange(new vscode.Range(STATUS_LINE - 2, 0, STATUS_LINE - 2, 0), vscode.TextEditorRevealType.AtTop);
    const gutter = await screenshot({ name: 'coverage-gutter', waitForText: generated.lensSummary });
    assert.strictEqual(gutter.textFound, true, `the lens shows "${generated.lensSummary}"`);
    // The file's entry opens to its functions as a user opens it: point at its row, then ArrowRight.
    await vscode.commands.executeCommand('workbench.view.testCoverage.focus');
    const expanded = await userInput({
      name: 'coverage-expand',
      steps: [{ waitForText: FILE, click: '.monaco-list-row .test-coverage-list-item' }, { press: 'ArrowRight' }],
    });
    assert.strictEqual(expanded.error, undefined, expanded.error);
    const receipt = await screenshot({ name: 'coverage-function-entry', waitForText: 'Status (focal function)' });
    assert.strictEqual(receipt.textFound, true, 'the Test Coverage view shows "Status (focal function)"');
    // Test Results: the run's output as go test -v prints it, with Go's package figure explained.
    await vscode.commands.executeCommand('testing.showMostRecentOutput');
    const results = await screenshot({ name: 'coverage-test-results', waitForText: 'not the focal function' });
    assert.strictEqual(results.textFound, true, 'Test Results shows the decoded output with Go\'s package coverage explained');
  });
});
