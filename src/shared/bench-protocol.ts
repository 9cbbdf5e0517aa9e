/** Running a benchmark from the editor: the engine server runs it, the extension shows its progress. */
import { withSettingsFields, type WithSettings } from './protocol';
import { ClientRequest, ServerNotification } from './wire';
import { int, literal, object, optional, str, variants } from './wire-check';
import type { WireSummary } from './wire-types';

/**
 * Which tasks: a JSONL file (with a manifest or a folder of checkouts, or neither when the tasks
 * carry their checkout paths), or the focal functions the engine extracts from a workspace folder
 * (the folder is their checkout).
 */
export type BenchDataset = { kind: 'tasks'; tasks: string; manifest?: string; repos?: string } | { kind: 'workspace'; folder: string };

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
  summary: WireSummary;
  /** The quick summary table (point estimates), as the CLI prints it. */
  summaryText: string;
  reports: { html?: string; markdown?: string; json?: string };
  checkouts: string;
  /** The process the run's work happened in (the engine server's). */
  pid: number;
}

/** Generate, run and score a dataset into a run folder; the same folder resumes a run. */
export const RUN_BENCHMARK = new ClientRequest<RunBenchmarkParams, RunBenchmarkResult>(
  'xrepotest/runBenchmark',
  object<RunBenchmarkParams>({
    dataset: variants<BenchDataset, 'kind'>('kind', {
      tasks: object<Extract<BenchDataset, { kind: 'tasks' }>>({ kind: literal(['tasks'] as const), tasks: str, manifest: optional(str), repos: optional(str) }),
      workspace: object<Extract<BenchDataset, { kind: 'workspace' }>>({ kind: literal(['workspace'] as const), folder: str }),
    }),
    runDir: str,
    limit: optional(int),
    lang: optional(str),
    concurrency: int,
    ...withSettingsFields,
  }),
);

/** Sent by the server while a run goes on: one per finished result and per finished task. */

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

export const BENCH_PROGRESS = new ServerNotification<BenchProgressParams>('xrepotest/benchProgress');
