import type { Node } from 'web-tree-sitter';
import type { TestOnlyItem } from '../execution-types';
import { field, named } from '../../parse/nodes';

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
export type GatedItem = TestOnlyItem;

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
