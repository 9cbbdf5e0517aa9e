import { adapterForPath } from '../languages';
import { lineStartOffsets } from '../parse/nodes';
import { parseWithDeadline } from '../parse/parse';
import * as path from 'node:path';
import type { TaskRecord } from '../tasks/record';
import { describeRepository } from '../tasks/repository';
import { classifyFunctions, DEFAULT_PARSE_DEADLINE_MS, toRecord } from './extract';
import { RELEASE_FILTERS, type DropRule, type FilterConfig, type UntestableReason } from './filters';

export interface DocumentFunction {
  name: string;
  startLine: number;
  endLine: number;
  nonCommentLines: number;
  /** The benchmark's verdict: null for a focal function. */
  rule: DropRule | null;
  /** Why no test can call it in place, or null when one can (a lens with "all", and the palette, may target it). */
  untestable: UntestableReason | null;
  /** The nested project's folder, for `nested-module`. */
  nestedProject?: string;
}

/**
 * The functions of one open document with their verdicts, for the editor. `relPath` decides the
 * test-file rule, so pass the path relative to the workspace folder where there is one; with `root`
 * (that folder) nested projects are found too.
 */
export async function classifyDocument(relPath: string, text: string, filters: Partial<FilterConfig> = {}, root?: string): Promise<DocumentFunction[]> {
  const adapter = adapterForPath(relPath);
  if (!adapter) return [];
  const parsed = await parseWithDeadline(adapter.id, text, DEFAULT_PARSE_DEADLINE_MS);
  if ('timedOut' in parsed) return [];
  try {
    return classifyFunctions(adapter, relPath, text, lineStartOffsets(text), parsed.tree, { ...RELEASE_FILTERS, ...filters }, '', undefined, root).map((c) => ({
      name: c.fn.name,
      startLine: c.fn.startLine,
      endLine: c.fn.endLine,
      nonCommentLines: c.nonCommentLines,
      rule: c.rule,
      untestable: c.untestable,
      ...(c.nestedProject !== undefined ? { nestedProject: c.nestedProject } : {}),
    }));
  } finally {
    parsed.tree.delete();
  }
}

/**
 * The task for the function starting at `startLine` of an open document, as `extract` would write it
 * (the repository is the workspace folder), or null when no test can call that function in place. A
 * function only the benchmark's filter drops (too short, an accessor, no return value) is a task too:
 * the filter picks benchmark tasks, it does not decide what a user may test.
 */
export async function taskForDocumentFunction(root: string, relPath: string, text: string, startLine: number, filters: Partial<FilterConfig> = {}): Promise<TaskRecord | null> {
  const adapter = adapterForPath(relPath);
  if (!adapter) return null;
  const parsed = await parseWithDeadline(adapter.id, text, DEFAULT_PARSE_DEADLINE_MS);
  if ('timedOut' in parsed) return null;
  try {
    const lineStarts = lineStartOffsets(text);
    const fileScope = adapter.fileScope?.(root, relPath) ?? '';
    const inherited = await adapter.inheritedContext?.(root, relPath);
    const found = classifyFunctions(adapter, relPath, text, lineStarts, parsed.tree, { ...RELEASE_FILTERS, ...filters }, fileScope, inherited, root).find(
      (c) => c.untestable === null && c.fn.startLine === startLine,
    );
    if (!found) return null;
    const repository = describeRepository(root);
    return toRecord(0, found.fn, relPath.split(path.sep).join('/'), text, lineStarts, adapter.scopeKey, adapter.id, repository);
  } finally {
    parsed.tree.delete();
  }
}
