import * as fs from 'node:fs';
import type { Node, Tree } from 'web-tree-sitter';
import * as path from 'node:path';
import { adapterFor, adapterForPath } from '../../languages';
import type { LanguageId } from '../../parse/grammars';
import { named } from '../../parse/nodes';
import { parseWithDeadline } from '../../parse/parse';
import type { Location, Position } from '../types';
import { lspSyntax, type LspSyntax } from './syntax';

/** A whole definition in a file on disk, as LSP context shows it. */
export interface Definition {
  file: string;
  language: LanguageId;
  /** [start, end) offsets in the file's text, leading doc comments and attributes included. */
  start: number;
  end: number;
  /** 0-based rows of the definition node itself (without the leading comments). */
  startRow: number;
  endRow: number;
  text: string;
  /** The definition node; valid until its SourceCache is disposed. */
  node: Node;
}

export interface ParsedFile {
  file: string;
  language: LanguageId;
  source: string;
  tree: Tree;
}

/** Files read from disk and parsed once per context build; `dispose` frees the trees. */
export class SourceCache {
  private readonly files = new Map<string, Promise<ParsedFile | null>>();

  constructor(private readonly parseDeadlineMs = 5000) {}

  /** The parsed file, or null when it is not a source file of a known language, unreadable or too slow to parse. */
  get(file: string): Promise<ParsedFile | null> {
    let p = this.files.get(file);
    if (!p) {
      p = this.load(file);
      this.files.set(file, p);
    }
    return p;
  }

  private async load(file: string): Promise<ParsedFile | null> {
    const adapter = adapterForPath(file);
    if (!adapter) return null;
    let source: string;
    try {
      source = fs.readFileSync(file, 'utf8');
    } catch {
      return null;
    }
    const parsed = await parseWithDeadline(adapter.id, source, this.parseDeadlineMs);
    return 'tree' in parsed ? { file, language: adapter.id, source, tree: parsed.tree } : null;
  }

  async dispose(): Promise<void> {
    for (const p of this.files.values()) (await p)?.tree.delete();
    this.files.clear();
  }
}

function isDefinitionNode(n: Node, syntax: LspSyntax): boolean {
  return syntax.definitions.has(n.type) && (syntax.isDefinition?.(n) ?? true);
}

/** The outermost-first definitions that lie wholly inside [from, to] under `node`. */
function definitionWithin(node: Node, from: number, to: number, syntax: LspSyntax): Node | null {
  for (const c of named(node)) {
    if (c.endIndex <= from || c.startIndex >= to) continue;
    if (c.startIndex >= from && c.endIndex <= to && isDefinitionNode(c, syntax)) return c;
    const inner = definitionWithin(c, from, to, syntax);
    if (inner) return inner;
  }
  return null;
}

function offsetOf(lineStarts: number[], p: Position, length: number): number {
  if (p.line >= lineStarts.length) return length;
  return Math.min(lineStarts[p.line] + p.character, length);
}

function lineStarts(source: string): number[] {
  const starts = [0];
  for (let i = 0; i < source.length; i++) if (source.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

/**
 * The definition a server's answer points into: the nearest definition around the range (a name range,
 * as gopls answers), else the first definition inside it (a whole declaration with its doc comments,
 * as rust-analyzer's targetRange is). Null when the range is in no definition (a file's top, an import).
 */
export function enclosingDefinitionNode(tree: Tree, source: string, syntax: LspSyntax, range: Location['range']): Node | null {
  const starts = lineStarts(source);
  const from = offsetOf(starts, range.start, source.length);
  const to = Math.max(from, offsetOf(starts, range.end, source.length));
  for (let n: Node | null = tree.rootNode.descendantForIndex(from, to); n; n = n.parent) {
    if (isDefinitionNode(n, syntax)) return n;
  }
  return definitionWithin(tree.rootNode, from, to, syntax);
}

/** The last row a node has text on (a line comment's node ends at column 0 of the next row). */
function lastRow(n: Node): number {
  return n.endPosition.column === 0 && n.endPosition.row > n.startPosition.row ? n.endPosition.row - 1 : n.endPosition.row;
}

/** Inner doc comments (`//!`, `/*!`) document the module around, not the item after them. */
function isInnerDoc(n: Node): boolean {
  return /^\/\/!|^\/\*!/.test(n.text);
}

/**
 * Where the definition's text starts: the doc comments and attributes right above it (no blank line
 * between) belong to it.
 */
function leadingStart(node: Node, syntax: LspSyntax): number {
  let start = node.startIndex;
  let row = node.startPosition.row;
  for (let p = node.previousNamedSibling; p && syntax.leading.has(p.type) && !isInnerDoc(p) && lastRow(p) >= row - 1; p = p.previousNamedSibling) {
    start = p.startIndex;
    row = p.startPosition.row;
  }
  return start;
}

/**
 * Test code: in a test file, or inside test code the syntax shows (the language's `lsp.isTestCodeNode`:
 * Rust a #[test] function or a #[cfg(test)] module). Existing tests of the focal function would leak
 * their answers into the prompt.
 */
export function isTestDefinition(def: Definition, language: LanguageId, relPath: string): boolean {
  const adapter = adapterFor(language);
  if (adapter.isTestFile(relPath.split(path.sep).join('/'))) return true;
  const isTestCode = adapter.lsp.isTestCodeNode;
  if (!isTestCode) return false;
  for (let n: Node | null = def.node; n; n = n.parent) if (isTestCode(n)) return true;
  return false;
}

/** A definition node as context: its text from the file, with what leads it. */
export function toDefinition(file: ParsedFile, node: Node): Definition {
  const syntax = lspSyntax(file.language);
  const start = leadingStart(node, syntax);
  return { file: file.file, language: file.language, start, end: node.endIndex, startRow: node.startPosition.row, endRow: node.endPosition.row, text: file.source.slice(start, node.endIndex), node };
}

/** The whole definition a location points into, read from disk; null outside any definition. */
export async function enclosingDefinition(cache: SourceCache, location: Location): Promise<Definition | null> {
  const file = await cache.get(location.file);
  if (!file) return null;
  const node = enclosingDefinitionNode(file.tree, file.source, lspSyntax(file.language), location.range);
  return node ? toDefinition(file, node) : null;
}
