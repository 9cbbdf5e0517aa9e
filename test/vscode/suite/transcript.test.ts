import * as assert from 'node:assert';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Engine } from '../../../src/extension/engine';
import type { TestingApi } from '../../../src/extension/testing';
import { DEFAULT_ENGINE_SETTINGS } from '../../../src/shared/protocol';
import { RUN_CANDIDATE, type ScoreFunctionResult } from '../../../src/shared/scoring-protocol';
import { EXTENSION_ID, openInEditor, screenshot, waitFor, workspaceRoot } from './helpers';

const FILE = 'item.go';
const STATUS_LINE = 7;
/** A function of item.go no test of the suite scores. */
const CATEGORY_LABEL_LINE = 37;

/** A test that panics in the package's stack.go: go's trace names stack.go, the test's own file and the toolchain's. */
const PANICS = `package inventory

import "testing"

func TestStatusPanics(t *testing.T) {
	var s *Stack[string]
	s.Push(Item{}.Status(1))
}
`;
/** Where the trace points in stack.go: Push's append through the nil pointer. */
const STACK_FILE = 'stack.go';
const PANIC_LINE = 18;

describe('Scoring transcript: a scored run as a read-only document with links (baseline provider, local executor)', function () {
  this.timeout(240_000);
  let testing: TestingApi;
  let scored: ScoreFunctionResult;
  let candidate: vscode.TestItem;
  let transcript: vscode.TextEditor;
  let links: vscode.DocumentLink[];

  before(async () => {
    const ext = vscode.extensions.getExtension<Engine & { testing: TestingApi }>(EXTENSION_ID);
    assert.ok(ext);
    const editor = await openInEditor(FILE);
    const api = await ext.activate();
    testing = api.testing;
    scored = await api.request(RUN_CANDIDATE, {
      uri: editor.document.uri.toString(),
      startLine: STATUS_LINE,
      testCode: PANICS,
      settings: { ...DEFAULT_ENGINE_SETTINGS, provider: 'baseline', executor: 'local' },
    });
    assert.ok(scored.compiled && !scored.passed, `the test compiles and fails: ${scored.summary} ${scored.reason ?? ''}`);
    assert.ok(scored.environment === undefined, `the machine ran it: ${scored.environment?.cause}`);
    candidate = testing.record(scored);
  });

  it('the failure message\'s "Open the transcript" opens the run as a transcript document: header, phases, commands, exit codes, durations, output', async () => {
    const run = testing.runs.find((r) => r.states.has(candidate.id));
    const message = run?.states.get(candidate.id)?.messages[0];
    assert.ok(message, 'the run reported the failure as a message');
    assert.match(message.contextValue ?? '', /^xrepotest\./, 'the message menus (testing/message/*) offer the transcript to it');
    transcript = await vscode.commands.executeCommand<vscode.TextEditor>('xrepotest.openTranscript', { test: candidate, message });
    assert.ok(transcript, "the command returned the transcript's editor");
    const doc = transcript.document;
    assert.strictEqual(doc.uri.scheme, 'xrepotest-transcript');
    assert.strictEqual(doc.languageId, 'xrepotest-transcript');
    assert.strictEqual(vscode.window.activeTextEditor?.document.uri.toString(), doc.uri.toString(), 'it is shown');

    const text = doc.getText();
    const lines = text.split('\n');
    assert.strictEqual(lines[0], `XRepoTest transcript · Status · ${FILE}:${STATUS_LINE}`);
    assert.ok(lines.some((l) => l.startsWith(`  test:     ${String(candidate.label)} · written by `)), text.slice(0, 600));
    assert.match(text, /^ {2}executor: +local\b/m);
    assert.ok(lines.includes(`  verdict:  failed · ${scored.summary}`), text.slice(0, 600));
    // One section per phase the run had, each header with its command, exit and duration, in order.
    const headers = lines.filter((l) => l.startsWith('── '));
    assert.strictEqual(headers.length, scored.phases.length, headers.join('\n'));
    assert.ok(scored.phases.length >= 2, 'the run built the test and ran it');
    scored.phases.forEach((p, i) => {
      assert.ok(headers[i].startsWith(`── ${p.phase} · `), `${headers[i]} is the ${p.phase} phase`);
      assert.match(headers[i], new RegExp(` · ${p.exitCode === null ? '(timed out|stalled|killed.*)' : `exit ${p.exitCode}`} · [0-9.]+ (ms|s|min [0-9]+ s) ──$`));
    });
    const test = scored.phases.find((p) => p.phase === 'test');
    assert.ok(test && test.exitCode !== 0, 'the test phase failed');
    assert.ok(headers.some((h) => h.startsWith('── test · ') && h.includes(` · exit ${test.exitCode} · `)));
    // The runner's text, decoded from go test -json, with workspace paths (no sandbox path).
    assert.match(text, /^--- FAIL: TestStatusPanics/m);
    assert.match(text, /nil pointer dereference/);
    assert.ok(text.includes(`${path.join(workspaceRoot(), STACK_FILE)}:${PANIC_LINE}`), 'the trace names stack.go in the workspace');
    assert.doesNotMatch(text, /xrt-sandbox-/);
    await screenshot({ name: 'transcript', waitForText: 'XRepoTest transcript' });
  });

  it('links file:line references into the workspace, and the generated test\'s own lines to the test as scored', async () => {
    const uri = transcript.document.uri;
    links = await waitFor('the transcript\'s links', 10_000, async () => {
      const found = (await vscode.commands.executeCommand<vscode.DocumentLink[]>('vscode.executeLinkProvider', uri)) ?? [];
      return found.length ? found : undefined;
    });
    const text = (l: vscode.DocumentLink): string => transcript.document.getText(l.range);
    const focal = path.join(workspaceRoot(), FILE);
    // The header's reference to the function.
    const title = links.find((l) => l.range.start.line === 0);
    assert.ok(title, `a link on the title line; links: ${links.map(text).join(', ')}`);
    assert.strictEqual(text(title), `${FILE}:${STATUS_LINE}`);
    assert.strictEqual(title.target?.fsPath, focal);
    assert.strictEqual(title.target?.fragment, `L${STATUS_LINE}`);
    // The panic's frame in stack.go.
    const inStack = links.find((l) => text(l).endsWith(`${STACK_FILE}:${PANIC_LINE}`));
    assert.ok(inStack, `a link to ${STACK_FILE}:${PANIC_LINE}; links: ${links.map(text).join(', ')}`);
    assert.strictEqual(inStack.target?.scheme, 'file');
    assert.strictEqual(inStack.target?.fsPath, path.join(workspaceRoot(), STACK_FILE));
    assert.strictEqual(inStack.target?.fragment, `L${PANIC_LINE}`);
    // The generated test is not in the workspace: its line opens the candidate's read-only view.
    const testName = path.posix.basename(scored.placement!.relPath);
    const inTest = links.find((l) => path.posix.basename(text(l).split(':')[0]) === testName);
    assert.ok(inTest, `a link into ${testName}; links: ${links.map(text).join(', ')}`);
    assert.strictEqual(inTest.target?.scheme, 'xrepotest-candidate');
    assert.strictEqual(inTest.target?.with({ fragment: '' }).toString(), candidate.uri?.toString());
    assert.strictEqual(inTest.target?.fragment, `L${text(inTest).split(':')[1]}`);
    // The toolchain's own files (testing.go, panic.go) are no links: only the workspace and the generated test.
    assert.ok(transcript.document.getText().includes('/src/testing/testing.go:'), 'the trace names the toolchain');
    for (const l of links) assert.ok(l.target?.scheme === 'xrepotest-candidate' || vscode.workspace.getWorkspaceFolder(l.target!), `${text(l)} -> ${l.target?.toString()}`);
  });

  it('a link opens the file at its line', async () => {
    const inStack = links.find((l) => l.target?.fragment === `L${PANIC_LINE}` && l.target.scheme === 'file')!;
    await vscode.commands.executeCommand('vscode.open', inStack.target);
    const editor = await waitFor(`${STACK_FILE} at the link's line`, 10_000, () => {
      const e = vscode.window.activeTextEditor;
      return e?.document.uri.fsPath === path.join(workspaceRoot(), STACK_FILE) && e.selection.active.line === PANIC_LINE - 1 ? e : undefined;
    });
    assert.match(editor.document.lineAt(PANIC_LINE - 1).text, /s\.items = append\(s\.items, v\)/);
  });

  it('is read-only: typing into it changes nothing', async () => {
    const doc = transcript.document;
    const before = doc.getText();
    const editor = await vscode.window.showTextDocument(doc, { preview: false });
    editor.selection = new vscode.Selection(1, 0, 1, 0);
    await vscode.commands.executeCommand('type', { text: 'typed by the test' });
    await vscode.commands.executeCommand('deleteLeft');
    assert.strictEqual(doc.getText(), before);
    assert.strictEqual(doc.isDirty, false);
    // Nor can it be saved over: no file system holds the scheme.
    assert.strictEqual(vscode.workspace.fs.isWritableFileSystem('xrepotest-transcript'), undefined);
  });

  it('the palette command opens the latest scoring of the function at the cursor, and says when there is none', async () => {
    const editor = await openInEditor(FILE);
    editor.selection = new vscode.Selection(STATUS_LINE + 2, 4, STATUS_LINE + 2, 4);
    const opened = await vscode.commands.executeCommand<vscode.TextEditor | undefined>('xrepotest.openTranscript');
    assert.ok(opened, 'a transcript for Status');
    const firstLine = opened.document.lineAt(0).text;
    assert.strictEqual(firstLine, `XRepoTest transcript · Status · ${FILE}:${STATUS_LINE}`);
    // The latest candidate of Status: this suite's, or one recorded after it by an earlier suite file's run.
    const latest = [...(testing.controller.items.get(`${editor.document.uri.toString()}#${STATUS_LINE}`)?.children ?? [])]
      .map(([, item]) => item)
      .sort((a, b) => Number(/\/(\d+)$/.exec(b.id)![1]) - Number(/\/(\d+)$/.exec(a.id)![1]))[0];
    assert.match(opened.document.getText(), new RegExp(`^  test: +${String(latest.label).replace(/[()]/g, '\\$&')} · `, 'm'));

    // A function never scored here: nothing opens.
    const other = await openInEditor(FILE);
    other.selection = new vscode.Selection(CATEGORY_LABEL_LINE, 2, CATEGORY_LABEL_LINE, 2);
    const none = await vscode.commands.executeCommand<vscode.TextEditor | undefined>('xrepotest.openTranscript');
    assert.strictEqual(none, undefined);
  });
});
