import * as vscode from 'vscode';
import { CHECK_ENVIRONMENT, type CheckEnvironmentResult } from '../shared/protocol';
import type { Engine } from './engine';

/** The status bar item (the engine's state at a glance) and the command that says what is missing. */
export function registerEnvironment({ client, log, context }: Engine): void {
  const status = vscode.window.createStatusBarItem('xrepotest.status', vscode.StatusBarAlignment.Left, 10);
  status.name = 'XRepoTest';
  status.command = 'xrepotest.checkEnvironment';
  status.text = '$(beaker) XRepoTest';
  status.tooltip = 'XRepoTest: checking what this machine can run…';
  status.show();
  context.subscriptions.push(status);

  const check = async (): Promise<CheckEnvironmentResult> => {
    const report = await client.sendRequest<CheckEnvironmentResult>(CHECK_ENVIRONMENT);
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
      const action = report.missing.length ? 'Show what to install' : undefined;
      const summary = report.missing.length ? `XRepoTest: ${report.missing.length} pieces missing.` : 'XRepoTest: everything is installed.';
      void vscode.window.showInformationMessage(summary, ...(action ? [action] : [])).then((picked) => picked && log.show());
      return report;
    }),
  );
}
