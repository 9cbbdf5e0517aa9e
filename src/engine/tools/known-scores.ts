import type { ResultRecord } from '../store/results';
import { pathInRepository } from '../tasks/task-path';
import type { ToolServices } from './services';

/** The last scoring kept for a function, and whether the function's code has changed since. */
export interface KnownScore {
  record: ResultRecord;
  /** The function's code differs from what was scored: the numbers are of older code. */
  stale: boolean;
}

/** What identifies a function of a file now: its name and its current code. */
export interface FunctionNow {
  name: string;
  focalCode: string;
}

/** The kept scorings of one workspace file, oldest first (records whose path cannot be read are not this file's). */
export function scoringsOfFile(services: ToolServices, relPath: string): ResultRecord[] {
  return services.scorings.results().filter((r) => {
    try {
      return pathInRepository(r) === relPath;
    } catch {
      return false;
    }
  });
}

/**
 * The latest scoring of the function: of its current code when there is one (a function's code
 * tells two functions of one name apart), else the latest of its name, marked stale.
 */
export function latestScoring(records: readonly ResultRecord[], fn: FunctionNow): KnownScore | null {
  let sameName: ResultRecord | null = null;
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i];
    if (r.function_name !== fn.name) continue;
    if (r.focal_code === fn.focalCode) return { record: r, stale: false };
    sameName ??= r;
  }
  return sameName ? { record: sameName, stale: true } : null;
}
