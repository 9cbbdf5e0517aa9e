import * as fs from 'node:fs';
import * as path from 'node:path';
import { extractRepository } from '../extract/extract';
import type { FilterConfig } from '../extract/filters';
import { writeJsonlAtomic } from '../tasks/jsonl';

/**
 * A workspace's focal functions as a task file in the run folder (a benchmark of "the open folder",
 * from the editor or an agent): the run then names its dataset like any other, and a resumed run finds
 * the same tasks (their ids are stable across extractions). `hint` says how the caller's user widens
 * the filter when nothing is kept.
 */
export async function writeWorkspaceTasks(
  folder: string,
  runDir: string,
  filters: Pick<FilterConfig, 'minLines' | 'maxLines'>,
  hint: string,
  signal: AbortSignal,
  log: (line: string) => void,
): Promise<string> {
  const { tasks, summary } = await extractRepository(folder, { filters, signal });
  if (!tasks.length) {
    throw new Error(`no focal function in ${folder} (${summary.seen} functions seen, none within ${filters.minLines}–${filters.maxLines} lines with a return value): ${hint}`);
  }
  fs.mkdirSync(runDir, { recursive: true });
  const file = path.join(runDir, 'workspace-tasks.jsonl');
  writeJsonlAtomic(file, tasks);
  log(`extracted ${tasks.length} focal functions from ${folder} into ${file}`);
  return file;
}
