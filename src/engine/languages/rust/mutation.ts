import type { Node } from 'web-tree-sitter';
import {
  ARITHMETIC,
  COMPOUND_ARITHMETIC,
  LOGICAL,
  RELATIONAL,
  binaryEdits,
  editOf,
  flipBoolean,
  lastNamed,
  mutateFloat,
  mutateInteger,
  mutateQuotedString,
  operatorEdits,
  walk,
} from '../../mutate/edits';
import type { MutationEdit } from '../../mutate/types';
import { children, field, named } from '../../parse/nodes';

const COMMENTS = new Set(['line_comment', 'block_comment']);

/**
 * Subtrees never mutated: macro bodies are token trees, not parsed expressions (`assert!(a < b)` holds
 * no binary_expression, and a literal there may be a format string); attributes; types (`[f64; 3]`,
 * `Foo<3>`).
 */
const OPAQUE = new Set(['token_tree', 'attribute_item', 'inner_attribute_item', 'array_type', 'type_arguments', 'generic_type', 'const_parameter']);

/** Statements (block children that are not the tail expression). */
const STATEMENTS = new Set(['expression_statement', 'let_declaration', 'empty_statement', 'macro_invocation_statement']);

/** What an `expression_statement` may hold for its deletion to mean "this effect did not happen". */
const DELETABLE_EXPRESSIONS = new Set([
  'assignment_expression',
  'compound_assignment_expr',
  'call_expression',
  'macro_invocation',
  'continue_expression',
  'break_expression',
]);

/** std types with `Default` whatever their parameters hold (`Vec<T>: Default` for every T). */
const DEFAULT_GENERICS = new Set(['Vec', 'VecDeque', 'HashMap', 'HashSet', 'BTreeMap', 'BTreeSet', 'Option', 'String']);

/**
 * Whether `Default::default()` is sure to compile for this return type: primitives (but `str`, `!`),
 * `String`, `&str`, and std collections and `Option`. A user type may not implement Default.
 */
function hasStdDefault(type: Node): boolean {
  if (type.type === 'primitive_type') return type.text !== 'str' && type.text !== '!';
  if (type.type === 'type_identifier') return type.text === 'String';
  if (type.type === 'generic_type') {
    const base = field(type, 'type');
    return base?.type === 'type_identifier' && DEFAULT_GENERICS.has(base.text);
  }
  if (type.type === 'reference_type') {
    const inner = field(type, 'type');
    return inner?.type === 'primitive_type' && inner.text === 'str' && !children(type).some((c) => c.type === 'mutable_specifier');
  }
  return false;
}

/**
 * Return-value edits of one function item: every `return x` and the body's tail expression become
 * `Default::default()` when the return type has a std default. Closures are skipped (their type is
 * not written), nested `fn` items are handled on their own with their own type.
 */
function returnValueEdits(fnItem: Node, out: MutationEdit[]): void {
  const type = field(fnItem, 'return_type');
  const body = field(fnItem, 'body');
  if (!type || !body || !hasStdDefault(type)) return;
  const replace = (expr: Node): void => {
    if (expr.text !== 'Default::default()') out.push(editOf('return-value', expr, 'Default::default()'));
  };
  walk(body, (n) => {
    if (n.type === 'closure_expression' || n.type === 'function_item' || OPAQUE.has(n.type)) return false;
    if (n.type === 'return_expression') {
      const value = named(n).find((c) => !COMMENTS.has(c.type));
      if (value) replace(value);
    }
  });
  const tail = lastNamed(body, COMMENTS);
  if (tail && !STATEMENTS.has(tail.type) && !tail.type.endsWith('_item') && tail.type !== 'return_expression') replace(tail);
}

/**
 * Patterns are not values: a changed literal there makes arms unreachable or the match
 * non-exhaustive. A match arm's guard (`Some(x) if x > 3`) is an expression and stays.
 */
function isPattern(n: Node): boolean {
  if (n.type.endsWith('_pattern') && n.type !== 'match_pattern') return true;
  const parent = n.parent;
  return parent?.type === 'match_pattern' && !parent.childForFieldName('condition')?.equals(n);
}

function literalEdit(n: Node): MutationEdit | null {
  let r: string | null = null;
  if (n.type === 'integer_literal') r = mutateInteger(n.text);
  else if (n.type === 'float_literal') r = mutateFloat(n.text);
  else if (n.type === 'string_literal' && n.text.startsWith('"')) r = mutateQuotedString(n.text); // not b"…"
  else if (n.type === 'boolean_literal') r = flipBoolean(n.text);
  return r === null ? null : editOf('constant', n, r);
}

/** Rust's mutation operators over a `function_item` (and the `fn` items nested in it). */
export function rustMutationEdits(fn: Node): MutationEdit[] {
  const body = field(fn, 'body');
  if (!body) return [];
  const out: MutationEdit[] = [];
  returnValueEdits(fn, out);
  walk(body, (n) => {
    if (OPAQUE.has(n.type) || isPattern(n)) return false;
    switch (n.type) {
      case 'function_item':
        returnValueEdits(n, out);
        break;
      case 'binary_expression': {
        const op = field(n, 'operator');
        const operands = [field(n, 'left'), field(n, 'right')].filter((x): x is Node => x !== null);
        if (op) out.push(...binaryEdits(op, operands, { arithmetic: ARITHMETIC, relational: RELATIONAL, logical: LOGICAL }, new Set(['string_literal'])));
        break;
      }
      case 'unary_expression': {
        // `!x` -> `x`; unary `*` is a dereference and `-` is left to the constants.
        const [op, operand] = children(n);
        if (op?.type === '!' && operand) out.push(editOf('logical', n, operand.text));
        break;
      }
      case 'compound_assignment_expr': {
        const op = field(n, 'operator');
        if (op) out.push(...operatorEdits('arithmetic', op, COMPOUND_ARITHMETIC));
        break;
      }
      case 'expression_statement': {
        const expr = named(n)[0];
        if (expr && DELETABLE_EXPRESSIONS.has(expr.type)) out.push(editOf('statement-deletion', n, ''));
        break;
      }
      default: {
        const lit = literalEdit(n);
        if (lit) out.push(lit);
      }
    }
  });
  return out;
}
