/**
 * The server's check of what the extension sends: each message's JSON Schema (declared with it in
 * src/shared), checked with the engine's schema check (ajv, compiled on the first check; the first
 * error said as `field: what it must be, got what`). Here and not in src/shared so that only the
 * server's bundle carries ajv.
 */
import { checkAgainstSchema, SchemaMismatchError } from '../engine/util/schema-check';
import type { ClientNotification, ClientRequest } from '../shared/wire';

/** Params that do not match their declaration; the message names the field (`params.settings.mode: …`). */
export { SchemaMismatchError as WireParamsError };

/** `value` as declared by `type`, or WireParamsError naming the first field that does not match (`at` starts the path: `params`). */
export function checkParams<P>(type: ClientRequest<P, unknown> | ClientNotification<P>, value: unknown, at: string): P {
  return checkAgainstSchema<P>(type.schema, value, at);
}
