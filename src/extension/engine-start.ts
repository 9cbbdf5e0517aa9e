/**
 * Starting the engine server without ever leaving the extension without its commands: every command
 * and handler is registered first, the server is started after, and a request made while the server
 * is not running fails with a message that says what failed and what to do. No `vscode` import, so
 * plain Node unit tests load it (test/unit/wire.test.ts).
 */
import type { CancellationToken } from 'vscode-languageserver-protocol';
import type { ClientRequest } from '../shared/wire';

/** What the extension needs of its language client (vscode-languageclient's LanguageClient, or a test's fake). */
export interface ServerClient {
  start(): Promise<void>;
  isRunning(): boolean;
  sendRequest<P, R>(type: ClientRequest<P, R>, params: P, token?: CancellationToken): Promise<R>;
}

/** The calls of vscode-languageclient's LanguageClient that ServerClient is made of. */
export interface LanguageClientLike {
  start(): Promise<void>;
  isRunning(): boolean;
  sendRequest<R>(method: string, param: unknown, token?: CancellationToken): Promise<R>;
}

/**
 * The language client as a ServerClient. Requests go out by their declaration's method: a message
 * type built by another copy of vscode-jsonrpc (the editor suite's, another extension's through the
 * returned API) would be refused by the bundle's copy ("Unknown parameter structure"), and what is
 * sent is the same. A missing token is left out, not passed as undefined: the client would send it
 * as a second parameter.
 */
export function serverClientOf(client: LanguageClientLike): ServerClient {
  return {
    start: () => client.start(),
    isRunning: () => client.isRunning(),
    sendRequest: <P, R>(type: ClientRequest<P, R>, params: P, token?: CancellationToken): Promise<R> =>
      token ? client.sendRequest<R>(type.method, params, token) : client.sendRequest<R>(type.method, params),
  };
}

export type ServerStatus = { state: 'starting' } | { state: 'running' } | { state: 'failed'; reason: string };

/** A request the engine server could not take because it is not running; the message says why and what to do. */
export class EngineNotRunningError extends Error {}

/** `what` is what happened to the server (`did not start: …`, `stopped`). */
export function notRunningMessage(what: string): string {
  return (
    `the engine server ${what}. ` +
    'The "XRepoTest" output has its log. Run "Developer: Reload Window" to start it again; if it fails again, ' +
    'reinstall the extension, or run `xrepotest doctor` in a terminal to check this machine.'
  );
}

function reasonOf(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  return message.trim() || 'no reason given';
}

/** The engine server's state as the extension's features see it, and their one way to send it a request. */
export class EngineServer {
  private failure: string | undefined;
  private running = false;
  private readonly started: Promise<void>;
  private markStarted!: () => void;

  constructor(private readonly client: ServerClient) {
    // Requests made before start() (a feature's first check at registration) wait for it.
    this.started = new Promise((resolve) => (this.markStarted = resolve));
  }

  get status(): ServerStatus {
    if (this.failure !== undefined) return { state: 'failed', reason: this.failure };
    return this.running ? { state: 'running' } : { state: 'starting' };
  }

  /** Starts the server; never rejects (a failure is kept in `status` and told by each request). */
  async start(): Promise<ServerStatus> {
    try {
      await this.client.start();
      this.running = true;
    } catch (e) {
      this.failure = reasonOf(e);
    } finally {
      this.markStarted();
    }
    return this.status;
  }

  async request<P, R>(type: ClientRequest<P, R>, params: P, token?: CancellationToken): Promise<R> {
    await this.started;
    if (this.failure !== undefined) throw new EngineNotRunningError(notRunningMessage(`did not start (${this.failure})`));
    try {
      return await this.client.sendRequest(type, params, token);
    } catch (e) {
      // The client restarts a crashed server a few times, then gives up: say so, not "Client is not running".
      if (!this.client.isRunning()) throw new EngineNotRunningError(notRunningMessage(`stopped (${reasonOf(e)})`));
      throw e;
    }
  }
}

/**
 * The activation order: `register` (every command, view and handler) first, so a server that does
 * not start leaves them all in place; then the server, whose failure `onFailed` tells the user once.
 */
export async function registerThenStart<T>(register: () => T, server: EngineServer, onFailed: (message: string) => void): Promise<T> {
  const api = register();
  const status = await server.start();
  if (status.state === 'failed') onFailed(notRunningMessage(`did not start (${status.reason})`));
  return api;
}
