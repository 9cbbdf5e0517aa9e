import { CancellationToken, type Connection } from 'vscode-languageserver/node';
import type { ScoreFunctionResult } from '../../src/shared/scoring-protocol';

type Handler = (params: unknown, token: CancellationToken) => Promise<unknown>;

export interface FakeConnection {
  connection: Connection;
  /** Calls the handler the server registered for a message (its method), as the extension's request would. */
  request<R = ScoreFunctionResult>(type: string | { method: string }, params: unknown): Promise<R>;
  /** The server's code lenses of a document. */
  codeLens(uri: string): Promise<unknown>;
  /** Every work-done progress message, in order. */
  progress: string[];
  /** Every notification the server sent, in order. */
  notifications: Array<{ method: string; params: unknown }>;
}

/**
 * The engine server's side of its connection without an editor: the handlers the server registers
 * (through the typed messages of src/shared, their params checked first) are kept and called directly.
 * For the integration tests and bench/first-score.ts.
 */
export interface ConnectionHooks {
  /** Each notification as the server sends it (a test may act on it before the server goes on). */
  onNotification?(method: string, params: unknown): void;
  /** The server asked the editor to ask for its code lenses again. */
  onLensRefresh?(): void;
}

export function fakeConnection(onProgress: (message: string) => void = () => undefined, hooks: ConnectionHooks = {}): FakeConnection {
  const handlers = new Map<string, Handler>();
  const progress: string[] = [];
  const notifications: FakeConnection['notifications'] = [];
  let lenses: Handler | undefined;
  const shown = new Set<string>();
  const none = { dispose: () => undefined };
  const said = (message: string): void => {
    progress.push(message);
    onProgress(message);
  };
  const connection = {
    onRequest: (type: { method: string }, handler: Handler) => void handlers.set(type.method, handler),
    onCodeLens: (handler: Handler) => ((lenses = handler), none),
    sendRequest: async (type: { method: string }) => {
      if (type.method === 'workspace/codeLens/refresh') {
        hooks.onLensRefresh?.();
        // As the editor does after a refresh: it asks again for the lenses of the documents it shows
        // (those asked for before), a moment later.
        for (const uri of shown) setImmediate(() => void lenses?.({ textDocument: { uri } }, CancellationToken.None));
      }
      return undefined;
    },
    sendNotification: async (type: { method: string }, params: unknown) => {
      notifications.push({ method: type.method, params });
      hooks.onNotification?.(type.method, params);
    },
    console: { info: () => undefined, log: () => undefined, warn: () => undefined, error: () => undefined },
    window: {
      createWorkDoneProgress: async () => ({
        token: CancellationToken.None,
        begin: (_title: string, _pct: number, message: string) => said(message),
        report: (_pct: number, message: string) => said(message),
        done: () => undefined,
      }),
    },
  } as unknown as Connection;
  return {
    connection,
    progress,
    notifications,
    codeLens: async (uri) => {
      shown.add(uri);
      return lenses?.({ textDocument: { uri } }, CancellationToken.None);
    },
    request: async <R>(type: string | { method: string }, params: unknown): Promise<R> => {
      const method = typeof type === 'string' ? type : type.method;
      const handler = handlers.get(method);
      if (!handler) throw new Error(`no handler for ${method}`);
      return (await handler(params, CancellationToken.None)) as R;
    },
  };
}
