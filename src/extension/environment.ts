import * as vscode from 'vscode';
import { CHECK_ENVIRONMENT, type CheckEnvironmentResult } from '../shared/protocol';
import type { Engine } from './engine';
import { EngineNotRunningError } from './engine-start';

/** What "Check the environment" returns when the engine server is not running: why, and what to do. */
export interface EngineNotRunning {
  engineNotRunning: string;
}

/**
 * The status bar item (the engine's state at a glance) and the command that says what is missing.
 * The check is the engine's, so it runs in the engine server; when the server is down the command
 * reports that instead (why it is down is then what the user needs, and the extension host never
 * loads the engine).
 */
export function registerEnvironment({ request, log, context }: Engine): void {
  const status = vscode.window.createStatusBarItem('xrepotest.status', vscode.StatusBarAlignment.Left, 10);
  status.name = 'XRepoTest';
  status.command = 'xrepotest.checkEnvironment';
  status.text = '$(beaker) XRepoTest';
  status.tooltip = 'XRepoTest: checking what this machine can run…';
  status.show();
  context.subscriptions.push(status);

  const check = async (): Promise<CheckEnvironmentResult | EngineNotRunning> => {
    let report: CheckEnvironmentResult;
    try {
      report = await request(CHECK_ENVIRONMENT, {});
    } catch (e) {
      if (!(e instanceof EngineNotRunningError)) throw e;
      status.text = '$(error) XRepoTest: engine not running';
      status.tooltip = e.message;
      return { engineNotRunning: e.message };
    }
    const runnable = report.languages.filter((l) => !l.local || 'image' in l.docker).map((l) => l.language);
    const engine = 'description' in report.engine ? 'docker ✓' : 'docker ✗';
    status.text = `$(beaker) XRepoTest: ${engine} · ${runnable.join(' ') || 'no language'}${report.missing.length ? ` · ${report.missing.length} missing` : ''}`;
    status.tooltip = report.text;
    log.info(`environment:\n${report.text}`);
    return report;
  };
  void check().catch((e: Error) => log.error(`environment check failed: ${e.message}`));

  context.subscriptions.push(
    vscode.commands.registerCommand('xrepotest.checkEnvironment', async () => {
      const report = await check();
      if ('engineNotRunning' in report) {
        log.error(report.engineNotRunning);
        void vscode.window.showErrorMessage(`XRepoTest: ${report.engineNotRunning}`, 'Show log').then((picked) => picked && log.show(true));
        return report;
      }
      const action = report.missing.length ? 'Show what to install' : undefined;
      const summary = report.missing.length ? `XRepoTest: ${report.missing.length} pieces missing.` : 'XRepoTest: everything is installed.';
      void vscode.window.showInformationMessage(summary, ...(action ? [action] : [])).then((picked) => picked && log.show());
      return report;
    }),
  );
}
