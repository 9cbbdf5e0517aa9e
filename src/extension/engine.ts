import type * as vscode from 'vscode';
import { LSPErrorCodes, ResponseError } from 'vscode-languageclient/node';
import type { LanguageClient } from 'vscode-languageclient/node';

/** What the extension's features share: the engine server's client, the log, the extension context. */
export interface Engine {
  client: LanguageClient;
  log: vscode.LogOutputChannel;
  context: vscode.ExtensionContext;
}

/** Whether a request ended because the user cancelled it (nothing to report as an error). */
export function wasCancelled(e: unknown): boolean {
  return e instanceof ResponseError && e.code === LSPErrorCodes.RequestCancelled;
}
