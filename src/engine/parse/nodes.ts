import type { Node, Tree } from 'web-tree-sitter';

/** Named children, without the nulls web-tree-sitter's typings allow. */
export function named(node: Node): Node[] {
  return node.namedChildren.filter((c): c is Node => c !== null);
}

export function children(node: Node): Node[] {
  return node.children.filter((c): c is Node => c !== null);
}

export function field(node: Node, name: string): Node | null {
  return node.childForFieldName(name);
}

/** Depth-first search below `node`; `prune` stops descent into a subtree (its root is still tested). */
export function findDescendant(node: Node, test: (n: Node) => boolean, prune?: (n: Node) => boolean): Node | null {
  const stack: Node[] = [...children(node)].reverse();
  while (stack.length) {
    const n = stack.pop()!;
    if (test(n)) return n;
    if (prune?.(n)) continue;
    for (let i = n.childCount - 1; i >= 0; i--) {
      const c = n.child(i);
      if (c) stack.push(c);
    }
  }
  return null;
}

export function hasDescendantOfType(node: Node, types: ReadonlySet<string>): boolean {
  return findDescendant(node, (n) => types.has(n.type)) !== null;
}

/** All descendants of the given types (not descending into matches). */
export function descendantsOfTypes(node: Node, types: ReadonlySet<string>): Node[] {
  const out: Node[] = [];
  const stack: Node[] = [node];
  while (stack.length) {
    const n = stack.pop()!;
    if (n !== node && types.has(n.type)) {
      out.push(n);
      continue;
    }
    for (let i = n.childCount - 1; i >= 0; i--) {
      const c = n.child(i);
      if (c) stack.push(c);
    }
  }
  return out;
}

/** The last named child that is not a comment. */
export function lastStatement(nodes: Node[], commentTypes: ReadonlySet<string>): Node | null {
  for (let i = nodes.length - 1; i >= 0; i--) if (!commentTypes.has(nodes[i].type)) return nodes[i];
  return null;
}

/** Source text from `from`'s start up to `until`'s start (exclusive), whitespace collapsed. */
export function headerText(source: string, from: Node, until: Node | null): string {
  const end = until ? until.startIndex : from.endIndex;
  return source.slice(from.startIndex, end).replace(/\s+/g, ' ').trim();
}

/**
 * Lines (1-based, within startLine..endLine) that hold a non-whitespace character outside comments.
 * Works on the text, with comment spans blanked, so a line holding code and a trailing comment counts.
 */
export function nonCommentLines(source: string, lineStarts: number[], node: Node, commentTypes: ReadonlySet<string>): number {
  const startRow = node.startPosition.row;
  const endRow = node.endPosition.row;
  const from = lineStarts[startRow];
  const to = endRow + 1 < lineStarts.length ? lineStarts[endRow + 1] : source.length;
  const chars = source.slice(from, to).split('');
  for (const c of descendantsOfTypes(node, commentTypes)) {
    for (let i = Math.max(c.startIndex, from); i < Math.min(c.endIndex, to); i++) {
      if (chars[i - from] !== '\n') chars[i - from] = ' ';
    }
  }
  let count = 0;
  for (const line of chars.join('').split('\n').slice(0, endRow - startRow + 1)) if (/\S/.test(line)) count++;
  return count;
}

/** Offsets (UTF-16 units, like tree-sitter's indices on JS strings) where each line starts. */
export function lineStartOffsets(source: string): number[] {
  const starts = [0];
  for (let i = 0; i < source.length; i++) if (source.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

/** The full lines start..end (1-based, inclusive) of a text, as they appear in it. */
export function sliceLines(source: string, lineStarts: number[], startLine: number, endLine: number): string {
  const from = lineStarts[startLine - 1];
  let to = endLine < lineStarts.length ? lineStarts[endLine] - 1 : source.length;
  if (to > from && source[to - 1] === '\r') to--;
  return source.slice(from, to);
}

export function treeHasError(tree: Tree): boolean {
  return tree.rootNode.hasError;
}
