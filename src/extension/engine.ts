import type * as vscode from 'vscode';
import { LSPErrorCodes, ResponseError } from 'vscode-languageclient/node';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { ClientRequest } from '../shared/wire';
import type { EngineServer } from './engine-start';

/** What the extension's features share: the engine server's client, the log, the extension context. */
export interface Engine {
  /** For handlers of the server's own requests and notifications (registered before it starts, kept across restarts). */
  client: LanguageClient;
  log: vscode.LogOutputChannel;
  context: vscode.ExtensionContext;
  /** The server's state: starting, running, or why it did not start. */
  server: EngineServer;
  /** A request to the engine server, once it runs; an EngineNotRunningError saying what to do when it does not. */
  request<P, R>(type: ClientRequest<P, R>, params: P, token?: vscode.CancellationToken): Promise<R>;
}

/** Whether a request ended because the user cancelled it (nothing to report as an error). */
export function wasCancelled(e: unknown): boolean {
  return e instanceof ResponseError && e.code === LSPErrorCodes.RequestCancelled;
}
