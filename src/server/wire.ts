/**
 * Registering the server's handlers for the extension's messages (declared in src/shared): the
 * params are checked against the declaration's schema first (with ajv, compiled on the first check), so a malformed request is refused with
 * a message naming the request and the field, before any engine code runs.
 */
import { ErrorCodes, ResponseError, type CancellationToken, type Connection, type Disposable } from 'vscode-languageserver/node';
import type { ClientNotification, ClientRequest } from '../shared/wire';
import { checkParams, WireParamsError } from './params-check';

/** The params as declared, or the error the extension receives (InvalidParams, with what is wrong). */
export function checkedParams<P>(type: ClientRequest<P, unknown> | ClientNotification<P>, params: unknown): P {
  try {
    return checkParams(type, params, 'params');
  } catch (e) {
    if (!(e instanceof WireParamsError)) throw e;
    throw new ResponseError(ErrorCodes.InvalidParams, `${type.method} refused: ${e.message} (the extension and the engine server disagree about this request: reinstall the extension)`);
  }
}

/** What a server module needs of the connection to answer the extension (a Connection, or a test's fake). */
export type RequestRegistrar = Pick<Connection, 'onRequest'>;

export function onClientRequest<P, R>(
  connection: RequestRegistrar,
  type: ClientRequest<P, R>,
  handler: (params: P, token: CancellationToken) => R | Promise<R>,
): Disposable {
  return connection.onRequest(type, (params: P, token: CancellationToken) => handler(checkedParams(type, params), token));
}

export function onClientNotification<P>(connection: Pick<Connection, 'onNotification' | 'console'>, type: ClientNotification<P>, handler: (params: P) => void): Disposable {
  return connection.onNotification(type, (params: P) => {
    let checked: P;
    try {
      checked = checkedParams(type, params);
    } catch (e) {
      connection.console.error((e as Error).message);
      return;
    }
    handler(checked);
  });
}
