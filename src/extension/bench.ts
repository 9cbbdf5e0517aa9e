import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  BenchArgsError,
  DEFAULT_BENCH_CONCURRENCY,
  exampleDataset,
  newRunFolder,
  runFolderName,
  validateBenchArgs,
  type BenchCommandArgs,
} from '../shared/bench-options';
import { BENCH_ACTIVITY, BENCH_PROGRESS, RUN_BENCHMARK, type BenchActivityParams, type BenchDataset, type BenchProgressParams, type RunBenchmarkParams, type RunBenchmarkResult } from '../shared/bench-protocol';
import { formatBenchNotification } from '../shared/bench-progress';
import { CONTEXT_MODE_NAMES, EXECUTOR_KINDS, PROVIDER_SETTINGS, type EngineSettings } from '../shared/protocol';
import type { Engine } from './engine';
import { reportWebviewHtml } from './report-webview-html';
import { pretendWorkspaceTrust, requireTrust } from './trust';
import { benchmarkNeedsTrust } from './trust-model';
import { choiceDescription, settingChoices } from './setting-choices';
import { engineSettings, requestSettings } from './settings';

/** What a run needs once the pickers (or the options object) have answered. */
interface BenchChoice {
  dataset: BenchDataset;
  overrides: Partial<EngineSettings>;
  limit?: number;
  lang?: string;
  runDir?: string;
  concurrency: number;
  open: boolean;
}

/** For the extension's tests: what a run showed, and a way to press its Cancel button. */
export interface BenchTestApi {
  /** Every progress notification received from the engine server. */
  readonly progress: BenchProgressParams[];
  /** Every activity notification (running tasks, phases, elapsed times, estimate) received. */
  readonly activity: BenchActivityParams[];
  /** Every line the progress notification showed, in order. */
  readonly messages: string[];
  /** The last report panel opened (undefined before any). */
  readonly reportPanel: vscode.WebviewPanel | undefined;
  /** Cancels the running benchmarks, as the notification's Cancel button does. */
  cancelAll(): void;
  /** Makes every trust check see this trust (undefined: the editor's own); code-server opens its workspace trusted. */
  pretendWorkspaceTrust(trusted: boolean | undefined): void;
}

/** `Request xrepotest/runBenchmark failed with message: …` says the request, not what to do. */
function userMessage(e: unknown): string {
  return ((e as Error).message ?? String(e)).replace(/^Request \S+ failed with message: /, '');
}

/** "Run a benchmark…": pick (or pass) a dataset and settings, run it in the engine server, show the results. */
export function registerBench({ client, request: send, log, context }: Engine): BenchTestApi {
  const progressEvents: BenchProgressParams[] = [];
  const activityEvents: BenchActivityParams[] = [];
  const messages: string[] = [];
  const listeners = new Map<string, (p: BenchProgressParams) => void>();
  const activityListeners = new Map<string, (a: BenchActivityParams) => void>();
  const active = new Set<vscode.CancellationTokenSource>();
  let reportPanel: vscode.WebviewPanel | undefined;

  context.subscriptions.push(
    client.onNotification(BENCH_PROGRESS, (p: BenchProgressParams) => {
      // Bounded: a long run sends one per result.
      if (progressEvents.length >= 10_000) progressEvents.shift();
      progressEvents.push(p);
      listeners.get(p.runDir)?.(p);
    }),
    client.onNotification(BENCH_ACTIVITY, (a: BenchActivityParams) => {
      // Bounded: one every few seconds of a run.
      if (activityEvents.length >= 10_000) activityEvents.shift();
      activityEvents.push(a);
      activityListeners.get(a.runDir)?.(a);
    }),
  );

  const resolveDataset = async (dataset: BenchCommandArgs['dataset']): Promise<BenchDataset | undefined> => {
    if (dataset === 'example') {
      const example = exampleDataset(context.extensionPath, fs.existsSync);
      if (!example) throw new BenchArgsError('the example dataset is missing from the extension\'s folder: reinstall the extension, or pick a JSONL file of tasks');
      return { kind: 'tasks', ...example };
    }
    if (dataset === 'workspace') {
      const folders = vscode.workspace.workspaceFolders ?? [];
      if (!folders.length) throw new BenchArgsError('no folder is open: open a repository\'s folder, or pick a JSONL file of tasks');
      const folder = folders.length === 1 ? folders[0] : await vscode.window.showWorkspaceFolderPick({ placeHolder: 'The folder whose functions to benchmark' });
      return folder && { kind: 'workspace', folder: folder.uri.fsPath };
    }
    return { kind: 'tasks', ...dataset };
  };

  const fromArgs = async (args: BenchCommandArgs): Promise<BenchChoice | undefined> => {
    const dataset = await resolveDataset(args.dataset);
    if (!dataset) return undefined;
    const overrides: Partial<EngineSettings> = {};
    if (args.provider) overrides.provider = args.provider;
    if (args.model !== undefined) overrides.model = args.model;
    if (args.mode) overrides.mode = args.mode;
    if (args.executor) overrides.executor = args.executor;
    return { dataset, overrides, limit: args.limit, lang: args.lang, runDir: args.runDir, concurrency: args.concurrency ?? DEFAULT_BENCH_CONCURRENCY, open: args.open ?? true };
  };

  const pickTasksFile = async (): Promise<BenchCommandArgs['dataset'] | undefined> => {
    const files = await vscode.window.showOpenDialog({ canSelectMany: false, openLabel: 'Use these tasks', filters: { 'Tasks (JSONL)': ['jsonl'] }, title: 'A JSONL file of tasks' });
    if (!files?.[0]) return undefined;
    const where = await vscode.window.showQuickPick(
      [
        { label: 'A manifest', detail: 'manifest.json: where each repository is checked out, and at which commit', id: 'manifest' as const },
        { label: 'A folder of checkouts', detail: '<folder>/<repository name> for each repository', id: 'repos' as const },
        { label: 'Neither', detail: 'the tasks carry their checkout paths (tasks extracted on this machine)', id: 'none' as const },
      ],
      { placeHolder: 'Where are the tasks\' repositories checked out?', ignoreFocusOut: true },
    );
    if (!where) return undefined;
    if (where.id === 'none') return { tasks: files[0].fsPath };
    const picked = await vscode.window.showOpenDialog(
      where.id === 'manifest'
        ? { canSelectMany: false, filters: { Manifest: ['json'] }, openLabel: 'Use this manifest' }
        : { canSelectMany: false, canSelectFiles: false, canSelectFolders: true, openLabel: 'Use this folder' },
    );
    if (!picked?.[0]) return undefined;
    return where.id === 'manifest' ? { tasks: files[0].fsPath, manifest: picked[0].fsPath } : { tasks: files[0].fsPath, repos: picked[0].fsPath };
  };

  /** The pickers, each defaulting to the settings; Escape anywhere ends without a run. */
  const pick = async (): Promise<BenchCommandArgs | undefined> => {
    const settings = engineSettings();
    const source = await vscode.window.showQuickPick(
      [
        { label: '$(beaker) The example dataset', detail: '25 tasks from five small projects, 5 per language', id: 'example' as const },
        { label: '$(file) A JSONL file of tasks…', detail: 'ours or the published XRepoTest files, with a manifest or a folder of checkouts', id: 'file' as const },
        { label: '$(folder) This workspace', detail: 'the open folder\'s functions that fit the size filter (settings xrepotest.extract.minLines / maxLines), run on the folder itself', id: 'workspace' as const },
      ],
      { title: 'XRepoTest benchmark (1/6): dataset', placeHolder: 'Which tasks to run', ignoreFocusOut: true },
    );
    if (!source) return undefined;
    const dataset = source.id === 'file' ? await pickTasksFile() : source.id;
    if (!dataset) return undefined;
    const pkg: unknown = context.extension.packageJSON;
    const provider = await vscode.window.showQuickPick(
      settingChoices(pkg, 'xrepotest.provider', PROVIDER_SETTINGS, settings.provider).map((c) => ({ label: c.label, description: choiceDescription(c) })),
      { title: 'XRepoTest benchmark (2/6): where tests come from', placeHolder: 'A model, or the offline baseline', ignoreFocusOut: true },
    );
    if (!provider) return undefined;
    let model = settings.model;
    if (provider.label !== 'baseline' && provider.label !== 'replay') {
      const typed = await vscode.window.showInputBox({
        title: 'XRepoTest benchmark (3/6): model',
        value: settings.model,
        prompt: `The ${provider.label} model`,
        ignoreFocusOut: true,
        validateInput: (v) => (v.trim() ? undefined : 'the provider needs a model name'),
      });
      if (typed === undefined) return undefined;
      model = typed.trim();
    }
    const mode = await vscode.window.showQuickPick(settingChoices(pkg, 'xrepotest.mode', CONTEXT_MODE_NAMES, settings.mode).map((c) => ({ label: c.label, description: choiceDescription(c) })), {
      title: 'XRepoTest benchmark (4/6): context (what the model sees besides the function)',
      ignoreFocusOut: true,
    });
    if (!mode) return undefined;
    const executor = await vscode.window.showQuickPick(settingChoices(pkg, 'xrepotest.executor', EXECUTOR_KINDS, settings.executor).map((c) => ({ label: c.label, description: choiceDescription(c) })), {
      title: 'XRepoTest benchmark (5/6): where tests run',
      ignoreFocusOut: true,
    });
    if (!executor) return undefined;
    const limit = await vscode.window.showInputBox({
      title: 'XRepoTest benchmark (6/6): how many tasks',
      prompt: 'Only the first n tasks (empty: all of them)',
      ignoreFocusOut: true,
      validateInput: (v) => (!v.trim() || /^[1-9]\d*$/.test(v.trim()) ? undefined : 'a whole number, 1 or more, or empty for all'),
    });
    if (limit === undefined) return undefined;
    const folder = await vscode.window.showQuickPick(
      [
        { label: '$(new-folder) A new run folder', detail: 'under the extension\'s storage', id: 'new' as const },
        { label: '$(folder-opened) Another folder…', detail: 'an earlier run\'s folder resumes it (same settings)', id: 'choose' as const },
      ],
      { title: 'XRepoTest benchmark: run folder', ignoreFocusOut: true },
    );
    if (!folder) return undefined;
    let runDir: string | undefined;
    if (folder.id === 'choose') {
      const chosen = await vscode.window.showOpenDialog({ canSelectFiles: false, canSelectFolders: true, canSelectMany: false, openLabel: 'Run here' });
      if (!chosen?.[0]) return undefined;
      runDir = chosen[0].fsPath;
    }
    return {
      dataset,
      provider: provider.label as BenchCommandArgs['provider'],
      model,
      mode: mode.label as BenchCommandArgs['mode'],
      executor: executor.label as BenchCommandArgs['executor'],
      limit: limit.trim() ? Number(limit.trim()) : undefined,
      runDir,
    };
  };

  const openReport = async (file: string): Promise<void> => {
    const nonce = randomBytes(18).toString('base64');
    const html = reportWebviewHtml(await fs.promises.readFile(file, 'utf8'), nonce);
    reportPanel?.dispose();
    // No scripts and no local files: the report is one self-contained page.
    const panel = vscode.window.createWebviewPanel('xrepotest.report', 'XRepoTest report', vscode.ViewColumn.Active, { enableScripts: false, localResourceRoots: [] });
    panel.webview.html = html;
    panel.onDidDispose(() => reportPanel === panel && (reportPanel = undefined));
    reportPanel = panel;
  };

  const openResults = async (result: RunBenchmarkResult): Promise<void> => {
    if ((await vscode.commands.getCommands(true)).includes('xrepotest.openAnnotator')) {
      await vscode.commands.executeCommand('xrepotest.openAnnotator', result.runDir).then(undefined, (e: unknown) => log.error(`the annotator did not open: ${userMessage(e)}`));
    } else log.info('the annotator is not available in this build: open results.jsonl in the run folder instead');
    if (result.reports.html) await openReport(result.reports.html);
  };

  const announce = (result: RunBenchmarkResult, rerun: () => Thenable<unknown>): void => {
    const pooled = result.summary;
    const rates = result.results ? `CSR ${pooled.compiled_rate.toFixed(1)}%, TPR ${pooled.test_pass_rate.toFixed(1)}%, Cov ${pooled.line_coverage.toFixed(1)}%` : 'no result yet';
    const text = result.interrupted
      ? `XRepoTest: benchmark cancelled; ${result.results} of ${result.tasks} results are kept (${rates}). Resume runs the rest in the same folder.`
      : `XRepoTest: benchmark done, ${result.results} results for ${result.tasks} tasks: ${rates}${result.excluded ? `; ${result.excluded} tasks excluded (see excluded.jsonl)` : ''}.`;
    const actions = result.interrupted ? ['Resume', 'Open folder', 'Show summary'] : ['Open folder', 'Show summary'];
    void vscode.window.showInformationMessage(text, ...actions).then((action) => {
      if (action === 'Resume') void rerun();
      // A new window on the folder: the run's files in the explorer, in the desktop and the web alike.
      else if (action === 'Open folder') void vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(result.runDir), { forceNewWindow: true });
      else if (action === 'Show summary') log.show(true);
    });
  };

  const run = async (choice: BenchChoice): Promise<RunBenchmarkResult | undefined> => {
    const request = await requestSettings(context.secrets, choice.overrides);
    const runDir =
      choice.runDir ?? newRunFolder(path.join(context.globalStorageUri.fsPath, 'runs'), runFolderName(new Date(), request.settings.provider, request.settings.mode), fs.existsSync);
    const params: RunBenchmarkParams = { ...request, dataset: choice.dataset, runDir, limit: choice.limit, lang: choice.lang, concurrency: choice.concurrency };
    log.info(`benchmark: ${JSON.stringify({ dataset: choice.dataset, provider: request.settings.provider, model: request.settings.model, mode: request.settings.mode, executor: request.settings.executor, limit: choice.limit, lang: choice.lang })} into ${runDir}`);
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'XRepoTest benchmark', cancellable: true },
      async (progress, token) => {
        const source = new vscode.CancellationTokenSource();
        const linked = token.onCancellationRequested(() => source.cancel());
        active.add(source);
        let shown = 0;
        let lastProgress: BenchProgressParams | undefined;
        let lastActivity: BenchActivityParams | undefined;
        const show = (message: string, percent: number): void => {
          if (messages.length >= 10_000) messages.shift();
          messages.push(message);
          progress.report({ message, increment: Math.max(0, percent - shown) });
          shown = Math.max(shown, percent);
        };
        const update = (): void => {
          const done = Math.max(lastProgress?.tasksDone ?? 0, lastActivity?.tasksDone ?? 0);
          const total = lastProgress?.tasksTotal ?? lastActivity?.tasksTotal ?? 0;
          show(formatBenchNotification(lastProgress, lastActivity), total ? (100 * done) / total : 0);
        };
        show('loading tasks…', 0);
        listeners.set(runDir, (p) => {
          lastProgress = p;
          update();
        });
        activityListeners.set(runDir, (a) => {
          lastActivity = a;
          update();
        });
        try {
          return await send(RUN_BENCHMARK, params, source.token);
        } finally {
          listeners.delete(runDir);
          activityListeners.delete(runDir);
          linked.dispose();
          active.delete(source);
          source.dispose();
        }
      },
    );
    log.info(`benchmark ${result.interrupted ? 'cancelled' : 'done'} in ${result.runDir} (engine server pid ${result.pid}):\n${result.summaryText}`);
    if (choice.open && result.results) await openResults(result);
    if (choice.open) announce(result, () => run({ ...choice, runDir: result.runDir }));
    return result;
  };

  context.subscriptions.push(
    vscode.commands.registerCommand('xrepotest.runBenchmark', async (options?: unknown) => {
      try {
        // An options object (automation, tests) skips the pickers.
        const args = options === undefined ? await pick() : validateBenchArgs(options);
        if (args && benchmarkNeedsTrust(args.dataset) && !requireTrust('A benchmark of this workspace')) return undefined;
        const choice = args && (await fromArgs(args));
        return choice ? await run(choice) : undefined;
      } catch (e) {
        const message = userMessage(e);
        log.error(`benchmark failed: ${message}`);
        void vscode.window.showErrorMessage(`XRepoTest: ${message}`, 'Show log').then((a) => a && log.show(true));
        if (options !== undefined) throw e instanceof BenchArgsError ? e : new Error(message);
        return undefined;
      }
    }),
  );

  return {
    progress: progressEvents,
    activity: activityEvents,
    messages,
    get reportPanel() {
      return reportPanel;
    },
    cancelAll() {
      for (const source of active) source.cancel();
    },
    pretendWorkspaceTrust,
  };
}
