import * as path from 'node:path';
import * as vscode from 'vscode';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';

let client: LanguageClient | undefined;

/** A thin client: the engine runs in the server process (dist/server.js), never in the extension host. */
export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const serverModule = context.asAbsolutePath(path.join('dist', 'server.js'));
  const serverOptions: ServerOptions = {
    run: { module: serverModule, transport: TransportKind.ipc },
    debug: { module: serverModule, transport: TransportKind.ipc },
  };
  const config = vscode.workspace.getConfiguration('xrepotest');
  const clientOptions: LanguageClientOptions = {
    documentSelector: ['rust', 'go', 'php', 'ruby', 'julia'].map((language) => ({ scheme: 'file', language })),
    initializationOptions: {
      minLines: config.get<number>('extract.minLines', 20),
      maxLines: config.get<number>('extract.maxLines', 50),
    },
    outputChannel: vscode.window.createOutputChannel('XRepoTest', { log: true }),
  };
  client = new LanguageClient('xrepotest', 'XRepoTest engine', serverOptions, clientOptions);
  await client.start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
