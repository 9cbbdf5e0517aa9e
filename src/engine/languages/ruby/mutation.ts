import type { Node } from 'web-tree-sitter';
import {
  ARITHMETIC,
  COMPOUND_ARITHMETIC,
  RELATIONAL,
  binaryEdits,
  definedBefore,
  editOf,
  flipBoolean,
  lastNamed,
  mutateFloat,
  mutateInteger,
  mutateQuotedString,
  operatorEdits,
  walk,
  type OperatorTable,
} from '../../mutate/edits';
import type { MutationEdit } from '../../mutate/types';
import { field, named } from '../../parse/nodes';

/**
 * Ruby's operators on top of the shared tables. Ranges (`..`, `...`) are `range` nodes, safe
 * navigation (`&.`) is a call's operator and `<<` (append, shift) is in no table: none is touched.
 */
const RUBY_ARITHMETIC: OperatorTable = { ...ARITHMETIC, '**': ['*'] };
const RUBY_LOGICAL: OperatorTable = { '&&': ['||'], '||': ['&&'], and: ['or'], or: ['and'] };
const RUBY_COMPOUND_LOGICAL: OperatorTable = { '||=': ['&&='], '&&=': ['||='] };
const COMMENTS = new Set(['comment']);
const STRINGS = new Set(['string']);

/**
 * Where statements are listed. Not `{ … }` block bodies: `any? { |w| w.start_with?(x) }` is a value,
 * and emptying it changes what the block returns, not what it does.
 */
const STATEMENT_LISTS = new Set(['body_statement', 'then', 'else', 'begin', 'ensure', 'do']);

/** Statements whose removal means "this effect did not happen". */
const DELETABLE = new Set(['call', 'assignment', 'operator_assignment', 'if_modifier', 'unless_modifier', 'next', 'break', 'binary']);

/** The last statement is the method's value; these are not expressions worth replacing by nil. */
const NOT_A_VALUE = new Set(['if', 'unless', 'case', 'case_match', 'while', 'until', 'for', 'begin', 'return', 'nil', 'rescue', 'ensure', 'else', 'assignment', 'operator_assignment', 'if_modifier', 'unless_modifier', 'while_modifier', 'until_modifier', 'rescue_modifier']);

/** A lambda's `return` leaves the lambda, not the method. */
const LAMBDAS = new Set(['lambda']);

function methodBody(fn: Node): Node | null {
  return field(fn, 'body') ?? named(fn).find((c) => c.type === 'body_statement') ?? null;
}

function returnValueEdits(body: Node): MutationEdit[] {
  const out: MutationEdit[] = [];
  walk(body, (n) => {
    if (LAMBDAS.has(n.type)) return false;
    if (n.type !== 'return') return;
    const args = named(n).find((c) => c.type === 'argument_list');
    if (args && args.text !== 'nil') out.push(editOf('return-value', args, 'nil'));
  });
  const last = lastNamed(body, COMMENTS);
  if (last && !NOT_A_VALUE.has(last.type)) out.push(editOf('return-value', last, 'nil'));
  return out;
}

function literalEdit(n: Node): MutationEdit | null {
  let r: string | null = null;
  if (n.type === 'integer') r = mutateInteger(n.text);
  else if (n.type === 'float') r = mutateFloat(n.text);
  else if (STRINGS.has(n.type)) r = mutateQuotedString(n.text); // not %w[], heredocs
  else if (n.type === 'true' || n.type === 'false') r = flipBoolean(n.text);
  return r === null ? null : editOf('constant', n, r);
}

/** Whether removing a statement is a mutant a test's assertions (not a NameError) should notice. */
function deletable(fn: Node, stmt: Node, methodBodyNode: Node): boolean {
  if (!DELETABLE.has(stmt.type)) return false;
  // The method's value: the return-value operator covers it.
  if (stmt.parent?.equals(methodBodyNode) && lastNamed(methodBodyNode, COMMENTS)?.equals(stmt)) return false;
  if (stmt.type === 'binary') return field(stmt, 'operator')?.text === '<<'; // `list << item`
  if (stmt.type === 'if_modifier' || stmt.type === 'unless_modifier') return field(stmt, 'body')?.type !== 'return';
  if (stmt.type === 'assignment') {
    const left = field(stmt, 'left');
    if (!left) return false;
    if (left.type !== 'identifier') return true; // @ivar, a[i], obj.attr
    return definedBefore(fn, stmt, left.text, new Set(['identifier']));
  }
  return true;
}

/** Ruby's mutation operators over a `method` / `singleton_method`. */
export function rubyMutationEdits(fn: Node): MutationEdit[] {
  const body = methodBody(fn);
  if (!body) return [];
  const out: MutationEdit[] = [];
  walk(body, (n) => {
    switch (n.type) {
      case 'binary': {
        const op = field(n, 'operator');
        const operands = [field(n, 'left'), field(n, 'right')].filter((x): x is Node => x !== null);
        if (op) out.push(...binaryEdits(op, operands, { arithmetic: RUBY_ARITHMETIC, relational: RELATIONAL, logical: RUBY_LOGICAL }, STRINGS));
        break;
      }
      case 'unary': {
        const op = field(n, 'operator');
        const operand = field(n, 'operand');
        if ((op?.text === '!' || op?.text === 'not') && operand) out.push(editOf('logical', n, operand.text));
        break;
      }
      case 'operator_assignment': {
        const op = field(n, 'operator');
        if (op) out.push(...operatorEdits('arithmetic', op, COMPOUND_ARITHMETIC), ...operatorEdits('logical', op, RUBY_COMPOUND_LOGICAL));
        break;
      }
      default: {
        const lit = literalEdit(n);
        if (lit) out.push(lit);
      }
    }
    if (n.parent && STATEMENT_LISTS.has(n.parent.type) && deletable(fn, n, body)) out.push(editOf('statement-deletion', n, ''));
  });
  out.push(...returnValueEdits(body));
  return out;
}
