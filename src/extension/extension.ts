import * as path from 'node:path';
import * as vscode from 'vscode';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import { CHECK_ENVIRONMENT, SCORE_FUNCTION, type CheckEnvironmentResult, type EngineSettings, type ScoreFunctionResult } from '../shared/protocol';

/** Where API keys live: the editor's secret storage, never settings or logs. */
const API_KEY_SECRETS: Record<string, string> = {
  anthropic: 'xrepotest.apiKey.anthropic',
  openai: 'xrepotest.apiKey.openai',
  'openai-compatible': 'xrepotest.apiKey.openaiCompatible',
};

let client: LanguageClient | undefined;

/** A thin client: the engine runs in the server process (dist/server.js), never in the extension host. */
export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const serverModule = context.asAbsolutePath(path.join('dist', 'server.js'));
  const serverOptions: ServerOptions = {
    run: { module: serverModule, transport: TransportKind.ipc },
    debug: { module: serverModule, transport: TransportKind.ipc },
  };
  const config = vscode.workspace.getConfiguration('xrepotest');
  const log = vscode.window.createOutputChannel('XRepoTest', { log: true });
  const clientOptions: LanguageClientOptions = {
    documentSelector: ['rust', 'go', 'php', 'ruby', 'julia'].map((language) => ({ scheme: 'file', language })),
    initializationOptions: {
      minLines: config.get<number>('extract.minLines', 20),
      maxLines: config.get<number>('extract.maxLines', 50),
      provider: config.get<string>('provider', 'baseline'),
      executor: config.get<'local' | 'docker'>('executor', 'local'),
      testTimeoutSeconds: config.get<number>('limits.testTimeoutSeconds', 300),
      memoryMb: config.get<number>('limits.memoryMb', 2048),
    } satisfies EngineSettings,
    outputChannel: log,
  };
  client = new LanguageClient('xrepotest', 'XRepoTest engine', serverOptions, clientOptions);
  await client.start();

  // The engine's state at a glance; the command says what is missing and how to get it.
  const status = vscode.window.createStatusBarItem('xrepotest.status', vscode.StatusBarAlignment.Left, 10);
  status.name = 'XRepoTest';
  status.command = 'xrepotest.checkEnvironment';
  status.text = '$(beaker) XRepoTest';
  status.tooltip = 'XRepoTest: checking what this machine can run…';
  status.show();
  context.subscriptions.push(status, log);

  const check = async (): Promise<CheckEnvironmentResult | undefined> => {
    if (!client) return undefined;
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
      if (!report) return undefined;
      const action = report.missing.length ? 'Show what to install' : undefined;
      const summary = report.missing.length ? `XRepoTest: ${report.missing.length} pieces missing.` : 'XRepoTest: everything is installed.';
      void vscode.window.showInformationMessage(summary, ...(action ? [action] : [])).then((picked) => picked && log.show());
      return report;
    }),
    // From the code lens: generate a test for the function, run it in a disposable copy, score it. The
    // server reports progress (cancellable) and refreshes the lenses with the score.
    vscode.commands.registerCommand('xrepotest.generateScoredTests', async (uri: string, startLine: number) => {
      if (!client) return undefined;
      try {
        const result = await client.sendRequest<ScoreFunctionResult>(SCORE_FUNCTION, { uri, startLine });
        log.info(`${result.functionName}: ${result.summary}${result.reason ? ` — ${result.reason}` : ''}`);
        return result;
      } catch (e) {
        const message = (e as Error).message;
        log.error(`scoring failed: ${message}`);
        void vscode.window.showErrorMessage(`XRepoTest: ${message}`);
        return undefined;
      }
    }),
    vscode.commands.registerCommand('xrepotest.setApiKey', async (provider?: string) => {
      const which = provider ?? (await vscode.window.showQuickPick(Object.keys(API_KEY_SECRETS), { placeHolder: 'The provider whose API key to store' }));
      if (!which || !API_KEY_SECRETS[which]) return false;
      const key = await vscode.window.showInputBox({ prompt: `API key for ${which} (kept in the editor's secret storage)`, password: true, ignoreFocusOut: true });
      if (!key) return false;
      await context.secrets.store(API_KEY_SECRETS[which], key);
      log.info(`stored the ${which} API key in secret storage`);
      return true;
    }),
  );
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
