/** Running a benchmark from the editor: the engine server runs it, the extension shows its progress. */
import type { JSONSchemaType } from 'ajv';
import { withSettingsProperties, type WithSettings } from './protocol';
import { ClientRequest, int, optional, ServerNotification, str } from './wire';
import type { WireSummary } from './wire-types';

/**
 * Which tasks: a JSONL file (with a manifest or a folder of checkouts, or neither when the tasks
 * carry their checkout paths), or the focal functions the engine extracts from a workspace folder
 * (the folder is their checkout).
 */
export type BenchDataset = { kind: 'tasks'; tasks: string; manifest?: string; repos?: string } | { kind: 'workspace'; folder: string };

type TasksDataset = Extract<BenchDataset, { kind: 'tasks' }>;
type WorkspaceDataset = Extract<BenchDataset, { kind: 'workspace' }>;
const TASKS_DATASET_SCHEMA: JSONSchemaType<TasksDataset> = {
  type: 'object',
  required: ['kind', 'tasks'],
  properties: { kind: { type: 'string', const: 'tasks' }, tasks: str, manifest: optional(str), repos: optional(str) },
};
const WORKSPACE_DATASET_SCHEMA: JSONSchemaType<WorkspaceDataset> = {
  type: 'object',
  required: ['kind', 'folder'],
  properties: { kind: { type: 'string', const: 'workspace' }, folder: str },
};
/**
 * The union told apart by `kind` (ajv's discriminator: only the matching variant's errors are
 * reported). JSONSchemaType cannot type a discriminated oneOf of object variants, so each variant is
 * typed on its own above and the union is a cast here.
 */
const DATASET_SCHEMA = {
  type: 'object',
  discriminator: { propertyName: 'kind' },
  required: ['kind'],
  oneOf: [TASKS_DATASET_SCHEMA, WORKSPACE_DATASET_SCHEMA],
} as unknown as JSONSchemaType<BenchDataset>;

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
  {
    type: 'object',
    required: ['dataset', 'runDir', 'concurrency', 'settings'],
    properties: { dataset: DATASET_SCHEMA, runDir: str, limit: optional(int), lang: optional(str), concurrency: int, ...withSettingsProperties },
  },
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

/**
 * What a running task is doing: gathering its prompt's context, generating, preparing the environment
 * image, the run's own phases (warm-up builds the project, compile builds the test, test, coverage),
 * mutation testing. The engine's BenchPhase, spelled here because src/shared cannot import the engine.
 */
export type BenchTaskPhase = 'context' | 'generating' | 'environment' | 'warm-up' | 'compile' | 'compile-retry' | 'test' | 'coverage' | 'mutation';

export interface BenchRunningTask {
  /** The focal function. */
  function: string;
  repository: string;
  language: string;
  phase: BenchTaskPhase;
  /** Since the phase started, and since the task started. */
  phaseElapsedMs: number;
  taskElapsedMs: number;
  /** The phase's time limit (the run stops it there); null where there is none (generation, mutation). */
  limitMs: number | null;
}

/**
 * Sent by the server while a run goes on: when a task changes phase, and every few seconds between
 * (so elapsed times and the estimate move while a long task runs).
 */
export interface BenchActivityParams {
  runDir: string;
  running: BenchRunningTask[];
  tasksDone: number;
  tasksTotal: number;
  elapsedMs: number;
  /** null until a task has finished; grows while tasks run past the estimate. */
  etaMs: number | null;
  pid: number;
}

export const BENCH_ACTIVITY = new ServerNotification<BenchActivityParams>('xrepotest/benchActivity');
