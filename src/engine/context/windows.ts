import { adapterFor } from '../languages';
import { DEFAULT_EXCLUDED_DIRS, listSourceFiles, readSourceText } from '../extract/files';
import type { LanguageId } from '../parse/grammars';
import { parseWithDeadline } from '../parse/parse';
import type { TaskRecord } from '../tasks/record';
import { pathInRepository } from '../tasks/task-path';
import type { RetrievedWindow } from './types';

/** Where a window's text occurs: repository-relative path, 1-based inclusive lines. */
export interface WindowLocation {
  file: string;
  startLine: number;
  endLine: number;
}

/** A window of repository code; identical texts are one window with every place they occur. */
export interface CodeWindow {
  text: string;
  /** Sorted by file path, then start line. */
  locations: WindowLocation[];
}

/** A ranked window: its first location stands for it, and every location is kept. */
export interface RankedWindow extends RetrievedWindow {
  locations: WindowLocation[];
}

export interface WindowOptions {
  /** Lines per window; the paper: 50. */
  windowLines?: number;
  /** Lines between window starts; the paper: 50 / 10 = 5. */
  stride?: number;
  /** Drop windows from test files that mention the focal function (leakage); default true. */
  excludeLeakage?: boolean;
  excludedDirs?: readonly string[];
  /** Larger files are skipped (generated code, data), as extraction does; default 2 MiB. */
  maxFileBytes?: number;
  /** Per-file parse deadline when looking for in-file tests; default 10 s. */
  parseDeadlineMs?: number;
}

export const DEFAULT_WINDOW_LINES = 50;
export const DEFAULT_STRIDE = 5;

/** Lines as Python's splitlines() gives them for '\n' / '\r\n' text: no empty line after a final newline. */
function splitLines(text: string): string[] {
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * The sliding windows of one file, cut as the release cuts them (RepoCoder's window maker, whose
 * metadata — `fpath_tuple`, `line_no`, `start_line_no`, `end_line_no` — its records carry): a window is
 * centred on every `stride`-th line, from half a window before it to half a window after, clipped to
 * the file. So inside a file every window is `windowLines` long; the first and last few are shorter
 * (at least half a window) and repeat each other's lines. Whitespace-only windows are left out.
 */
export function slideWindows(text: string, file: string, windowLines = DEFAULT_WINDOW_LINES, stride = DEFAULT_STRIDE): CodeWindow[] {
  if (windowLines < 1 || stride < 1) throw new Error(`window size and stride must be positive (got ${windowLines}, ${stride})`);
  const lines = splitLines(text);
  const before = Math.floor(windowLines / 2);
  const out: CodeWindow[] = [];
  for (let line = 0; line < lines.length; line += stride) {
    const start = Math.max(0, line - before);
    const end = Math.min(lines.length, line + windowLines - before);
    const body = lines.slice(start, end).join('\n');
    if (body.trim() === '') continue;
    out.push({ text: body, locations: [{ file, startLine: start + 1, endLine: end }] });
  }
  return out;
}

/** Identical texts become one window, in first-seen order, keeping every location. */
export function mergeIdentical(windows: Iterable<CodeWindow>): CodeWindow[] {
  const byText = new Map<string, CodeWindow>();
  for (const w of windows) {
    const seen = byText.get(w.text);
    if (seen) seen.locations.push(...w.locations);
    else byText.set(w.text, { text: w.text, locations: [...w.locations] });
  }
  const out = [...byText.values()];
  for (const w of out) w.locations.sort(compareLocations);
  return out;
}

export function compareLocations(a: WindowLocation, b: WindowLocation): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  return a.startLine - b.startLine;
}

/** The focal file's path inside the repository: `file_path` is `<repo folder>/<path in repo>`. */
export function focalRelPath(task: TaskRecord): string {
  return pathInRepository(task.file_path);
}

/** The identifier alone: `Base.show` -> `show`, `fn{T}` -> `fn` (Julia), `valid?` stays. */
export function bareFunctionName(task: TaskRecord): string {
  return task.function_name.replace(/\{.*$/, '').replace(/^.*[.:]/, '');
}

/** Whether `text` uses `name` as a whole identifier (not as part of a longer one). */
export function mentions(text: string, name: string): boolean {
  if (!name) return false;
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![A-Za-z0-9_])${escaped}(?![A-Za-z0-9_])`).test(text);
}

/**
 * Lines (1-based, inclusive) of test code inside a source file that mentions `name`: test functions
 * (what the adapter marks `isTestCode`: Rust `#[test]` functions, methods of PHP TestCase classes) that
 * mention it, and whole Rust `#[cfg(test)]` modules that do — a module's tests may reach the function
 * through a helper, and its expected values are the leak. A file that does not parse in time yields none.
 */
async function inFileTestsMentioning(language: LanguageId, source: string, name: string, deadlineMs: number): Promise<Array<[number, number]>> {
  const parsed = await parseWithDeadline(language, source, deadlineMs);
  if ('timedOut' in parsed) return [];
  try {
    const ranges: Array<[number, number]> = adapterFor(language)
      .listFunctions(parsed.tree, source)
      .filter((fn) => fn.isTestCode && mentions(fn.node.text, name))
      .map((fn) => [fn.startLine, fn.endLine]);
    for (const item of adapterFor(language).testOnlyItems?.(parsed.tree.rootNode) ?? []) {
      if (mentions(source.slice(item.startIndex, item.endIndex), name)) ranges.push([item.startLine, item.endLine]);
    }
    return ranges;
  } finally {
    parsed.tree.delete(); // WASM memory is not garbage-collected
  }
}

/**
 * The retrieval corpus for one task: windows over the repository's source files of the task's
 * language, merged when identical. A window that overlaps the focal function in its own file is
 * dropped whole (its text contains the function itself, wherever else it also occurs). With
 * `excludeLeakage`, the function's existing tests are left out too: every window of a test file that
 * mentions the function by name, and, inside source files, every window that overlaps a test function
 * mentioning it (Rust keeps its unit tests in `#[cfg(test)]` modules next to the code).
 */
export async function buildWindows(repoDir: string, task: TaskRecord, language: LanguageId, options: WindowOptions = {}): Promise<CodeWindow[]> {
  const windowLines = options.windowLines ?? DEFAULT_WINDOW_LINES;
  const stride = options.stride ?? DEFAULT_STRIDE;
  const excludeLeakage = options.excludeLeakage ?? true;
  const maxFileBytes = options.maxFileBytes ?? 2 * 1024 * 1024;
  const adapter = adapterFor(language);
  const focalFile = focalRelPath(task);
  const { start_line: focalStart, end_line: focalEnd } = task.function_component;
  const name = bareFunctionName(task);
  const overlaps = (l: WindowLocation, start: number, end: number): boolean => l.startLine <= end && l.endLine >= start;

  const all: CodeWindow[] = [];
  const { files } = listSourceFiles(repoDir, new Set([language]), options.excludedDirs ?? DEFAULT_EXCLUDED_DIRS);
  for (const file of files) {
    if (file.size > maxFileBytes) continue;
    const read = readSourceText(file.absPath);
    if (read.kind !== 'text') continue;
    let windows = slideWindows(read.text, file.relPath, windowLines, stride);
    if (excludeLeakage && mentions(read.text, name)) {
      if (adapter.isTestFile(file.relPath)) continue;
      const tests = await inFileTestsMentioning(language, read.text, name, options.parseDeadlineMs ?? 10_000);
      windows = windows.filter((w) => !tests.some(([start, end]) => overlaps(w.locations[0], start, end)));
    }
    all.push(...windows);
  }
  const overlapsFocal = (l: WindowLocation): boolean => l.file === focalFile && overlaps(l, focalStart, focalEnd);
  return mergeIdentical(all).filter((w) => !w.locations.some(overlapsFocal));
}

/**
 * The k best windows by score, highest first; equal scores are ordered by file path then start line
 * (rank_bm25's argsort leaves ties in no promised order, and a prompt must not change between runs).
 */
export function rankWindows(windows: readonly CodeWindow[], scores: readonly number[], k: number): RankedWindow[] {
  if (scores.length !== windows.length) throw new Error(`${scores.length} scores for ${windows.length} windows`);
  const order = windows.map((_, i) => i);
  order.sort((i, j) => scores[j] - scores[i] || compareLocations(windows[i].locations[0], windows[j].locations[0]));
  return order.slice(0, Math.max(0, k)).map((i) => {
    const w = windows[i];
    const first = w.locations[0];
    return { file: first.file, startLine: first.startLine, endLine: first.endLine, text: w.text, score: scores[i], locations: w.locations };
  });
}

export type PublishedRetriever = 'bm25' | 'dense';

const PUBLISHED_FIELD: Record<PublishedRetriever, string> = {
  bm25: 'retrieved_contexts_bm25',
  dense: 'retrieved_contexts_unixcoder',
};

interface PublishedMetadata {
  fpath_tuple?: unknown;
  start_line_no?: unknown;
  end_line_no?: unknown;
}

/**
 * The windows an enriched release record carries (notes §1), in the order published, or null when the
 * record has none; without `retriever`, whichever of the two fields the record has (BM25 first). The release's metadata follows RepoCoder: `fpath_tuple` is the path split into
 * parts, `start_line_no` a 0-based first line and `end_line_no` an exclusive end, so the window is
 * lines start_line_no + 1 … end_line_no here. The score is `bm25_score` or whatever `*score` field the
 * item has (0 when none).
 */
export function publishedWindows(task: TaskRecord, retriever?: PublishedRetriever, k?: number): RetrievedWindow[] | null {
  const which = retriever ?? (Array.isArray(task[PUBLISHED_FIELD.bm25]) ? 'bm25' : 'dense');
  const items = task[PUBLISHED_FIELD[which]];
  if (!Array.isArray(items)) return null;
  const out: RetrievedWindow[] = [];
  for (const item of items as Array<Record<string, unknown>>) {
    if (!item || typeof item.context !== 'string') continue;
    const meta = (Array.isArray(item.metadata) ? item.metadata[0] : item.metadata) as PublishedMetadata | undefined;
    const file = Array.isArray(meta?.fpath_tuple) ? meta.fpath_tuple.join('/') : '';
    const start = typeof meta?.start_line_no === 'number' ? meta.start_line_no + 1 : 0;
    const end = typeof meta?.end_line_no === 'number' ? meta.end_line_no : 0;
    const scoreKey = Object.keys(item).find((key) => /score$/.test(key) && typeof item[key] === 'number');
    out.push({ file, startLine: start, endLine: end, text: item.context, score: scoreKey ? (item[scoreKey] as number) : 0 });
  }
  return k === undefined ? out : out.slice(0, k);
}
