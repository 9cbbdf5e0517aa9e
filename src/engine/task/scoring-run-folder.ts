import * as fs from 'node:fs';
import * as path from 'node:path';
import { isResultRecord } from '../report/load';
import { readCheckouts, rememberCheckout } from '../store/checkout-map';
import type { ResultRecord } from '../store/results';
import type { TaskRecord } from '../tasks/record';
import { repositoryNameOf } from '../tasks/task-path';
import { AppendOnlyStore, RunFolderLogs, type SlotStore } from './slot-store';

/**
 * A run folder for one function's scorings at a time, as the editor and an agent's tools make them:
 * each scoring is appended to results.jsonl (the generation to generations.jsonl) exactly as a
 * benchmark writes them, and checkouts.json names the workspace, so the annotator, `report` and
 * `report --compare` read it like any run; the last scoring of a function is its "current" score.
 */
export class ScoringRunFolder {
  private logs: RunFolderLogs | undefined;

  constructor(readonly dir: string) {}

  /** Where a task's records go; its checkout (the workspace folder) is remembered for the viewers. */
  storeFor(task: TaskRecord, checkout: string): SlotStore {
    this.logs ??= new RunFolderLogs(this.dir);
    const repository = repositoryNameOf(task);
    if (readCheckouts(this.dir)[repository] !== path.resolve(checkout)) rememberCheckout(this.dir, repository, checkout);
    return new AppendOnlyStore(this.logs);
  }

  /**
   * Every result the folder holds, oldest first, read from disk on each call: another process (the
   * editor, a second agent) may append to the same folder. A line that does not parse is skipped (a
   * line is written whole, so that is a hand edit), and so is a line that is no result record; nothing
   * is created when nothing was scored yet.
   */
  results(): ResultRecord[] {
    const file = path.join(this.dir, 'results.jsonl');
    if (!fs.existsSync(file)) return [];
    const out: ResultRecord[] = [];
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const value: unknown = JSON.parse(line);
        if (isResultRecord(value)) out.push(value);
      } catch {
        // a torn last line (a writer killed mid-write) or a hand edit
      }
    }
    return out;
  }

  close(): void {
    this.logs?.close();
    this.logs = undefined;
  }
}
