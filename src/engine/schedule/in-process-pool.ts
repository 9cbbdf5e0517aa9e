import type { ScheduleOptions, ScheduleOutcome, Scheduler } from './scheduler';

/**
 * Today's scheduler: `concurrency` workers in this process take the next slot in list order until
 * none is left. Tasks share the process (its executor, caches, provider client and rate limits).
 */
export class InProcessPool implements Scheduler {
  async run<S>(slots: readonly S[], step: (slot: S, index: number) => Promise<void>, options: ScheduleOptions<S>): Promise<ScheduleOutcome> {
    const { signal } = options;
    let next = 0;
    let done = 0;
    let interrupted = false;
    let failure: { error: unknown } | null = null;
    const worker = async (): Promise<void> => {
      while (next < slots.length && !failure) {
        if (signal?.aborted) return;
        const index = next++;
        try {
          await step(slots[index], index);
        } catch (e) {
          if (signal?.aborted) {
            interrupted = true;
            return;
          }
          failure ??= { error: e };
          return;
        }
        done++;
        options.onResult?.(slots[index], index);
      }
    };
    const workers = Math.max(1, Math.min(Math.floor(options.concurrency) || 1, slots.length));
    await Promise.all(Array.from({ length: workers }, worker));
    if (failure) throw (failure as { error: unknown }).error;
    return { done, interrupted: interrupted || (!!signal?.aborted && done < slots.length) };
  }
}

/** The scheduler a run gets when its caller names none. */
export const inProcessPool: Scheduler = new InProcessPool();
