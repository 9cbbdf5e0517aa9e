/**
 * Checking a value someone else sent against a JSON Schema held as data: the extension's requests
 * (src/server/params-check.ts) and an agent's tool arguments (engine/tools) are both checked here, so
 * both say the first field that is wrong the same way: `field: what it must be, got what`. ajv
 * compiles each schema on its first check.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';

/** A value that does not match its schema; the message names the field (`params.settings.mode: …`). */
export class SchemaMismatchError extends Error {}

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
    case 'additionalProperties':
      return `${path}.${(e.params as { additionalProperty: string }).additionalProperty}: is not a known field`;
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

/**
 * `value` as `schema` declares it, or SchemaMismatchError naming the first field that does not match
 * (`at` starts the path: `params`, `arguments`). A schema ajv cannot compile throws ajv's own error:
 * that is the caller's bug, not the sender's value.
 */
export function checkAgainstSchema<T>(schema: object, value: unknown, at: string): T {
  ajv ??= new Ajv({ discriminator: true, verbose: true });
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(value)) return value as T;
  const first = validate.errors?.[0];
  throw new SchemaMismatchError(first ? explain(first, at) : `${at}: does not match its declaration`);
}
