import type { ResultRecord } from '../store/results';

/**
 * A slot is one (task, sample, round) of one experiment (provider, model, mode). A results file can
 * hold a slot twice (two processes once ran on one folder, files concatenated by hand); counting both
 * would weigh that slot double, so the report keeps one row per slot: the last written.
 */
export function slotKey(r: ResultRecord): string {
  const x = r.xrt ?? ({} as ResultRecord['xrt']);
  const task = typeof r.id === 'string' ? r.id : `${x.language}:${String(r.task_id)}`;
  return JSON.stringify([task, x.provider ?? null, x.model ?? null, x.mode ?? null, x.baseline === true, x.sample ?? 0, x.round ?? 0]);
}

export interface DedupedResults {
  results: ResultRecord[];
  /** Rows dropped because a later row had the same slot. */
  dropped: number;
}

/** One item per key, the last one kept, in the order the kept items were written. */
export function dedupeLast<T>(items: readonly T[], key: (t: T) => string): { kept: T[]; dropped: number } {
  const last = new Map<string, number>();
  items.forEach((t, i) => last.set(key(t), i));
  const kept = items.filter((t, i) => last.get(key(t)) === i);
  return { kept, dropped: items.length - kept.length };
}

/** One row per slot, the last one kept, in the order the kept rows were written. */
export function dedupeSlots(results: readonly ResultRecord[]): DedupedResults {
  const { kept, dropped } = dedupeLast(results, slotKey);
  return { results: kept, dropped };
}

/** The line said when rows were dropped. */
export function duplicatesNote(dropped: number): string {
  return `dropped ${dropped} duplicate result row${dropped === 1 ? '' : 's'} (same task, sample and round of the same provider, model and mode, or the same task_id in one release file or that file given twice; the last row of each is kept)`;
}
