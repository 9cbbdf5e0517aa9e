/**
 * How a message between the extension and the engine server is declared: once, here in src/shared,
 * as a typed vscode-jsonrpc `RequestType` / `NotificationType` that both ends use (the server
 * registers its handler with it, the extension sends with it), so params and results are checked by
 * the compiler at both ends and no method name is spelled at a call site.
 *
 * What the extension sends also carries a check of its params, run by the server on arrival
 * (src/server/wire.ts). Server → extension messages need none: the extension trusts its own server.
 *
 * The classes come from vscode-languageserver-protocol, which re-exports vscode-jsonrpc's: it is the
 * copy vscode-languageclient and vscode-languageserver are built on (a second, newer vscode-jsonrpc
 * at the top of node_modules has the same classes, but TypeScript tells their private fields apart).
 */
import { NotificationType, RequestType } from 'vscode-languageserver-protocol';
import type { Check } from './wire-check';

/** Extension → server request; the server checks its params with `check` before the handler runs. */
export class ClientRequest<P, R> extends RequestType<P, R, void> {
  constructor(
    method: string,
    readonly check: Check<P>,
  ) {
    super(method);
  }
}

/** Extension → server notification, checked like a request. */
export class ClientNotification<P> extends NotificationType<P> {
  constructor(
    method: string,
    readonly check: Check<P>,
  ) {
    super(method);
  }
}

/** Server → extension request (the bridge's questions to the editor). */
export class ServerRequest<P, R> extends RequestType<P, R, void> {}

/** Server → extension notification (progress, rows, notes). */
export class ServerNotification<P> extends NotificationType<P> {}
