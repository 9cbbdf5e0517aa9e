import * as path from 'node:path';
import { adapterFor } from '../languages';
import type { Tree } from 'web-tree-sitter';
import type { FunctionInfo, LanguageAdapter } from '../languages/types';
import { LANGUAGE_IDS, type LanguageId } from '../parse/grammars';
import { codeLineFlags, countCodeLines, lineStartOffsets, rangesOfTypes, sliceLines } from '../parse/nodes';
import { parseWithDeadline } from '../parse/parse';
import { stableTaskId, type RepositoryRef, type TaskRecord } from '../tasks/record';
import { describeRepository } from '../tasks/repository';
import { DEFAULT_EXCLUDED_DIRS, listSourceFiles, readSourceText } from './files';
import { DEFAULT_MAX_FILE_BYTES, DEFAULT_PARSE_DEADLINE_MS } from './limits';
import { buildsOnStableRust, dropRule, emptyDropCounts, RELEASE_FILTERS, untestableReason, type DropRule, type FilterConfig, type UntestableReason } from './filters';

export interface ExtractOptions {
  languages?: readonly LanguageId[];
  filters?: Partial<FilterConfig>;
  /** Larger files are skipped (generated code, data); default 2 MiB. */
  maxFileBytes?: number;
  /** Per-file parse deadline; default 10 s. */
  parseDeadlineMs?: number;
  excludedDirs?: readonly string[];
  /** Overrides what git says about the repository. */
  repository?: RepositoryRef;
  /** The first task_id per language (to continue numbering across repositories). */
  firstTaskId?: Partial<Record<LanguageId, number>>;
  signal?: AbortSignal;
  onProgress?: (p: ExtractProgress) => void;
}

export interface ExtractProgress {
  filesDone: number;
  filesTotal: number;
  file: string;
  tasks: number;
}

export interface LanguageCounts {
  files: number;
  seen: number;
  kept: number;
  dropped: Record<DropRule, number>;
}

export interface ExtractSummary {
  repository: RepositoryRef;
  filters: FilterConfig;
  files: {
    parsed: number;
    excludedPath: number;
    binary: number;
    nonUtf8: number;
    tooLarge: number;
    /** Paths (relative to the repository) whose parse ran past the deadline. */
    timedOut: string[];
  };
  languages: Partial<Record<LanguageId, LanguageCounts>>;
  seen: number;
  kept: number;
  dropped: Record<DropRule, number>;
}

export interface ExtractResult {
  tasks: TaskRecord[];
  summary: ExtractSummary;
}

export interface ClassifiedFunction {
  fn: FunctionInfo;
  nonCommentLines: number;
  /** The rule that drops it, or null when it is a focal function. */
  rule: DropRule | null;
  /** Why no test can call it in place, or null when one can (even if the benchmark's filter drops it). */
  untestable: UntestableReason | null;
  /** The nested project (relative folder) the file belongs to, when `untestable` is `nested-module`. */
  nestedProject?: string;
}

/**
 * Every function of one parsed file with the rule that drops it, in source order. Without `root`
 * (the repository or workspace folder) nested projects are not looked for.
 */
export function classifyFunctions(
  adapter: LanguageAdapter,
  relPath: string,
  source: string,
  lineStarts: number[],
  tree: Tree,
  filters: FilterConfig,
  fileScope = '',
  inherited?: unknown,
  root?: string,
): ClassifiedFunction[] {
  const inTestFile = adapter.isTestFile(relPath);
  const nestedProject = root !== undefined ? adapter.nestedProject?.(root, relPath) : undefined;
  const codeLines = codeLineFlags(source, lineStarts, rangesOfTypes(tree, adapter.commentTypes));
  const fns = adapter.listFunctions(tree, source, fileScope, inherited).sort((a, b) => a.startLine - b.startLine);
  // Asked only when some function needs `#![feature]` (the host's rustc runs once per process).
  const stableRust = fns.some((fn) => fn.needsNightly !== undefined) && buildsOnStableRust(filters);
  return fns
    .map((fn) => {
      const lines = countCodeLines(codeLines, fn.startLine, fn.endLine);
      const input = { fn, adapter, relPath, inTestFile, nonCommentLines: lines, nestedProject, stableRust };
      return { fn, nonCommentLines: lines, rule: dropRule(input, filters), untestable: untestableReason(input), ...(nestedProject !== undefined ? { nestedProject } : {}) };
    });
}

export { DEFAULT_MAX_FILE_BYTES, DEFAULT_PARSE_DEADLINE_MS };

/** Extracts focal-function tasks from one repository (see docs/extraction.md). */
export async function extractRepository(repoDir: string, options: ExtractOptions = {}): Promise<ExtractResult> {
  const root = path.resolve(repoDir);
  const languages = new Set(options.languages ?? LANGUAGE_IDS);
  const filters: FilterConfig = { ...RELEASE_FILTERS, ...options.filters };
  const repository = options.repository ?? describeRepository(root);
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const deadlineMs = options.parseDeadlineMs ?? DEFAULT_PARSE_DEADLINE_MS;

  const walk = listSourceFiles(root, languages, options.excludedDirs ?? DEFAULT_EXCLUDED_DIRS);
  const summary: ExtractSummary = {
    repository,
    filters,
    files: { parsed: 0, excludedPath: walk.excludedPath, binary: 0, nonUtf8: 0, tooLarge: 0, timedOut: [] },
    languages: {},
    seen: 0,
    kept: 0,
    dropped: emptyDropCounts(),
  };
  const nextId: Partial<Record<LanguageId, number>> = { ...options.firstTaskId };
  const tasks: TaskRecord[] = [];
  const ids = new Set<string>();

  for (let i = 0; i < walk.files.length; i++) {
    options.signal?.throwIfAborted();
    const file = walk.files[i];
    options.onProgress?.({ filesDone: i, filesTotal: walk.files.length, file: file.relPath, tasks: tasks.length });
    const counts = (summary.languages[file.language] ??= { files: 0, seen: 0, kept: 0, dropped: emptyDropCounts() });
    if (file.size > maxFileBytes) {
      summary.files.tooLarge++;
      continue;
    }
    const read = readSourceText(file.absPath);
    if (read.kind === 'binary') {
      summary.files.binary++;
      continue;
    }
    if (read.kind === 'non-utf8') {
      summary.files.nonUtf8++;
      continue;
    }
    const parsed = await parseWithDeadline(file.language, read.text, deadlineMs);
    if ('timedOut' in parsed) {
      summary.files.timedOut.push(file.relPath);
      continue;
    }
    summary.files.parsed++;
    counts.files++;
    const adapter = adapterFor(file.language);
    const source = read.text;
    const lineStarts = lineStartOffsets(source);
    try {
      const inherited = await adapter.inheritedContext?.(root, file.relPath);
      for (const { fn, rule } of classifyFunctions(adapter, file.relPath, source, lineStarts, parsed.tree, filters, adapter.fileScope?.(root, file.relPath), inherited, root)) {
        counts.seen++;
        if (rule) {
          counts.dropped[rule]++;
          continue;
        }
        counts.kept++;
        const taskId = nextId[file.language] ?? 0;
        nextId[file.language] = taskId + 1;
        const task = toRecord(taskId, fn, file.relPath, source, lineStarts, adapter.scopeKey, file.language, repository);
        // Two identical definitions in one file (Julia methods, say) would share an id: number the later ones.
        for (let n = 2; ids.has(task.id!); n++) task.id = `${task.id!.slice(0, 16)}-${n}`;
        ids.add(task.id!);
        tasks.push(task);
      }
    } finally {
      parsed.tree.delete(); // trees live in WASM memory, which the garbage collector does not see
    }
  }
  options.onProgress?.({ filesDone: walk.files.length, filesTotal: walk.files.length, file: '', tasks: tasks.length });

  for (const c of Object.values(summary.languages)) {
    summary.seen += c.seen;
    summary.kept += c.kept;
    for (const [rule, n] of Object.entries(c.dropped)) summary.dropped[rule as DropRule] += n;
  }
  return { tasks, summary };
}

export function toRecord(
  taskId: number,
  fn: FunctionInfo,
  relPath: string,
  source: string,
  lineStarts: number[],
  scopeKey: string,
  language: LanguageId,
  repository: RepositoryRef,
): TaskRecord {
  const filePath = `${repository.name}/${relPath}`;
  const focalCode = sliceLines(source, lineStarts, fn.startLine, fn.endLine);
  return {
    task_id: taskId,
    function_name: fn.name,
    file_path: filePath,
    focal_code: focalCode,
    file_content: source,
    language,
    function_component: { name: fn.name, signature: fn.signature, start_line: fn.startLine, end_line: fn.endLine },
    metadata: { [scopeKey]: fn.scope, class_name: fn.className, class_signature: fn.classSignature, ...fn.extraMetadata },
    id: stableTaskId({
      language,
      filePath,
      className: fn.className,
      functionName: fn.name,
      focalCode,
    }),
    repository,
  };
}
