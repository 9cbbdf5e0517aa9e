import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ContextMode, GenerationRecord } from '../generate/types';
import { AppendLog } from '../store/append-log';
import type { ResultRecord } from '../store/results';
import type { LoadedTask } from '../tasks/load';

/** What a slot's records are labelled with (and, in a resumable run folder, keyed by). */
export interface SlotLabels {
  provider: string;
  model: string;
  mode: ContextMode;
}

/**
 * Where a task step keeps its generations and results, and finds those of an earlier run. Records
 * are keyed by content: a result by (task, model, mode, sample, round, hash of the test), so a
 * changed test is never a cached one.
 */
export interface SlotStore {
  /** `improve`: an improvement round (1-based) after the passing test of `round`; absent for that test. */
  generation(task: LoadedTask, labels: SlotLabels, sample: number, round: number, improve?: number): GenerationRecord | undefined;
  result(task: LoadedTask, labels: SlotLabels, sample: number, round: number, testHash: string): ResultRecord | undefined;
  addGeneration(task: LoadedTask, labels: SlotLabels, g: GenerationRecord): void;
  addResult(task: LoadedTask, labels: SlotLabels, r: ResultRecord): void;
}

export function taskKey(t: LoadedTask): string {
  return t.task.id ?? `${t.language}:${t.task.task_id}`;
}

function generationKey(t: LoadedTask, s: SlotLabels, sample: number, round: number, improve?: number): string {
  // Improvement rounds extend the key only when present: records from before them keep their keys.
  return [taskKey(t), s.provider, s.model, s.mode, sample, round, ...(improve ? [`i${improve}`] : [])].join('|');
}

function resultKey(t: LoadedTask, s: SlotLabels, sample: number, round: number, testHash: string): string {
  return [taskKey(t), s.model, s.mode, sample, round, testHash].join('|');
}

/** A run folder's two append-only logs: generations.jsonl and results.jsonl (bench's format). */
export class RunFolderLogs {
  readonly generations: AppendLog<GenerationRecord>;
  readonly results: AppendLog<ResultRecord>;

  constructor(runDir: string) {
    fs.mkdirSync(runDir, { recursive: true });
    this.generations = AppendLog.open<GenerationRecord>(path.join(runDir, 'generations.jsonl'));
    try {
      this.results = AppendLog.open<ResultRecord>(path.join(runDir, 'results.jsonl'));
    } catch (e) {
      this.generations.close();
      throw e;
    }
  }

  close(): void {
    this.generations.close();
    this.results.close();
  }
}

/**
 * A benchmark's store: one experiment (the run's labels) per folder, records read back on open so a
 * resumed run redoes nothing that finished; every new record is appended (and fsynced) at once.
 */
export class ResumableStore implements SlotStore {
  private readonly genByKey = new Map<string, GenerationRecord>();
  private readonly resultByKey = new Map<string, ResultRecord>();

  constructor(
    readonly logs: RunFolderLogs,
    tasks: readonly LoadedTask[],
    labels: SlotLabels,
  ) {
    const byTask = new Map(tasks.map((t) => [taskKey(t), t]));
    for (const g of logs.generations.records) {
      const t = byTask.get(g.id ?? `${g.language}:${g.task_id}`);
      if (t) this.genByKey.set(generationKey(t, labels, g.sample, g.round, g.improve), g);
    }
    for (const r of logs.results.records) {
      const t = byTask.get(r.id ?? `${r.xrt.language}:${r.task_id}`);
      if (t) this.resultByKey.set(resultKey(t, labels, r.xrt.sample, r.xrt.round, r.xrt.test_hash), r);
    }
  }

  /** The records this folder holds for a task (sent with its job to a worker, which redoes none of them). */
  recordsOf(t: LoadedTask): { generations: GenerationRecord[]; results: ResultRecord[] } {
    const key = taskKey(t);
    return {
      generations: [...this.genByKey.values()].filter((g) => (g.id ?? `${g.language}:${g.task_id}`) === key),
      results: [...this.resultByKey.values()].filter((r) => (r.id ?? `${r.xrt.language}:${r.task_id}`) === key),
    };
  }

  /** Results found on disk from an earlier run of this folder (for this run's tasks). */
  get resumed(): number {
    return this.resultByKey.size;
  }

  generation(t: LoadedTask, s: SlotLabels, sample: number, round: number, improve?: number): GenerationRecord | undefined {
    return this.genByKey.get(generationKey(t, s, sample, round, improve));
  }

  result(t: LoadedTask, s: SlotLabels, sample: number, round: number, testHash: string): ResultRecord | undefined {
    return this.resultByKey.get(resultKey(t, s, sample, round, testHash));
  }

  addGeneration(t: LoadedTask, s: SlotLabels, g: GenerationRecord): void {
    this.logs.generations.append(g);
    this.genByKey.set(generationKey(t, s, g.sample, g.round, g.improve), g);
  }

  addResult(t: LoadedTask, s: SlotLabels, r: ResultRecord): void {
    this.logs.results.append(r);
    this.resultByKey.set(resultKey(t, s, r.xrt.sample, r.xrt.round, r.xrt.test_hash), r);
  }
}

/**
 * The editor's store: every scoring is new (a second "Generate" asks the model again) and is appended
 * to the workspace's run folder like a benchmark's records, so `report` and the annotator read it.
 * Several experiments share the folder; the report tells them apart by provider, model and mode.
 */
export class AppendOnlyStore implements SlotStore {
  constructor(private readonly logs: Pick<RunFolderLogs, 'generations' | 'results'>) {}

  generation(): undefined {
    return undefined;
  }

  result(): undefined {
    return undefined;
  }

  addGeneration(_t: LoadedTask, _s: SlotLabels, g: GenerationRecord): void {
    this.logs.generations.append(g);
  }

  addResult(_t: LoadedTask, _s: SlotLabels, r: ResultRecord): void {
    this.logs.results.append(r);
  }
}

/** Keeps nothing and finds nothing: `generate` writes its own output file. */
export const NO_STORE: SlotStore = {
  generation: () => undefined,
  result: () => undefined,
  addGeneration: () => undefined,
  addResult: () => undefined,
};

/**
 * A task's records in memory: those known before (a resumed run's, sent with a queue's job) are found
 * and not redone; new ones are collected for the caller to send back (a worker's answer).
 */
export class MemoryStore implements SlotStore {
  private readonly genByKey = new Map<string, GenerationRecord>();
  private readonly resultByKey = new Map<string, ResultRecord>();
  readonly newGenerations: GenerationRecord[] = [];
  readonly newResults: ResultRecord[] = [];

  constructor(task: LoadedTask, labels: SlotLabels, known: { generations: readonly GenerationRecord[]; results: readonly ResultRecord[] }) {
    for (const g of known.generations) this.genByKey.set(generationKey(task, labels, g.sample, g.round, g.improve), g);
    for (const r of known.results) this.resultByKey.set(resultKey(task, labels, r.xrt.sample, r.xrt.round, r.xrt.test_hash), r);
  }

  generation(t: LoadedTask, s: SlotLabels, sample: number, round: number, improve?: number): GenerationRecord | undefined {
    return this.genByKey.get(generationKey(t, s, sample, round, improve));
  }

  result(t: LoadedTask, s: SlotLabels, sample: number, round: number, testHash: string): ResultRecord | undefined {
    return this.resultByKey.get(resultKey(t, s, sample, round, testHash));
  }

  addGeneration(t: LoadedTask, s: SlotLabels, g: GenerationRecord): void {
    this.genByKey.set(generationKey(t, s, g.sample, g.round, g.improve), g);
    this.newGenerations.push(g);
  }

  addResult(t: LoadedTask, s: SlotLabels, r: ResultRecord): void {
    this.resultByKey.set(resultKey(t, s, r.xrt.sample, r.xrt.round, r.xrt.test_hash), r);
    this.newResults.push(r);
  }
}
