import * as path from 'node:path';
import { readCheckouts, rememberCheckout } from '../engine/store/checkout-map';
import { repositoryNameOf } from '../engine/tasks/task-path';
import { AppendOnlyStore, RunFolderLogs, type SlotStore } from '../engine/task/slot-store';
import type { TaskRecord } from '../engine/tasks/record';

/**
 * The workspace's run folder for what the editor scores: `<extension storage>/runs/editor`, beside
 * the benchmark runs the annotator already looks in. Each scoring is appended to its results.jsonl
 * (and the generation to generations.jsonl) exactly as a benchmark writes them, and checkouts.json
 * names the workspace folder, so the annotator, `report` and `report --compare` read them like a run.
 */
export class EditorRunFolder {
  private logs: RunFolderLogs | undefined;

  constructor(readonly dir: string) {}

  /** The folder for a storage path the extension gave at start. */
  static inStorage(storagePath: string): EditorRunFolder {
    return new EditorRunFolder(path.join(storagePath, 'runs', 'editor'));
  }

  /** Where a task's records go; its checkout (the workspace folder) is remembered for the viewers. */
  storeFor(task: TaskRecord, checkout: string): SlotStore {
    this.logs ??= new RunFolderLogs(this.dir);
    const repository = repositoryNameOf(task);
    if (readCheckouts(this.dir)[repository] !== path.resolve(checkout)) rememberCheckout(this.dir, repository, checkout);
    return new AppendOnlyStore(this.logs);
  }

  close(): void {
    this.logs?.close();
    this.logs = undefined;
  }
}
