/**
 * Checks of what arrives over the wire, written next to each request's declaration so the server can
 * refuse malformed params with a message that names the field (instead of failing somewhere inside
 * the engine). Deliberately small: types, required fields and enumerations; the checked value is
 * passed on as it came (unknown extra fields are kept, as before).
 */

/** A check of `value` at `at` (`params.settings.mode`); returns it typed, or throws WireParamsError. */
export type Check<T> = (value: unknown, at: string) => T;

export class WireParamsError extends Error {}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

function fail(at: string, wanted: string, value: unknown): never {
  throw new WireParamsError(`${at}: expected ${wanted}, got ${describe(value)}`);
}

export const str: Check<string> = (v, at) => (typeof v === 'string' ? v : fail(at, 'a string', v));
export const num: Check<number> = (v, at) => (typeof v === 'number' && Number.isFinite(v) ? v : fail(at, 'a number', v));
export const int: Check<number> = (v, at) => (typeof v === 'number' && Number.isInteger(v) ? v : fail(at, 'a whole number', v));
export const bool: Check<boolean> = (v, at) => (typeof v === 'boolean' ? v : fail(at, 'true or false', v));

export function literal<T extends string>(values: readonly T[]): Check<T> {
  return (v, at) => (typeof v === 'string' && (values as readonly string[]).includes(v) ? (v as T) : fail(at, `one of ${values.join(', ')}`, v));
}

export function optional<T>(check: Check<T>): Check<T | undefined> {
  return (v, at) => (v === undefined ? undefined : check(v, at));
}

export function nullable<T>(check: Check<T>): Check<T | null> {
  return (v, at) => (v === null ? null : check(v, at));
}

export function array<T>(check: Check<T>): Check<T[]> {
  return (v, at) => {
    if (!Array.isArray(v)) return fail(at, 'an array', v);
    v.forEach((item, i) => check(item, `${at}[${i}]`));
    return v as T[];
  };
}

/** The fields of T, each with its check: a field added to T and not here fails the typecheck. */
export type Fields<T> = { [K in keyof T]-?: Check<T[K]> };

export function object<T>(fields: Fields<T>): Check<T> {
  return (v, at) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(at, 'an object', v);
    const o = v as Record<string, unknown>;
    for (const key of Object.keys(fields) as Array<keyof T & string>) fields[key](o[key], `${at}.${key}`);
    return v as T;
  };
}

/** A union told apart by a string field (`kind`): each variant checked as its own object. */
export function variants<T extends Record<K, string>, K extends string>(key: K, byTag: { [Tag in T[K]]: Check<Extract<T, Record<K, Tag>>> }): Check<T> {
  const tags = Object.keys(byTag) as Array<T[K]>;
  return (v, at) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(at, 'an object', v);
    const tag = literal(tags)((v as Record<string, unknown>)[key], `${at}.${key}`);
    return byTag[tag](v, at);
  };
}
