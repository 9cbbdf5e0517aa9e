import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AnnotatorApi } from '../../../src/extension/annotator';
import { readRunFolder, runPickItem } from '../../../src/extension/run-picker-model';
import type { RenderedReport } from '../../../src/shared/annotator-protocol';
import { EXTENSION_ID, REPO_ROOT, runProcess, screenshot, skipBecause, waitFor, workspaceRoot } from './helpers';

/** Recorded "model" tests for the first three Go tasks of the example dataset: one passes, one asserts the wrong value, one does not compile. */
const REPLAYED = [
  { task_id: 0, language: 'go', test_code: 'package inventory\n\nimport "testing"\n\nfunc TestRestockRejectsZero(t *testing.T) {\n\tinv := &Inventory{}\n\tif _, err := inv.Restock("a", 0); err == nil {\n\t\tt.Fatal("expected an error for a quantity of 0")\n\t}\n}\n' },
  { task_id: 1, language: 'go', test_code: 'package inventory\n\nimport "testing"\n\nfunc TestStatusEmpty(t *testing.T) {\n\tit := Item{Quantity: 0}\n\tif got := it.Status(10); got != "ok" {\n\t\tt.Fatalf("Status = %q, want %q", got, "ok")\n\t}\n}\n' },
  { task_id: 2, language: 'go', test_code: 'package pricing\n\nimport "testing"\n\nfunc TestQuote(t *testing.T) {\n\t_, _ = QuoteOrder(100, 2)\n}\n' },
];

interface Result {
  function_name: string;
  file_path: string;
  test: string[];
  checks: Array<{ compilation: boolean; tests: boolean }>;
  function_component: { start_line: number; end_line: number };
  xrt: { failure_category: string | null; reason: string | null; annotation?: { label: string; note: string } | null };
}

const lines = <T>(file: string): T[] =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);

describe('Annotator view', function () {
  this.timeout(240_000);
  let tmp: string;
  let runDir: string;
  let results: Result[];
  let api: AnnotatorApi;

  /** The webview's next report that satisfies `ok`. */
  const rendered = (what: string, ok: (r: RenderedReport) => boolean): Promise<RenderedReport> =>
    waitFor(`the annotator to render ${what}`, 20_000, () => {
      const r = api.lastRendered();
      return r && !r.loading && ok(r) ? r : undefined;
    });
  const press = (selector: string): Thenable<boolean> => api.post({ type: 'automation', action: 'click', selector });
  const opened = async (what: string, before: string | undefined): Promise<vscode.TextEditor> => {
    await waitFor(`the ${what} to open`, 20_000, () => (api.lastOpened()?.what === what && api.lastOpened()?.uri !== before ? true : undefined));
    const uri = api.lastOpened()!.uri;
    return waitFor(`an editor on ${uri}`, 10_000, () => vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri));
  };
  const byName = (name: string): Result => results.find((r) => r.function_name === name)!;

  before(async function () {
    const go = await runProcess('go', ['version']);
    if (go.code !== 0) skipBecause(this, 'the run this test annotates needs the Go toolchain (go is not on PATH)');
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'xrepotest-annotator-'));
    runDir = path.join(tmp, 'run');
    const replay = path.join(tmp, 'replies.jsonl');
    fs.writeFileSync(replay, REPLAYED.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const bench = await runProcess(process.execPath, [
      path.join(REPO_ROOT, 'dist', 'cli.js'), 'bench',
      '--dataset', 'examples/fixtures/tasks.jsonl', '--manifest', 'examples/fixtures/manifest.json',
      '--lang', 'go', '--limit', '3', '--executor', 'local', '--provider', 'replay', '--replay', replay,
      '--run-dir', runDir, '--no-progress',
    ]);
    assert.strictEqual(bench.code, 0, `xrepotest bench failed:\n${bench.stderr}`);
    results = lines<Result>(path.join(runDir, 'results.jsonl'));
    assert.deepStrictEqual(
      results.map((r) => [r.function_name, r.checks[0].compilation, r.checks[0].tests]).sort(),
      [['QuoteOrder', false, false], ['Restock', true, true], ['Status', true, false]],
      'the replayed tests pass, fail and do not compile as written',
    );
    // As the benchmark records it: where each repository's checkout is (here the workspace, a copy of inventory-go).
    fs.writeFileSync(path.join(runDir, 'checkouts.json'), JSON.stringify({ 'inventory-go': workspaceRoot() }));
  });

  after(() => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('lists the results of a run with counts per filter, and filters them', async () => {
    const opened = await vscode.commands.executeCommand<string | undefined>('xrepotest.openAnnotator', runDir);
    assert.strictEqual(opened, runDir);
    api = (vscode.extensions.getExtension(EXTENSION_ID)!.exports as { annotator: AnnotatorApi }).annotator;
    const all = await rendered('every result', (r) => r.total === 3);
    assert.deepStrictEqual(all.shown.map((s) => s.functionName).sort(), ['QuoteOrder', 'Restock', 'Status']);
    assert.deepStrictEqual(all.counts.outcome, { passed: 1, failed: 1, nocompile: 1 });
    assert.deepStrictEqual(all.counts.language, { go: 3 });
    assert.deepStrictEqual(all.counts.repository, { 'inventory-go': 3 });
    const categories: Record<string, number> = {};
    for (const r of results) categories[r.xrt.failure_category ?? 'none'] = (categories[r.xrt.failure_category ?? 'none'] ?? 0) + 1;
    assert.deepStrictEqual(all.counts.category, categories);
    assert.deepStrictEqual(api.state(), { runDir, rows: 3, loading: false, visible: true });
    // The runner cannot see into the webview's frame: it waits for the panel's tab.
    const shot = await screenshot({ name: 'annotator-list', waitForText: 'Annotator: run' });
    assert.strictEqual(shot.textFound, true, 'the annotator tab shows in the workbench');

    await api.post({ type: 'setFilters', filters: { outcome: 'failed' } });
    const failed = await rendered('the failed results', (r) => r.filters.outcome === 'failed');
    assert.deepStrictEqual(failed.shown.map((s) => s.functionName), ['Status']);
    assert.strictEqual(failed.matching, 1);
    // Counts of the other filters follow the outcome picked; the outcome's own counts stay whole.
    assert.deepStrictEqual(failed.counts.language, { go: 1 });
    assert.deepStrictEqual(failed.counts.outcome, { passed: 1, failed: 1, nocompile: 1 });

    const category = byName('QuoteOrder').xrt.failure_category!;
    await api.post({ type: 'setFilters', filters: { category } });
    const byCategory = await rendered(`category ${category}`, (r) => r.filters.category === category && !r.filters.outcome);
    assert.ok(byCategory.shown.some((s) => s.functionName === 'QuoteOrder'));
    assert.ok(byCategory.shown.every((s) => s.category === category));

    // A change in the view's own dropdown filters too.
    await api.post({ type: 'setFilters', filters: {} });
    await rendered('all again', (r) => Object.keys(r.filters).length === 0 && r.matching === 3);
    await api.post({ type: 'automation', action: 'set', selector: '#filter-outcome', value: 'nocompile' });
    const viaDropdown = await rendered('the dropdown choice', (r) => r.filters.outcome === 'nocompile');
    assert.deepStrictEqual(viaDropdown.shown.map((s) => s.functionName), ['QuoteOrder']);
    await api.post({ type: 'setFilters', filters: {} });
    await rendered('all again', (r) => Object.keys(r.filters).length === 0);
  });

  it("opens a result's focal function, test, logs, transcript and coverage", async () => {
    const status = byName('Status');
    const key = api.lastRendered()!.shown.find((s) => s.functionName === 'Status')!.key;
    await api.post({ type: 'select', key });
    await rendered('the selection', (r) => r.selected === key);

    await press('[data-action=open-function]');
    const fn = await opened('function', undefined);
    assert.strictEqual(fn.document.uri.fsPath, path.join(workspaceRoot(), 'item.go'), "the checkout's file");
    assert.strictEqual(fn.selection.start.line, status.function_component.start_line - 1);
    assert.strictEqual(fn.selection.end.line, status.function_component.end_line - 1);
    assert.match(fn.document.getText(fn.selection), /^func \(it Item\) Status\(today int\) string \{[\s\S]*\}$/);

    await press('[data-action=open-test]');
    const test = await opened('test', fn.document.uri.toString());
    assert.strictEqual(test.document.isUntitled, true);
    assert.strictEqual(test.document.languageId, 'go');
    assert.strictEqual(test.document.getText(), status.test[0]);

    await press('[data-action=open-logs]');
    const logs = await opened('logs', test.document.uri.toString());
    assert.strictEqual(logs.document.languageId, 'log');
    assert.ok(status.xrt.reason, 'the failed result says why');
    assert.ok(logs.document.getText().includes(`# why: ${status.xrt.reason}`), logs.document.getText().slice(0, 400));
    assert.match(logs.document.getText(), /failed +TestStatusEmpty/);

    await press('[data-action=open-transcript]');
    const transcript = await opened('transcript', logs.document.uri.toString());
    assert.strictEqual(transcript.document.uri.scheme, 'xrepotest-transcript');
    assert.strictEqual(transcript.document.languageId, 'xrepotest-transcript');
    const text = transcript.document.getText();
    assert.strictEqual(text.split('\n')[0], `XRepoTest transcript · Status · item.go:${status.function_component.start_line}`, 'the focal file in the checkout, relative to the workspace');
    assert.match(text, /^ {2}verdict: +failed · /m);
    assert.ok(text.includes(`  why:      ${status.xrt.reason!.split('\n')[0]}`), text.slice(0, 600));
    // The phases the run recorded, cut from the stored log: the test phase with its command and exit, and the runner's text (go test -json decoded).
    assert.match(text, /^── compile · go test -c .* · exit 0 · [0-9.]+ (ms|s) ──$/m);
    assert.match(text, /^── test · .* · exit 1 · [0-9.]+ (ms|s) ──$/m);
    assert.match(text, /--- FAIL: TestStatusEmpty/);
    assert.doesNotMatch(text, /xrt-sandbox-/, 'sandbox paths are mapped to the checkout');
    const links = (await vscode.commands.executeCommand<vscode.DocumentLink[]>('vscode.executeLinkProvider', transcript.document.uri)) ?? [];
    const title = links.find((l) => l.range.start.line === 0);
    assert.strictEqual(title?.target?.fsPath, path.join(workspaceRoot(), 'item.go'));
    assert.strictEqual(title?.target?.fragment, `L${status.function_component.start_line}`);

    await press('[data-action=open-coverage]');
    const coverage = await opened('coverage', transcript.document.uri.toString());
    assert.strictEqual(coverage.document.uri.fsPath, path.join(workspaceRoot(), 'item.go'));
  });

  it('saves an annotation into annotations.jsonl and exports it with the results', async () => {
    const key = api.lastRendered()!.selected!;
    await api.post({ type: 'automation', action: 'set', selector: '#label', value: 'wrong-assertion' });
    await api.post({ type: 'automation', action: 'set', selector: '#note', value: 'expects "ok" for an empty item; Status says out-of-stock, as documented' });
    await press('#save');
    const after = await rendered('the saved label', (r) => r.shown.some((s) => s.key === key && s.label === 'wrong-assertion'));
    assert.deepStrictEqual(after.shown.filter((s) => s.label).map((s) => s.functionName), ['Status']);
    const saved = lines<{ key: string; label: string; note: string; time: string }>(path.join(runDir, 'annotations.jsonl'));
    assert.strictEqual(saved.length, 1);
    assert.strictEqual(saved[0].key, key);
    assert.strictEqual(saved[0].label, 'wrong-assertion');
    assert.match(saved[0].note, /^expects "ok" for an empty item/);
    await screenshot({ name: 'annotator-annotated', waitForText: 'Annotator: run' });

    await press('#export');
    const exported = await waitFor('the export', 30_000, () => api.lastExport());
    assert.deepStrictEqual([exported.records, exported.annotated, exported.orphaned], [3, 1, 0]);
    assert.strictEqual(exported.file, `${runDir}.annotated.jsonl`);
    const rows = lines<Result>(exported.file);
    assert.deepStrictEqual(
      rows.map((r) => [r.function_name, r.xrt.annotation?.label ?? null]).sort(),
      [['QuoteOrder', null], ['Restock', null], ['Status', 'wrong-assertion']],
    );
    await waitFor('the export in an editor', 10_000, () => vscode.window.visibleTextEditors.find((e) => e.document.uri.fsPath === exported.file));
  });

  it('follows dark and light themes', async () => {
    const config = vscode.workspace.getConfiguration('workbench');
    const before = config.inspect<string>('colorTheme')?.globalValue;
    await press('[data-action=open-coverage]');
    try {
      for (const [theme, bodyClass] of [['Default Dark Modern', 'vscode-dark'], ['Default Light Modern', 'vscode-light']] as const) {
        await config.update('colorTheme', theme, vscode.ConfigurationTarget.Global);
        const shown = await rendered(`under ${theme}`, (r) => r.theme.split(' ').includes(bodyClass));
        assert.strictEqual(shown.total, 3);
        await screenshot({ name: `annotator-${bodyClass}`, waitForText: 'Annotator: run' });
      }
    } finally {
      await config.update('colorTheme', before, vscode.ConfigurationTarget.Global);
    }
  });
});

describe('Annotator view: a suite from Improve', function () {
  this.timeout(300_000);
  let tmp: string;
  let runDir: string;
  type SuiteResult = Result & { test: string[]; xrt: Result['xrt'] & { suite?: { tests: number; test_code: string } } };

  before(async function () {
    const go = await runProcess('go', ['version']);
    if (go.code !== 0) skipBecause(this, 'the run this test annotates needs the Go toolchain (go is not on PATH)');
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'xrepotest-annotator-suite-'));
    runDir = path.join(tmp, 'run');
    // The offline baseline grows Restock's first test into a suite (it proposes a test per branch the first one misses).
    const bench = await runProcess(process.execPath, [
      path.join(REPO_ROOT, 'dist', 'cli.js'), 'bench',
      '--dataset', 'examples/fixtures/tasks.jsonl', '--manifest', 'examples/fixtures/manifest.json',
      '--lang', 'go', '--limit', '3', '--executor', 'local', '--provider', 'baseline', '--improve-rounds', '1',
      '--run-dir', runDir, '--no-progress',
    ]);
    assert.strictEqual(bench.code, 0, `xrepotest bench failed:\n${bench.stderr}`);
    fs.writeFileSync(path.join(runDir, 'checkouts.json'), JSON.stringify({ 'inventory-go': workspaceRoot() }));
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('shows the suite as a row of its own beside the slot\'s first test, opens its merged test, and the picker counts the rows the table shows', async () => {
    const records = lines<SuiteResult>(path.join(runDir, 'results.jsonl'));
    const restock = records.filter((r) => r.function_name === 'Restock').at(-1)!;
    assert.ok(restock.xrt.suite && restock.xrt.suite.tests > 1, `the baseline's Improve kept a test for Restock: ${JSON.stringify(restock.xrt.suite ?? null).slice(0, 300)}`);
    const suites = records.filter((r) => r.xrt.suite && r.xrt.suite.tests > 1).length;

    assert.strictEqual(await vscode.commands.executeCommand<string | undefined>('xrepotest.openAnnotator', runDir), runDir);
    const api = (vscode.extensions.getExtension(EXTENSION_ID)!.exports as { annotator: AnnotatorApi }).annotator;
    // This run's rows, all of them (the panel showed another run before).
    const report = await waitFor('the annotator to render the run', 20_000, () => {
      const r = api.lastRendered();
      const st = api.state();
      return r && st?.runDir === runDir && !st.loading && !r.loading && r.total === st.rows ? r : undefined;
    });
    // The picker's words for this run: its count of results is the table's count of rows.
    const info = readRunFolder(runDir)!;
    assert.match(runPickItem(info).description, new RegExp(`3 tasks, ${report.total} results`), 'the picker says as many results as the table has rows');
    assert.strictEqual(report.total, 3 + suites, 'a row per test and one per suite');

    const rows = report.shown.filter((s) => s.functionName === 'Restock');
    assert.strictEqual(rows.length, 2, `Restock's first test and its suite are two rows: ${JSON.stringify(rows)}`);
    const suiteRow = rows.find((s) => s.suite !== null);
    const firstRow = rows.find((s) => s.suite === null);
    assert.ok(suiteRow && firstRow, 'one of them is marked as the suite');
    assert.strictEqual(suiteRow.suite, restock.xrt.suite!.tests);
    assert.notStrictEqual(suiteRow.key, firstRow.key);

    // Opening the suite's test shows the merged file; the first test's row opens the first test.
    await api.post({ type: 'select', key: suiteRow.key });
    await waitFor('the selection', 20_000, () => (api.lastRendered()?.selected === suiteRow.key ? true : undefined));
    await api.post({ type: 'automation', action: 'click', selector: '[data-action=open-test]' });
    const suiteTest = await waitFor('the suite\'s test to open', 20_000, () => vscode.window.visibleTextEditors.find((e) => e.document.isUntitled && e.document.getText() === restock.xrt.suite!.test_code));
    assert.ok(suiteTest);
    await screenshot({ name: 'annotator-suite-row', waitForText: 'Annotator: run' });
    await api.post({ type: 'select', key: firstRow.key });
    await waitFor('the selection', 20_000, () => (api.lastRendered()?.selected === firstRow.key ? true : undefined));
    await api.post({ type: 'automation', action: 'click', selector: '[data-action=open-test]' });
    await waitFor('the first test to open', 20_000, () => vscode.window.visibleTextEditors.find((e) => e.document.isUntitled && e.document.getText() === restock.test[0]));
  });
});
