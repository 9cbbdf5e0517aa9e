import type * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';

/** What the extension's features share: the engine server's client, the log, the extension context. */
export interface Engine {
  client: LanguageClient;
  log: vscode.LogOutputChannel;
  context: vscode.ExtensionContext;
}
