import * as os from 'node:os';
import { InvalidArgumentError } from 'commander';

/**
 * What several verbs' flags share, loaded with every verb's declaration (main.ts): nothing here may
 * load the engine's heavy parts (test/unit/cli-start.test.ts).
 */

export function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number, 0 or more');
  return n;
}

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive whole number');
  return n;
}

/** Tasks at once by default (`run`, `bench`, `reproduce`, `mcp`): half the cores, 1 to 4. */
export const DEFAULT_CONCURRENCY = Math.max(1, Math.min(4, Math.floor(os.cpus().length / 2)));
