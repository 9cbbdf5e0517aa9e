import { adapterForPath } from '../languages';
import { lineStartOffsets } from '../parse/nodes';
import { parseWithDeadline } from '../parse/parse';
import { classifyFunctions, DEFAULT_PARSE_DEADLINE_MS } from './extract';
import { RELEASE_FILTERS, type DropRule, type FilterConfig } from './filters';

export interface DocumentFunction {
  name: string;
  startLine: number;
  endLine: number;
  nonCommentLines: number;
  rule: DropRule | null;
}

/**
 * The functions of one open document with their verdicts, for the editor. `relPath` decides the
 * test-file rule, so pass the path relative to the workspace folder where there is one.
 */
export async function classifyDocument(relPath: string, text: string, filters: Partial<FilterConfig> = {}): Promise<DocumentFunction[]> {
  const adapter = adapterForPath(relPath);
  if (!adapter) return [];
  const parsed = await parseWithDeadline(adapter.id, text, DEFAULT_PARSE_DEADLINE_MS);
  if ('timedOut' in parsed) return [];
  try {
    return classifyFunctions(adapter, relPath, text, lineStartOffsets(text), parsed.tree, { ...RELEASE_FILTERS, ...filters }).map((c) => ({
      name: c.fn.name,
      startLine: c.fn.startLine,
      endLine: c.fn.endLine,
      nonCommentLines: c.nonCommentLines,
      rule: c.rule,
    }));
  } finally {
    parsed.tree.delete();
  }
}
