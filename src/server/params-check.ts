/**
 * The server's check of what the extension sends: each message's JSON Schema (declared with it in
 * src/shared) compiled by ajv on its first check, and the first error said as `field: what it must be,
 * got what`. Here and not in src/shared so that only the server bundles ajv.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { ClientNotification, ClientRequest } from '../shared/wire';

/** Params that do not match their declaration; the message names the field (`params.settings.mode: …`). */
export class WireParamsError extends Error {}

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

const compiled = new WeakMap<object, ValidateFunction>();

/** `value` as declared by `type`, or WireParamsError naming the first field that does not match (`at` starts the path: `params`). */
export function checkParams<P>(type: ClientRequest<P, unknown> | ClientNotification<P>, value: unknown, at: string): P {
  ajv ??= new Ajv({ discriminator: true, verbose: true });
  let validate = compiled.get(type.schema);
  if (!validate) {
    validate = ajv.compile(type.schema);
    compiled.set(type.schema, validate);
  }
  if (validate(value)) return value as P;
  const first = validate.errors?.[0];
  throw new WireParamsError(first ? explain(first, at) : `${at}: does not match its declaration`);
}
