import type { ErrorObject } from 'ajv';
import { LANGUAGE_IDS } from '../parse/grammars';
import type { ResultRecord } from '../store/results';
import { validatorOf } from '../util/lazy-validator';

/**
 * What a row of ours (`xrepotest run`, `bench`) must hold to be counted: the fields that say *which*
 * slot it is. A row that breaks this is refused with the reason; the measured fields (checks,
 * coverage, mutation, category) are read one by one in slots.ts, where a bad value counts as missing.
 */
const name = { type: ['string', 'null'], maxLength: 500 } as const;
const index = { type: 'integer', minimum: 0, maximum: 1_000_000 } as const;

export const OUR_ROW_SCHEMA = {
  type: 'object',
  required: ['task_id', 'function_name', 'file_path', 'checks', 'xrt'],
  properties: {
    id: { type: 'string', maxLength: 500 },
    task_id: { type: ['integer', 'string'], maxLength: 500 },
    function_name: { type: 'string' },
    file_path: { type: 'string' },
    test: { type: 'array' },
    logs: { type: 'array' },
    checks: { type: 'array', minItems: 1 },
    coverage_stats: { type: 'array' },
    xrt: {
      type: 'object',
      required: ['language'],
      properties: {
        language: { enum: [...LANGUAGE_IDS] },
        sample: index,
        round: index,
        mode: name,
        provider: name,
        model: name,
        baseline: { type: 'boolean' },
        failure_rule: name,
        reason: { type: ['string', 'null'] },
        error: { type: ['string', 'null'] },
      },
    },
  },
} as const;

const validate = validatorOf(OUR_ROW_SCHEMA);

export function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((e) => `${e.instancePath || 'row'} ${e.message ?? 'is invalid'}`).join('; ');
}

/** A row of ours, or why it is refused. */
export function checkResultRecord(value: unknown): { record: ResultRecord } | { problem: string } {
  if (!validate(value)) return { problem: `refused: ${describeErrors(validate.errors)}` };
  return { record: value as unknown as ResultRecord };
}

export function isResultRecord(value: unknown): value is ResultRecord {
  return validate(value);
}

/** Whether a row means to be one of ours (it has our `xrt`), even if it is refused. */
export const looksLikeOurRow = (value: unknown): boolean => value !== null && typeof value === 'object' && 'xrt' in value;
