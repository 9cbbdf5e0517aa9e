/**
 * Who runs a list of independent units of work (a benchmark's tasks, a generate run's tasks, a
 * `run`'s tests), and how many at once. The unit of work — one task step — never knows which
 * scheduler runs it. The in-process pool (in-process-pool.ts) implements this; the BullMQ queue of
 * engine/distributed, which spreads a run's tasks over workers, does not go through it.
 */
export interface ScheduleOptions<S> {
  /** At most this many units run at the same time (at least 1). */
  concurrency: number;
  /** Once aborted no new unit starts; a unit that fails because of the abort ends the run as interrupted. */
  signal?: AbortSignal;
  /** Called after each unit that finished (in the order they finish). */
  onResult?(slot: S, index: number): void;
}

export interface ScheduleOutcome {
  /** Units that finished. */
  done: number;
  /** The signal stopped the run before every unit finished. */
  interrupted: boolean;
}

export interface Scheduler {
  /**
   * Runs `step` once for every slot. A step that throws while the signal is not aborted fails the
   * run with its error (no new unit starts); its siblings already running are awaited first.
   */
  run<S>(slots: readonly S[], step: (slot: S, index: number) => Promise<void>, options: ScheduleOptions<S>): Promise<ScheduleOutcome>;
}
