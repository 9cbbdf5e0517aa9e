import { createHash } from 'node:crypto';
import type { LspContext, RetrievedWindow } from '../context/types';

/** The `file` mode's block (the release's file_context), in front of the user prompt. */
export function renderFileBlock(filePath: string, content: string): string {
  return `\n#CURRENT FILE: ${filePath}\n${content}\n#ENDFILE\n`;
}

export interface RetrievalBlockOptions {
  /**
   * A budget for all windows' text together: windows go in rank order, the one that would overrun is
   * cut at a line break to fit, and the rest are left out. Default: no limit.
   */
  maxChars?: number;
  /** Each window cut to this many characters (at a line break); the release can truncate its top-k. */
  maxCharsPerWindow?: number;
}

/** `text` cut to at most `max` characters, at the last line break that fits (else hard). */
function cutAtLine(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max);
  const nl = head.lastIndexOf('\n');
  return nl > 0 ? head.slice(0, nl) : head;
}

/**
 * The `bm25` / `dense` block: `#RELEVANT CONTEXT`, the windows as `Example n:` separated by blank lines,
 * `#END_OF_CONTEXT`, then a blank line. No windows, no block.
 */
export function renderRetrievalBlock(windows: readonly RetrievedWindow[], options: RetrievalBlockOptions = {}): string {
  const texts: string[] = [];
  let budget = options.maxChars ?? Infinity;
  for (const w of windows) {
    let text = options.maxCharsPerWindow !== undefined ? cutAtLine(w.text, options.maxCharsPerWindow) : w.text;
    if (text.length > budget) text = cutAtLine(text, budget);
    if (text.trim() === '') break;
    texts.push(text);
    budget -= text.length;
  }
  if (texts.length === 0) return '';
  return `#RELEVANT CONTEXT\n${texts.map((t, i) => `Example ${i + 1}:\n${t}`).join('\n\n')}\n#END_OF_CONTEXT\n\n`;
}

/**
 * The `lsp` block: the three kinds of context between the release's markers, snippets separated by
 * blank lines. A snippet is shown once — a type both an argument's and a callee's definition needs
 * appears under the first kind only (the release deduplicates by MD5 of the text). A context with
 * nothing in it gives no block, as the release's records without LSP data prompt like `standard`.
 */
export function renderLspBlock(ctx: LspContext): string {
  const seen = new Set<string>();
  const unique = (snippets: readonly string[]): string[] =>
    snippets
      .map((s) => s.replace(/\s+$/, ''))
      .filter((s) => {
        if (s.trim() === '') return false;
        const key = createHash('md5').update(s).digest('hex');
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
  const args = unique(ctx.argumentDefinitions);
  const callees = unique(ctx.calleeDefinitions);
  const conditions = unique(ctx.conditionReferences);
  if (args.length + callees.length + conditions.length === 0) return '';
  const section = (open: string, items: string[], close: string): string => `${open}\n${items.map((s) => `${s}\n`).join('\n')}${close}\n`;
  return (
    '#LSP_CONTEXT\n' +
    section('#ARGUMENT_DEFINITIONS', args, '#END_OF_DEFINITIONS') +
    section('#CALLEE_DEFINITIONS', callees, '#END_CALLEE_DEFINITIONS') +
    section('#CONDITION_REFERENCES', conditions, '#END_CONDITION_REFERENCES') +
    '#END_LSP_CONTEXT\n'
  );
}
