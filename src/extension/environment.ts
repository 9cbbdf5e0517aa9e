import * as vscode from 'vscode';
import { CHECK_ENVIRONMENT, CHECK_PROJECT, type CheckEnvironmentResult, type CheckProjectResult } from '../shared/protocol';
import type { EnvironmentVerdictResult, ScoreFunctionResult, VerdictAction } from '../shared/scoring-protocol';
import type { Engine } from './engine';
import { EngineNotRunningError } from './engine-start';
import { actionNamed, fixActions, fixSection, statusOf } from './environment-model';
import { onDidScoreFunction } from './scoring';
import { onDidWarmLanguage } from './warm-up';

/** Where a scored function is: "Try again" scores it again. */
interface ScoredAt {
  uri: string;
  startLine: number;
}

/** What "Check the environment" returns when the engine server is not running: why, and what to do. */
export interface EngineNotRunning {
  engineNotRunning: string;
}

/** For the extension's own tests and other extensions: what the status bar and the environment output say now. */
export interface EnvironmentApi {
  status(): { text: string; tooltip: string };
  /** The environment output's text (the last check, and the last "How to fix" section below it). */
  outputText(): string;
}

/**
 * The status bar item (can the open workspace's languages run here, with the chosen executor?) and
 * the commands that say what is missing and how a user installs it. The check is the engine's, so
 * it runs in the engine server; when the server is down the command reports that instead (why it is
 * down is then what the user needs, and the extension host never loads the engine).
 */
export function registerEnvironment({ request, log, context }: Engine): EnvironmentApi {
  const status = vscode.window.createStatusBarItem('xrepotest.status', vscode.StatusBarAlignment.Left, 10);
  status.name = 'XRepoTest';
  status.command = 'xrepotest.checkEnvironment';
  status.text = '$(beaker) XRepoTest';
  status.tooltip = 'XRepoTest: checking what this machine can run…';
  status.show();
  const output = vscode.window.createOutputChannel('XRepoTest: Environment');
  context.subscriptions.push(status, output);
  let lastCheck = '';
  let fixNote = '';
  let lastReport: CheckEnvironmentResult | undefined;
  /** The last scoring's verdict per language: the machine check cannot see a project's bundle or build. */
  const scoredVerdicts: Record<string, EnvironmentVerdictResult | undefined> = {};
  /** A scoring's or a warm-up's word on a language (none: it ran), and the status bar redrawn with it. */
  const noteVerdict = (language: string, v: EnvironmentVerdictResult | undefined): void => {
    scoredVerdicts[language] = v;
    if (!lastReport) return;
    const view = statusOf(lastReport, scoredVerdicts);
    status.text = view.text;
    status.tooltip = view.tooltip;
  };
  const onScored = (r: ScoreFunctionResult): void => {
    const language = vscode.workspace.textDocuments.find((d) => d.uri.toString() === r.uri)?.languageId;
    // A test that ran clears it: the project runs here now.
    if (language) noteVerdict(language, r.environment);
  };
  const writeOutput = (): void => {
    // The fix last: the output shows its end.
    output.replace([lastCheck, fixNote && `── How to fix ──\n${fixNote}`].filter(Boolean).join('\n\n'));
  };

  const check = async (): Promise<CheckEnvironmentResult | EngineNotRunning> => {
    let report: CheckEnvironmentResult;
    try {
      report = await request(CHECK_ENVIRONMENT, { executor: vscode.workspace.getConfiguration('xrepotest').get<string>('executor', 'local') });
    } catch (e) {
      if (!(e instanceof EngineNotRunningError)) throw e;
      status.text = '$(error) XRepoTest: engine not running';
      status.tooltip = e.message;
      return { engineNotRunning: e.message };
    }
    lastReport = report;
    const view = statusOf(report, scoredVerdicts);
    status.text = view.text;
    status.tooltip = view.tooltip;
    lastCheck = `XRepoTest: Check the environment (${new Date().toLocaleString()})\n\n${report.text}`;
    writeOutput();
    log.info(`environment: ${view.text.replace(/^\$\([a-z-]+\) /, '')}`);
    return report;
  };
  const recheck = (): void => void check().catch((e: Error) => log.error(`environment check failed: ${e.message}`));
  recheck();

  const act = async (picked: string | undefined, v?: EnvironmentVerdictResult, text?: string, at?: ScoredAt): Promise<void> => {
    const action = v && actionNamed(v, picked);
    if (action) return runAction(action, at);
    if (picked === 'Copy command' && v?.command) await vscode.env.clipboard.writeText(v.command);
    else if (picked === 'Copy' && text) await vscode.env.clipboard.writeText(text);
    else if (picked === 'Open settings') await vscode.commands.executeCommand('workbench.action.openSettings', v?.setting ?? 'xrepotest.executor');
    else if (picked === 'Check the environment') await vscode.commands.executeCommand('xrepotest.checkEnvironment');
  };

  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('xrepotest.executor') && recheck()),
    // A scoring the machine stopped may be the first the status bar hears of a language (a new file).
    // A warm-up's verdict (or a language now ready) is as good as a scoring's.
    onDidWarmLanguage.event((w) => noteVerdict(w.language, w.environment)),
    onDidScoreFunction.event((r) => {
      onScored(r);
      if (r.environment) recheck();
    }),
    vscode.commands.registerCommand('xrepotest.checkEnvironment', async () => {
      const report = await check();
      if ('engineNotRunning' in report) {
        log.error(report.engineNotRunning);
        void vscode.window.showErrorMessage(`XRepoTest: ${report.engineNotRunning}`, 'Show log').then((picked) => picked && log.show(true));
        return report;
      }
      output.show(true);
      const blocked = statusOf(report, scoredVerdicts).blocked;
      const summary = blocked.length
        ? `XRepoTest: ${blocked.map((b) => b.displayName).join(', ')} can't run here with the ${report.executor} executor. The "XRepoTest: Environment" output says how to fix it.`
        : `XRepoTest: this workspace's languages run here with the ${report.executor} executor.`;
      const show = blocked.length ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
      void show(summary, 'Copy', 'Open settings').then((picked) => act(picked, undefined, report.text));
      return report;
    }),
    // The lens's action on an environment verdict: the cause, the fix, and a button for it.
    vscode.commands.registerCommand('xrepotest.checkProject', (folder?: string) => checkProject(folder)),
    vscode.commands.registerCommand('xrepotest.howToFixEnvironment', async (v?: EnvironmentVerdictResult, functionName?: string, at?: ScoredAt) => {
      // From a Testing message's button the argument is the message, not a verdict: the full check says what is missing.
      if (!v || typeof v.cause !== 'string') return vscode.commands.executeCommand('xrepotest.checkEnvironment');
      fixNote = fixSection(v, functionName);
      writeOutput();
      output.show(true);
      void vscode.window.showWarningMessage(`XRepoTest can't run this test here: ${v.cause}. How to fix: ${v.fix}.`, ...fixActions(v)).then((picked) => act(picked, v, undefined, at));
      return fixNote;
    }),
  );
  /** An environment verdict's action, as the editor does it. */
  async function runAction(action: VerdictAction, at?: ScoredAt): Promise<void> {
    switch (action.kind) {
      case 'retry':
        // The build that was cut short continues (its work was kept), before any model is asked again.
        if (at) await vscode.commands.executeCommand('xrepotest.generateScoredTests', at.uri, at.startLine);
        return;
      case 'setting':
        await vscode.commands.executeCommand('workbench.action.openSettings', action.setting);
        return;
      case 'terminal': {
        // Typed, not run: the user reads it and presses Enter (a fix can quote what a project printed).
        const terminal = vscode.window.createTerminal({ name: 'XRepoTest: fix', cwd: action.cwd });
        terminal.show();
        terminal.sendText(action.command, false);
        return;
      }
      case 'check-project':
        await vscode.commands.executeCommand('xrepotest.checkProject', action.folder);
        return;
      case 'check-environment':
        await vscode.commands.executeCommand('xrepotest.checkEnvironment');
    }
  }

  /** "Check this project": does the folder's own code build here, untouched; the answer in the environment output. */
  async function checkProject(folder?: string): Promise<CheckProjectResult | undefined> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    const chosen =
      folder ??
      (folders.length === 1
        ? folders[0].uri.fsPath
        : (await vscode.window.showWorkspaceFolderPick({ placeHolder: 'Which folder should XRepoTest check (does it build here)?' }))?.uri.fsPath);
    if (!chosen) return undefined;
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage('XRepoTest: checking a project builds its code; trust this workspace first.');
      return undefined;
    }
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `XRepoTest: checking ${chosen}`, cancellable: true },
      (_p, token) => request(CHECK_PROJECT, { folder: chosen, executor: vscode.workspace.getConfiguration('xrepotest').get<string>('executor', 'local') }, token),
    );
    fixNote = [`XRepoTest: Check this project (${new Date().toLocaleString()})`, '', result.text, ...result.problems.map((pr) => `\n${pr.cause}\nHow to fix: ${pr.fix}`)].join('\n');
    writeOutput();
    output.show(true);
    const say = result.problems.length ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    void say(result.problems.length ? `XRepoTest: ${result.problems[0].cause}. The "XRepoTest: Environment" output says how to fix it.` : `XRepoTest: ${chosen} builds here.`);
    return result;
  }

  return { status: () => ({ text: status.text, tooltip: typeof status.tooltip === 'string' ? status.tooltip : (status.tooltip?.value ?? '') }), outputText: () => [lastCheck, fixNote].filter(Boolean).join('\n\n') };
}
