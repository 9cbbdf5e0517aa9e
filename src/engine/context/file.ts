import type { Node } from 'web-tree-sitter';
import { field, named } from '../parse/nodes';
import type { LanguageId } from '../parse/grammars';
import { parseWithDeadline } from '../parse/parse';
import type { TaskRecord } from '../tasks/record';

const PARSE_DEADLINE_MS = 10_000;

/** Item kinds whose bodies can hold further test-gated items. */
const CONTAINERS = new Set(['mod_item', 'impl_item', 'trait_item']);

/**
 * `#[cfg(test)]`, or `#[cfg(all(…, test, …))]`: compiled only for tests. `cfg(any(test, …))` and
 * `cfg(not(test))` also build outside tests and are kept.
 */
export function isTestGate(attributeText: string): boolean {
  const compact = attributeText.replace(/\s+/g, '');
  if (compact === '#[cfg(test)]') return true;
  const open = '#[cfg(all(';
  if (!compact.startsWith(open) || !compact.endsWith('))]')) return false;
  // Split at top-level commas only (`feature="x"` has none inside parentheses, `not(a,b)` does).
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of compact.slice(open.length, -3)) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  return parts.includes('test');
}

function isDocComment(n: Node): boolean {
  return (n.type === 'line_comment' && /^\/\/\/(?!\/)/.test(n.text)) || (n.type === 'block_comment' && /^\/\*\*(?!\*)/.test(n.text));
}

/** A test-gated item, from its doc comments and attributes to its end. */
export interface GatedItem {
  /** [start, end) offsets in the source. */
  startIndex: number;
  endIndex: number;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
}

/**
 * Every `#[cfg(test)]`-gated item of a Rust tree, outermost only, in source order; items that are not
 * gated (modules, impls, traits) are searched inside.
 */
export function testGatedItems(root: Node): GatedItem[] {
  const out: GatedItem[] = [];
  testGatedRanges(root, out);
  return out;
}

function testGatedRanges(container: Node, out: GatedItem[]): void {
  let pending: Node[] = []; // attributes and comments since the last item
  for (const n of named(container)) {
    if (n.type === 'attribute_item' || n.type === 'line_comment' || n.type === 'block_comment') {
      pending.push(n);
      continue;
    }
    const attrs = pending.filter((p) => p.type === 'attribute_item');
    if (attrs.some((a) => isTestGate(a.text))) {
      // Doc comments directly above the first attribute describe the test item: they go with it.
      let first = pending.indexOf(attrs[0]);
      while (first > 0 && isDocComment(pending[first - 1])) first--;
      const start = pending[first];
      out.push({ startIndex: start.startIndex, endIndex: n.endIndex, startLine: start.startPosition.row + 1, endLine: n.endPosition.row + 1 });
    } else if (CONTAINERS.has(n.type)) {
      const body = field(n, 'body');
      if (body) testGatedRanges(body, out);
    }
    pending = [];
  }
}

/** Cuts [start, end) ranges out of a text, taking the rest of each last line and its line break along. */
function cutRanges(source: string, ranges: readonly GatedItem[]): string {
  let out = '';
  let from = 0;
  for (const { startIndex: start, endIndex: end } of ranges) {
    // From the start of the line when only indentation precedes the range, so no stray spaces remain.
    const lineStart = source.lastIndexOf('\n', start - 1) + 1;
    const cutFrom = /^[ \t]*$/.test(source.slice(lineStart, start)) ? lineStart : start;
    let cutTo = end;
    const rest = /^[ \t]*\r?\n/.exec(source.slice(end));
    if (rest) cutTo += rest[0].length;
    out += source.slice(from, cutFrom);
    from = cutTo;
  }
  return out + source.slice(from);
}

/**
 * Rust source without its test-only items (`#[cfg(test)] mod tests { … }`, `#[cfg(test)] fn …`), at any
 * depth, found with tree-sitter. Blank lines left at the end of the file are trimmed. A file that is
 * test-only as a whole (`#![cfg(test)]`) is returned unchanged: it is not a focal file.
 */
export async function stripRustTestItems(source: string): Promise<string> {
  const parsed = await parseWithDeadline('rust', source, PARSE_DEADLINE_MS);
  if ('timedOut' in parsed) return source; // better the whole file than none
  try {
    const ranges = testGatedItems(parsed.tree.rootNode);
    if (ranges.length === 0) return source;
    const stripped = cutRanges(source, ranges);
    return source.endsWith('\n') ? `${stripped.replace(/\s+$/, '')}\n` : stripped.replace(/\s+$/, '');
  } finally {
    parsed.tree.delete(); // WASM memory is not garbage-collected
  }
}

/**
 * The `file` mode's context: the focal file as recorded (`file_content`), for Rust without its test
 * items, as the release strips `#[cfg(test)]` modules (they would hand the model existing tests).
 */
export async function fileContext(task: TaskRecord, language: LanguageId): Promise<string> {
  return language === 'rust' ? stripRustTestItems(task.file_content) : task.file_content;
}
