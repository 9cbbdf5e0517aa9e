import * as path from 'node:path';
import { ScoringRunFolder } from '../engine/task/scoring-run-folder';

/**
 * The workspace's run folder for what the editor scores: `<extension storage>/runs/editor`, beside
 * the benchmark runs the annotator already looks in (the engine's ScoringRunFolder: records as a
 * benchmark writes them, checkouts.json naming the workspace folder).
 */
export class EditorRunFolder extends ScoringRunFolder {
  /** The folder for a storage path the extension gave at start. */
  static inStorage(storagePath: string): EditorRunFolder {
    return new EditorRunFolder(path.join(storagePath, 'runs', 'editor'));
  }
}
