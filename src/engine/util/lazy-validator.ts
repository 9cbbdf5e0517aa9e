import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';

/**
 * A JSON Schema check compiled on its first use, not when its module loads: ajv compiles a schema in
 * milliseconds to tens of them, and a command loads many modules whose schemas it never checks (the
 * CLI's `run` loads the report's readers to print its summary). Called like ajv's own validate
 * function; `errors` are the last call's.
 */
export interface LazyValidator {
  (value: unknown): boolean;
  readonly errors: ErrorObject[] | null | undefined;
}

let ajv: Ajv | undefined;

/** `schema` checked with ajv's `allErrors`, not strict (the options every record check here uses). */
export function validatorOf(schema: object): LazyValidator {
  let compiled: ValidateFunction | undefined;
  const check = (value: unknown): boolean => (compiled ??= (ajv ??= new Ajv({ allErrors: true, strict: false })).compile(schema))(value);
  return Object.defineProperty(check, 'errors', { get: () => compiled?.errors }) as LazyValidator;
}
