import type { Node } from 'web-tree-sitter';
import { children } from '../parse/nodes';
import type { MutationEdit, MutationOperator } from './types';

/**
 * Building blocks the language modules share. Every operator is chosen from a syntax node's type and
 * its operator token, never by searching the text: the same characters mean other things elsewhere
 * (`<` in generics, `*` as a dereference, `.` as PHP's concatenation, `<:` in Julia).
 */

export function editOf(operator: MutationOperator, node: Node, replacement: string): MutationEdit {
  return {
    operator,
    line: node.startPosition.row + 1,
    startIndex: node.startIndex,
    endIndex: node.endIndex,
    original: node.text,
    replacement,
  };
}

/** Operator token -> its mutations, one edit each. */
export type OperatorTable = Readonly<Record<string, readonly string[]>>;

export const ARITHMETIC: OperatorTable = { '+': ['-'], '-': ['+'], '*': ['/'], '/': ['*'], '%': ['*'] };

/** Both a boundary change and a negation for orderings; negation for equality. */
export const RELATIONAL: OperatorTable = {
  '<': ['<=', '>='],
  '<=': ['<', '>'],
  '>': ['>=', '<='],
  '>=': ['>', '<'],
  '==': ['!='],
  '!=': ['=='],
};

export const LOGICAL: OperatorTable = { '&&': ['||'], '||': ['&&'] };

export const COMPOUND_ARITHMETIC: OperatorTable = { '+=': ['-='], '-=': ['+='], '*=': ['/='], '/=': ['*='], '%=': ['*='] };

export const INCREMENT: OperatorTable = { '++': ['--'], '--': ['++'] };

/** Mutations of an operator token, as edits of the token alone. */
export function operatorEdits(operator: MutationOperator, token: Node, table: OperatorTable): MutationEdit[] {
  return (table[token.text] ?? []).map((r) => editOf(operator, token, r));
}

/** The operator token of a binary node: its `operator` field, else its only unnamed middle child. */
export function operatorToken(node: Node): Node | null {
  const byField = node.childForFieldName('operator');
  if (byField) return byField;
  const kids = children(node);
  return kids.length === 3 ? kids[1] : null;
}

/**
 * Arithmetic, relational and logical edits of one binary node. `+` (or Julia's `*`) with a string
 * literal operand is concatenation, not arithmetic: its "mutant" would only fail to compile or crash.
 */
export function binaryEdits(
  token: Node,
  operands: Node[],
  tables: { arithmetic: OperatorTable; relational: OperatorTable; logical: OperatorTable },
  stringTypes: ReadonlySet<string>,
): MutationEdit[] {
  if (tables.logical[token.text]) return operatorEdits('logical', token, tables.logical);
  if (tables.relational[token.text]) return operatorEdits('relational', token, tables.relational);
  if (tables.arithmetic[token.text] && !operands.some((o) => stringTypes.has(o.type))) return operatorEdits('arithmetic', token, tables.arithmetic);
  return [];
}

/**
 * Depth-first over `root`'s subtree in source order. `visit` returns false to leave a node's children
 * out (macro token trees, nested closures for returns).
 */
export function walk(root: Node, visit: (node: Node) => boolean | void): void {
  const stack: Node[] = [root];
  while (stack.length) {
    const node = stack.pop()!;
    if (visit(node) === false) continue;
    const kids = children(node);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
  }
}

/** Whether `node` has an ancestor of one of `types` below `stop` (exclusive). */
export function insideAny(node: Node, types: ReadonlySet<string>, stop: Node): boolean {
  for (let p = node.parent; p && !p.equals(stop); p = p.parent) if (types.has(p.type)) return true;
  return false;
}

/**
 * An integer literal's mutant: 0 -> 1, 1 -> 0, n -> n + 1, keeping a type suffix (`1u32`). Octal,
 * hex and binary spellings are left alone (null).
 */
export function mutateInteger(text: string): string | null {
  const m = /^([0-9][0-9_]*)([iu](8|16|32|64|128|size))?$/.exec(text);
  if (!m || (m[1].length > 1 && m[1].startsWith('0'))) return null;
  const value = BigInt(m[1].replace(/_/g, ''));
  const next = value === 0n ? 1n : value === 1n ? 0n : value + 1n;
  return `${next}${m[2] ?? ''}`;
}

/** A float literal's mutant: 0 -> 1.0, anything else -> 0.0, keeping a type suffix (`1.0f64`). */
export function mutateFloat(text: string): string | null {
  const m = /^((?:[0-9][0-9_]*)?(?:\.[0-9_]*)?(?:[eE][-+]?[0-9_]+)?)(f32|f64)?$/.exec(text);
  if (!m || !/[0-9]/.test(m[1])) return null;
  const value = Number(m[1].replace(/_/g, ''));
  if (Number.isNaN(value)) return null;
  return `${value === 0 ? '1.0' : '0.0'}${m[2] ?? ''}`;
}

/** A plain quoted string's mutant: emptied, or given content when empty; same quotes. */
export function mutateQuotedString(text: string): string | null {
  for (const q of ['"', "'", '`']) {
    if (text.length >= 2 && text.startsWith(q) && text.endsWith(q) && !text.startsWith(q.repeat(3))) {
      return text.length === 2 ? `${q}mutant${q}` : `${q}${q}`;
    }
  }
  return null;
}

export function flipBoolean(text: string): string | null {
  const lower = text.toLowerCase();
  if (lower === 'true') return text === 'TRUE' ? 'FALSE' : 'false';
  if (lower === 'false') return text === 'FALSE' ? 'TRUE' : 'true';
  return null;
}

/** The last named child that is not a comment. */
export function lastNamed(node: Node, commentTypes: ReadonlySet<string>): Node | null {
  const kids = node.namedChildren.filter((c): c is Node => c !== null && !commentTypes.has(c.type));
  return kids.length ? kids[kids.length - 1] : null;
}

/**
 * Whether a variable is already defined where `stmt` assigns it: its name occurs, as a node of
 * `nameTypes`, between the function's start and the statement (a parameter, an earlier assignment).
 * In dynamic languages deleting a variable's first assignment only produces an "undefined" error
 * that any test calling the function notices; those mutants say nothing about the test's assertions.
 */
export function definedBefore(fn: Node, stmt: Node, name: string, nameTypes: ReadonlySet<string>): boolean {
  let seen = false;
  walk(fn, (n) => {
    if (seen || n.startIndex >= stmt.startIndex) return false;
    if (nameTypes.has(n.type) && n.text === name) seen = true;
    return !seen;
  });
  return seen;
}
