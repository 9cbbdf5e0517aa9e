/** Running a benchmark from the editor: the engine server runs it, the extension shows its progress. */
import type { Summary } from '../engine/store/results';
import type { WithSettings } from './protocol';

/**
 * Which tasks: a JSONL file (with a manifest or a folder of checkouts, or neither when the tasks
 * carry their checkout paths), or the focal functions the engine extracts from a workspace folder
 * (the folder is their checkout).
 */
export type BenchDataset = { kind: 'tasks'; tasks: string; manifest?: string; repos?: string } | { kind: 'workspace'; folder: string };

/** Generate, run and score a dataset into a run folder; the same folder resumes a run. */
export const RUN_BENCHMARK = 'xrepotest/runBenchmark';

export interface RunBenchmarkParams extends WithSettings {
  dataset: BenchDataset;
  runDir: string;
  /** Only the first n tasks. */
  limit?: number;
  /** Only these languages (comma-separated). */
  lang?: string;
  concurrency: number;
}

export interface RunBenchmarkResult {
  runDir: string;
  /** Results in the run folder for the selected tasks (resumed ones included). */
  results: number;
  /** Results found on disk from an earlier run of this folder. */
  resumed: number;
  tasks: number;
  excluded: number;
  /** Cancelled: the results so far are kept, and running the same folder again continues. */
  interrupted: boolean;
  summary: Summary;
  /** The quick summary table (point estimates), as the CLI prints it. */
  summaryText: string;
  reports: { html?: string; markdown?: string; json?: string };
  checkouts: string;
  /** The process the run's work happened in (the engine server's). */
  pid: number;
}

/** Sent by the server while a run goes on: one per finished result and per finished task. */
export const BENCH_PROGRESS = 'xrepotest/benchProgress';

export interface BenchProgressParams {
  runDir: string;
  tasksDone: number;
  tasksTotal: number;
  results: number;
  resumed: number;
  /** Percent of the results so far. */
  csr: number;
  tpr: number;
  coverage: number;
  elapsedMs: number;
  /** null until a task has finished. */
  etaMs: number | null;
  /** The process doing the work (the engine server's). */
  pid: number;
}
