/**
 * The annotator's run picker without `vscode`: which folders are runs, and how each is described
 * (when, how many tasks and results, which provider). The extension's own runs live in two places:
 * benchmarks under its global storage (`runs/<date>-<provider>-<mode>`) and the editor's scorings
 * under the workspace's storage (`runs/editor`, src/server/editor-run.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface RunFolderInfo {
  dir: string;
  /** results.jsonl's last change: when the run last added a result. */
  modifiedMs: number;
  /** Distinct tasks and results in results.jsonl; undefined when the file is too big to count here. */
  tasks?: number;
  results?: number;
  bytes: number;
  /** run.json's labels (benchmarks); the editor's folder has none. */
  provider?: string;
  model?: string;
  mode?: string;
  /** The editor's own scorings (`runs/editor`). */
  editor: boolean;
}

/** What the picker reads of a result row. */
interface PickedRow {
  id?: string;
  task_id?: string | number;
  xrt?: { language?: string; sample?: number; round?: number; test_hash?: string; suite?: { tests?: number; test_hash?: string } };
}

/**
 * The rows the annotator's table shows for a result line: the key of its test (the engine's
 * store/annotations.ts `resultKey`: task, sample, round and the test's hash), and its suite's from
 * improvement rounds, a row of its own (`suiteKey`). The extension cannot import the engine;
 * test/unit/run-picker.test.ts checks the picker counts the rows the table does.
 */
function rowKeysOf(task: string, r: PickedRow): string[] {
  const x = r.xrt ?? {};
  const key = `${task}#${x.sample}#${x.round}#${x.test_hash}`;
  const suite = x.suite;
  if (!suite || typeof suite.tests !== 'number' || suite.tests < 2 || suite.test_hash === x.test_hash) return [key];
  return [key, `${task}#${x.sample}#${x.round}#${suite.test_hash}`];
}

/** Counting reads the whole file: past this, the picker says its size instead. */
const COUNT_MAX_BYTES = 5 * 1024 * 1024;

/** A run folder's description, or undefined when it holds no results.jsonl. */
export function readRunFolder(dir: string): RunFolderInfo | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(path.join(dir, 'results.jsonl'));
  } catch {
    return undefined;
  }
  if (!stat.isFile()) return undefined;
  const info: RunFolderInfo = { dir, modifiedMs: stat.mtimeMs, bytes: stat.size, editor: path.basename(dir) === 'editor' };
  if (stat.size <= COUNT_MAX_BYTES) {
    const ids = new Set<string>();
    const rows = new Set<string>();
    for (const line of fs.readFileSync(path.join(dir, 'results.jsonl'), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const r = JSON.parse(line) as PickedRow;
        const task = typeof r.id === 'string' ? r.id : `${r.xrt?.language}:${String(r.task_id)}`;
        ids.add(task);
        for (const key of rowKeysOf(task, r)) rows.add(key);
      } catch {
        /* a torn last line of a run still being written */
      }
    }
    info.tasks = ids.size;
    // The annotator table's rows: a test written twice (scored, then with its mutants) is one; a suite
    // from improvement rounds is one more, beside the slot's first test.
    info.results = rows.size;
  }
  try {
    const settings = JSON.parse(fs.readFileSync(path.join(dir, 'run.json'), 'utf8')) as { provider?: unknown; model?: unknown; mode?: unknown };
    if (typeof settings.provider === 'string') info.provider = settings.provider;
    if (typeof settings.model === 'string') info.model = settings.model;
    if (typeof settings.mode === 'string') info.mode = settings.mode;
  } catch {
    /* no run.json: the editor's folder, or a run made elsewhere */
  }
  return info;
}

/** The run folders directly under each parent (and the parents that are runs themselves), newest first, each once. */
export function findRunFolders(parents: readonly string[]): RunFolderInfo[] {
  const seen = new Set<string>();
  const found: RunFolderInfo[] = [];
  const consider = (dir: string): void => {
    const resolved = path.resolve(dir);
    if (seen.has(resolved)) return;
    seen.add(resolved);
    const info = readRunFolder(resolved);
    if (info) found.push(info);
  };
  for (const parent of parents) {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(parent, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) if (e.isDirectory()) consider(path.join(parent, e.name));
  }
  return found.sort((a, b) => b.modifiedMs - a.modifiedMs);
}

const pad = (n: number): string => String(n).padStart(2, '0');
const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;

/** `2026-12-02 06:42`, local time as the user reads it. */
export function formatRunDate(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The quick pick item's words: what the run is, then when, how much and with what. */
export function runPickItem(info: RunFolderInfo): { label: string; description: string; detail: string } {
  const label = info.editor ? '$(edit) Scorings in the editor' : `$(beaker) ${path.basename(info.dir)}`;
  const size =
    info.tasks === undefined || info.results === undefined
      ? `results.jsonl of ${Math.round(info.bytes / (1024 * 1024))} MB`
      : `${plural(info.tasks, 'task')}, ${plural(info.results, 'result')}`;
  const labels = info.provider ? [info.provider === 'baseline' || !info.model || info.model === info.provider ? info.provider : `${info.provider} ${info.model}`, info.mode].filter(Boolean).join(', ') : info.editor ? 'the editor\'s provider at each scoring' : undefined;
  return { label, description: [formatRunDate(info.modifiedMs), size, labels].filter(Boolean).join(' · '), detail: info.dir };
}
