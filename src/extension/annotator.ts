import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  ANNOTATOR_EXPORT,
  ANNOTATOR_LOCATE,
  ANNOTATOR_OPEN_RUN,
  ANNOTATOR_REMEMBER_CHECKOUT,
  ANNOTATOR_RESULT,
  ANNOTATOR_ROWS,
  ANNOTATOR_SAVE,
  ANNOTATOR_TRANSCRIPT,
  type AnnotatorTranscript,
  type ExportResult,
  type HostMessage,
  type OpenWhat,
  type RenderedReport,
  type ResultResult,
  type ResultRow,
  type RowsNotification,
  type ViewMessage,
} from '../shared/annotator-protocol';
import type { Engine } from './engine';
import { editorLanguageOf, editorLanguages } from './languages';
import { findRunFolders, runPickItem } from './run-picker-model';
import { writtenBy } from './testing-model';
import type { Transcripts } from './transcript';
import { verdictOf, type TranscriptSource } from './transcript-model';

/** What the extension's tests see of the annotator (returned by activate as `annotator`). */
export interface AnnotatorApi {
  /** The open panel's run, how many rows it holds, and whether they are still loading. */
  state(): { runDir: string; rows: number; loading: boolean; visible: boolean } | undefined;
  /** The webview's last report of what it rendered. */
  lastRendered(): RenderedReport | undefined;
  /** The last document the view opened for a result. */
  lastOpened(): { what: OpenWhat; uri: string; languageId: string } | undefined;
  /** The last export's outcome. */
  lastExport(): ExportResult | undefined;
  /** The run picker's items as last shown ("Open the annotator" without a folder). */
  lastRunPicks(): Array<{ label: string; description?: string; detail?: string; runDir?: string }> | undefined;
  /** Sends the webview a message (filters, a selection, a press of one of its controls). */
  post(message: HostMessage): Thenable<boolean>;
}

const PANEL_TYPE = 'xrepotest.annotator';
/** An export bigger than this is revealed, not opened: the editor is no viewer for hundreds of MB. */
const OPEN_EXPORT_MAX_BYTES = 20 * 1024 * 1024;

/**
 * Where runs are looked for: the extension's benchmarks (global storage), the editor's scorings and any
 * run under the workspace's storage, and `out/` of each workspace folder (the CLI's usual --run-dir).
 */
function runParents(context: vscode.ExtensionContext): string[] {
  return [
    path.join(context.globalStorageUri.fsPath, 'runs'),
    ...(context.storageUri ? [path.join(context.storageUri.fsPath, 'runs')] : []),
    ...(vscode.workspace.workspaceFolders ?? []).map((f) => path.join(f.uri.fsPath, 'out')),
  ];
}

interface RunPick extends vscode.QuickPickItem {
  runDir?: string;
  action?: 'browse' | 'bench';
}

/** The extension's own runs, newest first, then the ways to another one. */
function runPicks(context: vscode.ExtensionContext): RunPick[] {
  const runs = findRunFolders(runParents(context));
  return [
    ...runs.map((info) => ({ ...runPickItem(info), runDir: info.dir })),
    ...(runs.length ? [{ label: '', kind: vscode.QuickPickItemKind.Separator }] : []),
    { label: '$(folder-opened) Open another run folder…', detail: 'a folder that holds results.jsonl (`xrepotest bench --run-dir`, a colleague\'s run) or the release\'s detailed_results.jsonl', action: 'browse' as const },
    ...(runs.length ? [] : [{ label: '$(beaker) Run a benchmark…', detail: 'no run yet: a benchmark (or scoring a function in the editor) makes one', action: 'bench' as const }]),
  ];
}

/** Asks which run to annotate; undefined when the user went away. */
async function pickRun(context: vscode.ExtensionContext, onShown: (items: RunPick[]) => void): Promise<string | undefined> {
  const items = runPicks(context);
  onShown(items);
  const picked = await vscode.window.showQuickPick(items, {
    title: 'XRepoTest: open the annotator',
    placeHolder: items.some((i) => i.runDir) ? 'The run to annotate (newest first)' : 'No run yet in the extension\'s storage',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (!picked) return undefined;
  if (picked.runDir) return picked.runDir;
  if (picked.action === 'bench') {
    void vscode.commands.executeCommand('xrepotest.runBenchmark');
    return undefined;
  }
  const newest = items.find((i) => i.runDir)?.runDir;
  const chosen = await vscode.window.showOpenDialog({
    canSelectFolders: true,
    canSelectFiles: false,
    canSelectMany: false,
    openLabel: 'Annotate this run',
    title: 'The run folder to annotate (it holds results.jsonl, or the release\'s detailed_results.jsonl)',
    ...(newest ? { defaultUri: vscode.Uri.file(path.dirname(newest)) } : {}),
  });
  return chosen?.[0]?.fsPath;
}

function nonce(): string {
  return randomBytes(18).toString('base64').replace(/[^A-Za-z0-9]/g, '');
}

function html(webview: vscode.Webview, media: vscode.Uri): string {
  const n = nonce();
  const asset = (name: string): string => webview.asWebviewUri(vscode.Uri.joinPath(media, name)).toString();
  // No inline script or style, no handlers in markup: scripts only with the nonce, styles only from media/.
  const csp = [`default-src 'none'`, `style-src ${webview.cspSource}`, `img-src ${webview.cspSource}`, `font-src ${webview.cspSource}`, `script-src 'nonce-${n}'`].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${asset('annotator.css')}">
<title>XRepoTest annotator</title>
</head>
<body>
<header>
  <h1 id="title">XRepoTest annotator</h1>
  <span id="status" role="status">Loading…</span>
  <button id="export" type="button" disabled>Export annotated results</button>
</header>
<section id="filters" aria-label="Filters"></section>
<main>
  <div id="list" role="region" aria-label="Results"></div>
  <aside id="detail" aria-label="The selected result" hidden></aside>
</main>
<script nonce="${n}" src="${asset('annotator.js')}"></script>
</body>
</html>`;
}

/** Coverage of the focal lines, in the colours the editor's own test coverage uses. */
function coverageDecorations(): { covered: vscode.TextEditorDecorationType; uncovered: vscode.TextEditorDecorationType } {
  const line = (kind: 'covered' | 'uncovered'): vscode.TextEditorDecorationType =>
    vscode.window.createTextEditorDecorationType({
      isWholeLine: true,
      backgroundColor: new vscode.ThemeColor(`testing.${kind}Background`),
      overviewRulerColor: new vscode.ThemeColor(`testing.${kind}Border`),
      overviewRulerLane: vscode.OverviewRulerLane.Left,
    });
  return { covered: line('covered'), uncovered: line('uncovered') };
}

/** One open annotator: a run folder's results in a webview, with the documents it opens for them. */
class AnnotatorPanel {
  rows = new Map<string, ResultRow>();
  loading = true;
  rendered: RenderedReport | undefined;
  private session = '';
  private title = '';
  private labels: readonly string[] = [];
  private skipped = 0;

  constructor(
    readonly panel: vscode.WebviewPanel,
    public runDir: string,
    private readonly engine: Engine,
    private readonly onOpened: (o: { what: OpenWhat; uri: string; languageId: string }) => void,
    private readonly onExported: (e: ExportResult) => void,
    private readonly decorations: ReturnType<typeof coverageDecorations>,
    private readonly transcripts: Transcripts,
  ) {
    panel.webview.onDidReceiveMessage((m: ViewMessage) => void this.receive(m).catch((e: unknown) => this.fail(e)));
  }

  /** Documents open in one group next to the view, never in a new group per document. */
  private besideColumn(): vscode.ViewColumn {
    return Math.min((this.panel.viewColumn ?? vscode.ViewColumn.One) + 1, vscode.ViewColumn.Nine);
  }

  /** The VS Code language a result's focal file or test opens as; plain text for a language the extension does not activate on. */
  private documentLanguage(language: string): string {
    return editorLanguageOf(editorLanguages(this.engine.context.extension.packageJSON), language) ?? 'plaintext';
  }

  post(message: HostMessage): Thenable<boolean> {
    return this.panel.webview.postMessage(message);
  }

  /** Streams the run's rows from the engine server into the view, with cancellable progress. */
  async load(runDir: string, rowsBySession: Map<string, (rows: ResultRow[]) => void>): Promise<void> {
    this.runDir = runDir;
    this.title = path.basename(runDir);
    this.panel.title = `Annotator: ${this.title}`;
    this.rows.clear();
    this.loading = true;
    rowsBySession.delete(this.session);
    const session = (this.session = nonce());
    rowsBySession.set(session, (rows) => {
      for (const r of rows) this.rows.set(r.key, r);
      void this.post({ type: 'rows', rows, done: false, total: this.rows.size });
    });
    await this.post({ type: 'run', runDir, title: this.title, labels: this.labels });
    try {
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `XRepoTest: reading the results of ${this.title}`, cancellable: true },
        (_progress, token) => this.engine.request(ANNOTATOR_OPEN_RUN, { runDir, session }, token),
      );
      this.labels = result.labels;
      this.skipped = result.skipped;
    } finally {
      rowsBySession.delete(session);
      this.loading = false;
    }
    await this.post({ type: 'run', runDir, title: this.title, labels: this.labels });
    await this.post({ type: 'rows', rows: [], done: true, total: this.rows.size, skipped: this.skipped });
  }

  /** The view reloaded (shown again after being hidden): it gets what is known so far. */
  private async resend(): Promise<void> {
    await this.post({ type: 'run', runDir: this.runDir, title: this.title, labels: this.labels });
    await this.post({ type: 'rows', rows: [...this.rows.values()], done: !this.loading, total: this.rows.size, skipped: this.skipped });
  }

  private async receive(m: ViewMessage): Promise<void> {
    switch (m.type) {
      case 'ready':
        return this.resend();
      case 'rendered':
        this.rendered = m.report;
        return;
      case 'open':
        return this.open(m.key, m.what);
      case 'annotate': {
        const saved = await this.engine.request(ANNOTATOR_SAVE, { runDir: this.runDir, key: m.key, label: m.label, note: m.note });
        const annotation = saved.label === null ? null : { label: saved.label, note: saved.note, time: saved.time };
        const row = this.rows.get(m.key);
        if (row) row.annotation = annotation;
        await this.post({ type: 'annotation', key: m.key, annotation });
        return;
      }
      case 'export':
        return this.export();
    }
  }

  private fail(e: unknown): void {
    const message = e instanceof Error ? e.message : String(e);
    this.engine.log.error(`annotator: ${message}`);
    void this.post({ type: 'error', message });
    void vscode.window.showErrorMessage(`XRepoTest annotator: ${message}`);
  }

  private async export(): Promise<void> {
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'XRepoTest: exporting the annotated results', cancellable: true },
      (_p, token) => this.engine.request(ANNOTATOR_EXPORT, { runDir: this.runDir }, token),
    );
    this.onExported(result);
    await this.post({ type: 'exported', file: result.file, records: result.records, annotated: result.annotated });
    const said = `XRepoTest: exported ${result.records} results (${result.annotated} annotated) to ${result.file}`;
    if (result.bytes <= OPEN_EXPORT_MAX_BYTES) {
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(result.file));
      await vscode.window.showTextDocument(doc, { viewColumn: this.besideColumn(), preview: false });
      void vscode.window.showInformationMessage(said);
    } else if ((await vscode.window.showInformationMessage(`${said} (too big to open in the editor)`, 'Reveal')) === 'Reveal') {
      await vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(result.file));
    }
  }

  /** The focal file (the checkout's, asked for once per repository, else the task's own copy). */
  private async focalDocument(key: string, r: ResultResult): Promise<vscode.TextDocument> {
    let where = await this.engine.request(ANNOTATOR_LOCATE, { runDir: this.runDir, key });
    if (where.kind === 'ask') {
      const picked = await vscode.window.showOpenDialog({
        canSelectFolders: true,
        canSelectFiles: false,
        canSelectMany: false,
        openLabel: `Use as the checkout of ${where.repository}`,
        title: `Where is the checkout of ${where.repository}? (remembered in the run folder's checkouts.json)`,
      });
      if (picked?.[0]) {
        await this.engine.request(ANNOTATOR_REMEMBER_CHECKOUT, { runDir: this.runDir, repository: where.repository, checkout: picked[0].fsPath });
        where = await this.engine.request(ANNOTATOR_LOCATE, { runDir: this.runDir, key });
      } else {
        where = { kind: 'task', why: `no checkout of ${where.repository} was given` };
      }
    }
    if (where.kind === 'checkout') return vscode.workspace.openTextDocument(vscode.Uri.file(where.file));
    void vscode.window.showInformationMessage(`XRepoTest: showing the task's copy of ${r.file_path}: ${where.kind === 'task' ? where.why : ''}.`);
    return vscode.workspace.openTextDocument({ content: r.file_content, language: this.documentLanguage(r.xrt.language) });
  }

  private async open(key: string, what: OpenWhat): Promise<void> {
    const r = await this.engine.request(ANNOTATOR_RESULT, { runDir: this.runDir, key });
    let editor: vscode.TextEditor;
    if (what === 'transcript') {
      const t = await this.engine.request(ANNOTATOR_TRANSCRIPT, { runDir: this.runDir, key });
      const where = t.root ? await this.engine.request(ANNOTATOR_LOCATE, { runDir: this.runDir, key }) : undefined;
      const focal = where?.kind === 'checkout' ? where.file : undefined;
      editor = await this.transcripts.show(transcriptOfRecord(r, t, focal), { bases: [...(focal ? [path.dirname(focal)] : []), ...(t.root ? [t.root] : [])] }, {
        viewColumn: this.besideColumn(),
        title: `${r.function_name} · test ${r.xrt.sample + 1}${r.xrt.round > 0 ? ` (repair ${r.xrt.round})` : ''}`,
      });
    } else if (what === 'function' || what === 'coverage') {
      const doc = await this.focalDocument(key, r);
      const c = r.function_component;
      const range = new vscode.Range(c.start_line - 1, 0, c.end_line - 1, doc.lineAt(Math.min(c.end_line, doc.lineCount) - 1).text.length);
      editor = await vscode.window.showTextDocument(doc, { viewColumn: this.besideColumn(), preview: false, selection: what === 'function' ? range : new vscode.Range(range.start, range.start) });
      editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      if (what === 'coverage') this.decorateCoverage(editor, r);
    } else {
      const content = what === 'test' ? (r.test[0] ?? '') : logText(r);
      const doc = await vscode.workspace.openTextDocument({ content, language: what === 'test' ? this.documentLanguage(r.xrt.language) : 'log' });
      editor = await vscode.window.showTextDocument(doc, { viewColumn: this.besideColumn(), preview: false });
    }
    this.onOpened({ what, uri: editor.document.uri.toString(), languageId: editor.document.languageId });
  }

  private decorateCoverage(editor: vscode.TextEditor, r: ResultResult): void {
    const stats = r.coverage_stats[0];
    const covered = new Set(stats?.covered_line_numbers ?? []);
    const lines = (numbers: number[]): vscode.Range[] => numbers.filter((n) => n >= 1 && n <= editor.document.lineCount).map((n) => editor.document.lineAt(n - 1).range);
    editor.setDecorations(this.decorations.covered, lines([...covered]));
    editor.setDecorations(this.decorations.uncovered, lines((stats?.executable_line_numbers ?? []).filter((n) => !covered.has(n))));
    const summary = stats?.total_lines ? `${stats.covered_lines} of ${stats.total_lines} executable lines of ${r.function_name} covered (${stats.coverage}%)` : `no coverage was measured for ${r.function_name}`;
    vscode.window.setStatusBarMessage(`XRepoTest: ${summary}`, 15_000);
  }
}

/** A stored result's transcript: its phases as the server cut them from the log, the focal file in its checkout where it is known. */
function transcriptOfRecord(r: ResultResult, t: AnnotatorTranscript, focalFile: string | undefined): TranscriptSource {
  const x = r.xrt;
  const check = r.checks[0];
  const stats = r.coverage_stats[0];
  const passed = !!check?.tests;
  const summary = [
    ...(x.failure_label ? [x.failure_label] : []),
    stats?.total_lines ? `${stats.covered_lines} of ${stats.total_lines} lines of the function run` : 'no coverage measured',
    check?.invocation ? `calls ${r.function_name}` : `does not call ${r.function_name}`,
  ].join(' · ');
  return {
    functionName: r.function_name,
    file: focalFile ? vscode.workspace.asRelativePath(focalFile, false) : r.file_path,
    line: r.function_component.start_line,
    test: `test ${x.sample + 1}${x.round > 0 ? ` (repair ${x.round})` : ''} · ${writtenBy({ provider: x.provider ?? 'unknown', model: x.model ?? '', sample: x.sample, round: x.round })}${x.harness === 'release' ? " · scored by the release's harness" : ''}`,
    executor: t.executor,
    verdict: verdictOf({ compiled: !!check?.compilation, passed, failureCategory: x.failure_category }),
    summary,
    why: x.reason,
    error: x.error,
    phases: t.phases,
    log: t.log,
  };
}

/** The logs as an annotator reads them: why it failed first, then the test report, then the raw output. */
function logText(r: ResultResult): string {
  const x = r.xrt;
  const head = [
    `# ${r.function_name} (${r.file_path}), ${x.language}, test ${x.sample + 1}${x.round > 0 ? ` (repair ${x.round})` : ''}, ${x.provider ?? '?'} ${x.model ?? ''}`.trimEnd(),
    `# compiled: ${r.checks[0]?.compilation ? 'yes' : 'no'}; passed: ${r.checks[0]?.tests ? 'yes' : 'no'}; invoked the function: ${r.checks[0]?.invocation ? 'yes' : 'no'}`,
    ...(x.reason ? [`# why: ${x.reason}`] : []),
    ...(x.failure_category ? [`# failure category: ${x.failure_label ?? x.failure_category}${x.failure_rule ? ` (rule ${x.failure_rule})` : ''}`] : []),
    ...(x.failure_evidence ? [`# evidence: ${x.failure_evidence}`] : []),
    ...(x.error ? [`# error: ${x.error}`] : []),
    ...(x.harness === 'release' ? [`# scored by the release's harness; not recorded there: ${(x.not_recorded ?? []).join(', ')}`] : []),
  ];
  const cases = (x.test_report?.cases ?? []).map((c) => `#   ${c.status.padEnd(8)} ${c.name}${c.message ? `: ${c.message.split('\n')[0]}` : ''}`);
  return [...head, ...(cases.length ? ['# test cases:', ...cases] : []), '', ...(r.logs[0] ? [r.logs[0]] : ['(no log was recorded)'])].join('\n');
}

/** The "Open the annotator" command and its webview; the returned API is for the extension's tests. */
export function registerAnnotator(engine: Engine, transcripts: Transcripts): AnnotatorApi {
  const { context, client } = engine;
  const media = vscode.Uri.joinPath(context.extensionUri, 'media');
  const rowsBySession = new Map<string, (rows: ResultRow[]) => void>();
  let current: AnnotatorPanel | undefined;
  let lastOpened: ReturnType<AnnotatorApi['lastOpened']>;
  let lastExport: ExportResult | undefined;
  let lastPicks: ReturnType<AnnotatorApi['lastRunPicks']>;
  const decorations = coverageDecorations();

  context.subscriptions.push(
    decorations.covered,
    decorations.uncovered,
    client.onNotification(ANNOTATOR_ROWS, (n: RowsNotification) => rowsBySession.get(n.session)?.(n.rows)),
    vscode.commands.registerCommand('xrepotest.openAnnotator', async (runDirArg?: string | vscode.Uri) => {
      let runDir = runDirArg instanceof vscode.Uri ? runDirArg.fsPath : runDirArg;
      if (!runDir) {
        runDir = await pickRun(context, (items) => (lastPicks = items.map(({ label, description, detail, runDir }) => ({ label, description, detail, runDir }))));
        if (!runDir) return undefined;
      }
      runDir = path.resolve(runDir);
      // Ours, or a folder of the release's pipeline (results/<lang>/<mode>/<model>/), read as it is.
      if (!['results.jsonl', 'detailed_results.jsonl'].some((f) => fs.existsSync(path.join(runDir!, f)))) {
        void vscode.window.showErrorMessage(
          `XRepoTest: ${runDir} holds no results.jsonl nor the release's detailed_results.jsonl. Pick a run folder made by "XRepoTest: Run a benchmark…" or \`xrepotest bench --run-dir\`, or a results/<lang>/<mode>/<model>/ folder of the release.`,
        );
        return undefined;
      }
      if (!current) {
        const panel = vscode.window.createWebviewPanel(PANEL_TYPE, 'Annotator', vscode.ViewColumn.Active, {
          enableScripts: true,
          localResourceRoots: [media],
        });
        panel.webview.html = html(panel.webview, media);
        const opened = new AnnotatorPanel(panel, runDir, engine, (o) => (lastOpened = o), (e) => (lastExport = e), decorations, transcripts);
        panel.onDidDispose(() => {
          if (current === opened) current = undefined;
        });
        current = opened;
      } else {
        current.panel.reveal();
      }
      try {
        await current.load(runDir, rowsBySession);
      } catch (e) {
        const message = (e as Error).message;
        engine.log.error(`annotator: ${message}`);
        void vscode.window.showErrorMessage(`XRepoTest: could not read the run: ${message}`);
        return undefined;
      }
      return runDir;
    }),
  );

  return {
    state: () => current && { runDir: current.runDir, rows: current.rows.size, loading: current.loading, visible: current.panel.visible },
    lastRendered: () => current?.rendered,
    lastOpened: () => lastOpened,
    lastExport: () => lastExport,
    lastRunPicks: () => lastPicks,
    post: (message) => current?.post(message) ?? Promise.resolve(false),
  };
}
