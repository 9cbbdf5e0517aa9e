import * as path from 'node:path';
import * as vscode from 'vscode';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import { SETTINGS_CHANGED, type EngineStartOptions } from '../shared/protocol';
import { registerBridge } from './bridge';
import { registerChat, type ChatTestApi } from './chat';
import { registerAnnotator, type AnnotatorApi } from './annotator';
import { registerBench, type BenchTestApi } from './bench';
import type { Engine } from './engine';
import { EngineServer, registerThenStart, serverClientOf } from './engine-start';
import { registerEnvironment, type EnvironmentApi } from './environment';
import { registerFirstRun, type FirstRunApi } from './first-run';
import { editorLanguages } from './languages';
import { registerLmTools, type LmToolsTestApi } from './lm-tools';
import { registerScoring } from './scoring';
import { apiKeyChoices } from './setting-choices';
import { API_KEY_SECRETS, engineSettings } from './settings';
import { registerTesting, type TestingApi } from './testing';
import { registerTranscripts } from './transcript';
import { registerWarmUp, type WarmUpApi } from './warm-up';

let client: LanguageClient | undefined;

/**
 * A thin client: the engine runs in the server process (dist/server.js), never in the extension host.
 * Every command is registered before the server starts, so one that fails to start leaves them all
 * answering (with what failed and what to do), "Check the environment" included.
 */
export async function activate(context: vscode.ExtensionContext): Promise<Engine & { annotator: AnnotatorApi; testing: TestingApi; bench: BenchTestApi; environment: EnvironmentApi; firstRun: FirstRunApi; lmTools: LmToolsTestApi; chat: ChatTestApi; warmUp: WarmUpApi }> {
  const serverModule = context.asAbsolutePath(path.join('dist', 'server.js'));
  const serverOptions: ServerOptions = {
    run: { module: serverModule, transport: TransportKind.ipc },
    debug: { module: serverModule, transport: TransportKind.ipc },
  };
  const log = vscode.window.createOutputChannel('XRepoTest', { log: true });
  const clientOptions: LanguageClientOptions = {
    documentSelector: editorLanguages(context.extension.packageJSON).ids.map((language) => ({ scheme: 'file', language })),
    initializationOptions: { ...engineSettings(), storagePath: (context.storageUri ?? context.globalStorageUri).fsPath } satisfies EngineStartOptions,
    outputChannel: log,
    middleware: { provideCodeLenses: withLensTooltips },
  };
  const languageClient = (client = new LanguageClient('xrepotest', 'XRepoTest engine', serverOptions, clientOptions));
  const server = new EngineServer(serverClientOf(languageClient));
  const engine: Engine = { client: languageClient, log, context, server, request: (type, params, token) => server.request(type, params, token) };
  context.subscriptions.push(log);
  return registerThenStart(() => ({ ...engine, ...registerFeatures(engine) }), server, (message) => {
    log.error(message);
    void vscode.window.showErrorMessage(`XRepoTest: ${message}`, 'Show log').then((picked) => picked && log.show(true));
  });
}

/**
 * Lens tooltips: the protocol's Command has no tooltip, so the server sends it as the lens's `data`
 * (a lens without a resolve step keeps its data untouched) and it is set on the command here.
 */
async function withLensTooltips(
  document: vscode.TextDocument,
  token: vscode.CancellationToken,
  next: (document: vscode.TextDocument, token: vscode.CancellationToken) => vscode.ProviderResult<vscode.CodeLens[]>,
): Promise<vscode.CodeLens[] | null | undefined> {
  const lenses = await next(document, token);
  for (const lens of lenses ?? []) {
    const tooltip = (lens as vscode.CodeLens & { data?: { tooltip?: unknown } }).data?.tooltip;
    if (lens.command && typeof tooltip === 'string') lens.command.tooltip = tooltip;
  }
  return lenses;
}

/** Every command, view and handler of the extension; none of them needs the server to be running yet. */
function registerFeatures(engine: Engine): { annotator: AnnotatorApi; testing: TestingApi; bench: BenchTestApi; environment: EnvironmentApi; firstRun: FirstRunApi; lmTools: LmToolsTestApi; chat: ChatTestApi; warmUp: WarmUpApi } {
  const { client, log, context } = engine;
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('xrepotest') && client.isRunning()) void client.sendNotification(SETTINGS_CHANGED, engineSettings()).catch((err: Error) => log.warn(`the settings did not reach the engine server: ${err.message}`));
    }),
    vscode.commands.registerCommand('xrepotest.setApiKey', async (provider?: string, key?: string) => {
      const which =
        provider ??
        (
          await vscode.window.showQuickPick(apiKeyChoices(context.extension.packageJSON, Object.keys(API_KEY_SECRETS), engineSettings().provider), {
            title: 'XRepoTest: Set an API key',
            placeHolder: 'The provider whose API key to store (kept in the editor\'s secret storage)',
          })
        )?.label;
      if (!which || !API_KEY_SECRETS[which]) return false;
      // A key passed as an argument comes from automation (tests, another extension's setup step).
      const value = key ?? (await vscode.window.showInputBox({ prompt: `API key for ${which} (kept in the editor's secret storage)`, password: true, ignoreFocusOut: true }));
      if (!value) return false;
      await context.secrets.store(API_KEY_SECRETS[which], value);
      log.info(`stored the ${which} API key in secret storage`);
      // Said, not silent: the key is kept (never shown again), and whether the settings use it.
      const uses = which === 'embedding' ? engineSettings().mode === 'dense' : engineSettings().provider === which;
      void vscode.window.showInformationMessage(
        `XRepoTest: the ${which} API key is stored in the editor's secret storage.${uses ? '' : which === 'embedding' ? ' It is used in context mode "dense".' : ` The provider setting is "${engineSettings().provider}": choose ${which} to use it.`}`,
        ...(uses ? [] : ['Choose a model…']),
      ).then((picked) => picked && vscode.commands.executeCommand('xrepotest.chooseModel'));
      return true;
    }),
  );
  const environment = registerEnvironment(engine);
  registerScoring(engine);
  registerBridge(engine);
  const chat = registerChat(engine);
  const lmTools = registerLmTools(engine);
  const testing = registerTesting(engine);
  const annotator = registerAnnotator(engine, registerTranscripts(engine, testing));
  const bench = registerBench(engine);
  return { annotator, testing, bench, environment, firstRun: registerFirstRun(engine), lmTools, chat, warmUp: registerWarmUp(engine) };
}

export async function deactivate(): Promise<void> {
  await client?.stop().catch(() => undefined);
}
