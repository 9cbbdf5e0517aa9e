import { Query, type Language, type Node, type Tree } from 'web-tree-sitter';

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

/**
 * The first descendant (depth-first, in source order) of one of the given types, or null. Walks with a
 * TreeCursor: creating a Node per child crosses the WASM boundary and dominated extraction time.
 */
export function findDescendantOfType(node: Node, types: string | ReadonlySet<string>): Node | null {
  const match = typeof types === 'string' ? (t: string) => t === types : (t: string) => types.has(t);
  const cursor = node.walk();
  try {
    if (!cursor.gotoFirstChild()) return null;
    let depth = 1;
    for (;;) {
      if (match(cursor.nodeType)) return cursor.currentNode;
      if (cursor.gotoFirstChild()) {
        depth++;
        continue;
      }
      while (!cursor.gotoNextSibling()) {
        cursor.gotoParent();
        if (--depth === 0) return null;
      }
    }
  } finally {
    cursor.delete();
  }
}

const rangeQueries = new WeakMap<Language, Map<string, Query>>();

/**
 * [start, end) offsets of every node of the given types in the tree, in source order. A query runs
 * inside WASM and hands back only the matches; walking every node from JavaScript cost more than
 * parsing did.
 */
export function rangesOfTypes(tree: Tree, types: ReadonlySet<string>): Array<[number, number]> {
  const key = [...types].sort().join(' ');
  let byKey = rangeQueries.get(tree.language);
  if (!byKey) rangeQueries.set(tree.language, (byKey = new Map()));
  let query = byKey.get(key);
  if (!query) byKey.set(key, (query = new Query(tree.language, `[${[...types].map((t) => `(${t})`).join(' ')}] @n`)));
  const out: Array<[number, number]> = [];
  let lastEnd = -1;
  for (const { node } of query.captures(tree.rootNode)) {
    if (node.startIndex < lastEnd) continue; // nested in the previous match
    out.push([node.startIndex, node.endIndex]);
    lastEnd = node.endIndex;
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
 * For each line of a file (0-based), whether it holds a non-whitespace character outside comments.
 * Computed once per file from the comment ranges, so a line holding code and a trailing comment counts.
 */
export function codeLineFlags(source: string, lineStarts: number[], comments: Array<[number, number]>): Uint8Array {
  const flags = new Uint8Array(lineStarts.length);
  let line = 0;
  let c = 0;
  for (let i = 0; i < source.length; i++) {
    while (c < comments.length && comments[c][1] <= i) c++;
    if (c < comments.length && comments[c][0] <= i) {
      i = comments[c][1] - 1; // skip the comment; line is caught up below
      continue;
    }
    const ch = source.charCodeAt(i);
    while (line + 1 < lineStarts.length && lineStarts[line + 1] <= i) line++;
    if (ch !== 32 && ch !== 9 && ch !== 10 && ch !== 13 && ch !== 12 && ch !== 11 && ch !== 0xfeff) flags[line] = 1;
  }
  return flags;
}

/** How many lines startLine..endLine (1-based, inclusive) hold code, by `codeLineFlags`. */
export function countCodeLines(flags: Uint8Array, startLine: number, endLine: number): number {
  let n = 0;
  for (let l = startLine - 1; l < endLine && l < flags.length; l++) n += flags[l];
  return n;
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
