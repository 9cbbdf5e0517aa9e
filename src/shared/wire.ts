/**
 * How a message between the extension and the engine server is declared: once, here in src/shared,
 * as a typed vscode-jsonrpc `RequestType` / `NotificationType` that both ends use (the server
 * registers its handler with it, the extension sends with it), so params and results are checked by
 * the compiler at both ends and no method name is spelled at a call site.
 *
 * What the extension sends also carries a JSON Schema of its params (ajv's `JSONSchemaType<P>`, so a
 * field added to P and not to the schema fails the typecheck), checked by the server on arrival
 * (src/server/wire.ts) with ajv, the schema validator the project already uses (kept libraries over
 * hand-written code for solved problems). Each schema is compiled on its first check only: the
 * extension imports these declarations but never checks, so it never compiles one. Unknown extra
 * fields are allowed and kept; the checked value is passed on as it came. Server → extension
 * messages need no schema: the extension trusts its own server.
 *
 * The classes come from vscode-languageserver-protocol, which re-exports vscode-jsonrpc's: it is the
 * copy vscode-languageclient and vscode-languageserver are built on (a second, newer vscode-jsonrpc
 * at the top of node_modules has the same classes, but TypeScript tells their private fields apart).
 */
import Ajv, { type ErrorObject, type JSONSchemaType, type ValidateFunction } from 'ajv';
import { NotificationType, RequestType } from 'vscode-languageserver-protocol';

/** Params that do not match their declaration; the message names the field (`params.settings.mode: …`). */
export class WireParamsError extends Error {}

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

// ── Checking ────────────────────────────────────────────────────────────────────────────────────

let ajv: Ajv | undefined;

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

/** `/settings/mode` under `params` → `params.settings.mode` (`[0]` for array items). */
function fieldPath(at: string, instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((p, s) => (/^\d+$/.test(s) ? `${p}[${s}]` : `${p}.${s}`), at);
}

/** ajv's first error as `field: what it must be, got what`. */
function explain(e: ErrorObject, at: string): string {
  const path = fieldPath(at, e.instancePath);
  switch (e.keyword) {
    case 'required':
      return `${path}.${(e.params as { missingProperty: string }).missingProperty}: must be present, got nothing`;
    case 'enum':
      return `${path}: must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.filter((v) => v !== null).join(', ')}, got ${describe(e.data)}`;
    case 'discriminator': {
      const { tag, tagValue } = e.params as { tag: string; tagValue: unknown };
      const tags = ((e.parentSchema as { oneOf?: Array<{ properties?: Record<string, { const?: unknown }> }> }).oneOf ?? []).map((s) => s.properties?.[tag]?.const);
      return `${path}.${tag}: must be one of ${tags.join(', ')}, got ${describe(tagValue)}`;
    }
    default:
      return `${path}: ${e.message ?? 'is not valid'}, got ${describe(e.data)}`;
  }
}

/**
 * A params schema, compiled on its first check. Held untyped: the declaration's `JSONSchemaType<P>`
 * is checked where it is written (the constructors below), and a typed field here would make
 * ClientRequest invariant in P.
 */
class ParamsSchema {
  private validate: ValidateFunction | undefined;

  constructor(readonly schema: object) {}

  check(value: unknown, at: string): unknown {
    ajv ??= new Ajv({ discriminator: true, verbose: true });
    this.validate ??= ajv.compile(this.schema);
    if (this.validate(value)) return value;
    const first = this.validate.errors?.[0];
    throw new WireParamsError(first ? explain(first, at) : `${at}: does not match its declaration`);
  }
}

/** Extension → server request; the server checks its params against `schema` before the handler runs. */
export class ClientRequest<P, R> extends RequestType<P, R, void> {
  private readonly params: ParamsSchema;

  constructor(method: string, schema: JSONSchemaType<P>) {
    super(method);
    this.params = new ParamsSchema(schema);
  }

  /** `value` typed, or WireParamsError naming the first field that does not match (`at` starts the path: `params`). */
  check(value: unknown, at: string): P {
    return this.params.check(value, at) as P;
  }
}

/** Extension → server notification, checked like a request. */
export class ClientNotification<P> extends NotificationType<P> {
  private readonly params: ParamsSchema;

  constructor(method: string, schema: JSONSchemaType<P>) {
    super(method);
    this.params = new ParamsSchema(schema);
  }

  check(value: unknown, at: string): P {
    return this.params.check(value, at) as P;
  }
}

/** Server → extension request (the bridge's questions to the editor). */
export class ServerRequest<P, R> extends RequestType<P, R, void> {}

/** Server → extension notification (progress, rows, notes). */
export class ServerNotification<P> extends NotificationType<P> {}
