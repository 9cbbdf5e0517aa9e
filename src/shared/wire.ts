/**
 * How a message between the extension and the engine server is declared: once, here in src/shared,
 * as a typed vscode-jsonrpc `RequestType` / `NotificationType` that both ends use (the server
 * registers its handler with it, the extension sends with it), so params and results are checked by
 * the compiler at both ends and no method name is spelled at a call site.
 *
 * What the extension sends also carries a JSON Schema of its params (ajv's `JSONSchemaType<P>`, so a
 * field added to P and not to the schema fails the typecheck), checked by the server on arrival
 * (src/server/params-check.ts) with ajv, the schema validator the project already uses (kept
 * libraries over hand-written code for solved problems). Only the server imports ajv: here the schema
 * is data and its type, so the extension's bundle does not carry a validator it never runs. Unknown extra
 * fields are allowed and kept; the checked value is passed on as it came. Server → extension
 * messages need no schema: the extension trusts its own server.
 *
 * The classes come from vscode-languageserver-protocol, which re-exports vscode-jsonrpc's: it is the
 * copy vscode-languageclient and vscode-languageserver are built on (a second, newer vscode-jsonrpc
 * at the top of node_modules has the same classes, but TypeScript tells their private fields apart).
 */
import type { JSONSchemaType } from 'ajv';
import { NotificationType, RequestType } from 'vscode-languageserver-protocol';

// ── Schema pieces for the declarations ──────────────────────────────────────────────────────────

export const str = { type: 'string' } as const;
/** A finite number (ajv refuses NaN and ±Infinity for `number`; JSON cannot carry them anyway). */
export const num = { type: 'number' } as const;
export const int = { type: 'integer' } as const;
export const bool = { type: 'boolean' } as const;

export function literal<T extends string>(values: readonly T[]): { type: 'string'; enum: readonly T[] } {
  return { type: 'string', enum: values };
}

/**
 * An optional field. JSONSchemaType asks optional properties for `nullable: true` (JSON has no
 * undefined); the schema returned here has none, so null is refused for an optional field as it was
 * before ajv: only the type says nullable (a deliberate cast).
 */
export function optional<S extends object>(schema: S): S & { nullable: true } {
  return schema as S & { nullable: true };
}

/** Extension → server request; the server checks its params against `schema` before the handler runs (src/server/params-check.ts). */
export class ClientRequest<P, R> extends RequestType<P, R, void> {
  /** Held untyped: `JSONSchemaType<P>` is checked where it is written (here), and a typed field would make ClientRequest invariant in P. */
  readonly schema: object;

  constructor(method: string, schema: JSONSchemaType<P>) {
    super(method);
    this.schema = schema;
  }
}

/** Extension → server notification, checked like a request. */
export class ClientNotification<P> extends NotificationType<P> {
  readonly schema: object;

  constructor(method: string, schema: JSONSchemaType<P>) {
    super(method);
    this.schema = schema;
  }
}

/** Server → extension request (the bridge's questions to the editor). */
export class ServerRequest<P, R> extends RequestType<P, R, void> {}

/** Server → extension notification (progress, rows, notes). */
export class ServerNotification<P> extends NotificationType<P> {}
