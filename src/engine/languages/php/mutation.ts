import type { Node } from 'web-tree-sitter';
import {
  ARITHMETIC,
  COMPOUND_ARITHMETIC,
  INCREMENT,
  RELATIONAL,
  binaryEdits,
  definedBefore,
  editOf,
  flipBoolean,
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
 * PHP's own operators on top of the shared tables. `.` (concatenation), `??` (null coalescing), `->`
 * and `=>` are not arithmetic or logical; they are in no table, so they are never touched.
 */
const PHP_RELATIONAL: OperatorTable = { ...RELATIONAL, '===': ['!=='], '!==': ['==='], '<>': ['=='] };
const PHP_LOGICAL: OperatorTable = { '&&': ['||'], '||': ['&&'], and: ['or'], or: ['and'] };
const STRINGS = new Set(['string', 'encapsed_string']);

/** Closures have their own returns; their bodies are still mutated otherwise. */
const CLOSURES = new Set(['anonymous_function', 'arrow_function', 'anonymous_function_creation_expression']);

/** Expression statements whose removal means "this effect did not happen". */
const DELETABLE_EXPRESSIONS = new Set([
  'assignment_expression',
  'augmented_assignment_expression',
  'update_expression',
  'function_call_expression',
  'member_call_expression',
  'nullsafe_member_call_expression',
  'scoped_call_expression',
]);

const SCALAR_ZERO: Record<string, string> = { int: '0', float: '0.0', string: "''", bool: 'false', array: '[]', iterable: '[]', false: 'false' };

/**
 * What a `return` may give instead: `null` where the declared type allows it (none, nullable, a union
 * with null, mixed), the scalar's empty value for a non-nullable scalar, else nothing (a class type).
 */
function neutralReturn(fn: Node): string | null {
  const type = field(fn, 'return_type');
  if (!type) return 'null';
  const text = type.text.trim().toLowerCase();
  if (type.type === 'optional_type' || text === 'mixed' || text === 'null') return 'null';
  if (type.type === 'union_type') return text.split('|').some((t) => t.trim() === 'null') ? 'null' : null;
  if (type.type === 'primitive_type') return SCALAR_ZERO[text] ?? null;
  return null;
}

function returnValueEdits(fn: Node): MutationEdit[] {
  const body = field(fn, 'body');
  const neutral = neutralReturn(fn);
  if (!body || neutral === null) return [];
  const out: MutationEdit[] = [];
  walk(body, (n) => {
    if (CLOSURES.has(n.type)) return false;
    if (n.type !== 'return_statement') return;
    const value = named(n).find((c) => c.type !== 'comment');
    if (value && value.text !== neutral) out.push(editOf('return-value', value, neutral));
  });
  return out;
}

function literalEdit(n: Node): MutationEdit | null {
  let r: string | null = null;
  if (n.type === 'integer') r = mutateInteger(n.text);
  else if (n.type === 'float') r = mutateFloat(n.text);
  else if (STRINGS.has(n.type)) r = mutateQuotedString(n.text);
  else if (n.type === 'boolean') r = flipBoolean(n.text);
  return r === null ? null : editOf('constant', n, r);
}

/**
 * Whether deleting an assignment statement is a meaningful mutant: a compound assignment, a write to
 * an element or property, or a variable that already had a value (a parameter, an earlier assignment).
 */
function deletableAssignment(fn: Node, stmt: Node, expr: Node): boolean {
  if (expr.type !== 'assignment_expression') return true;
  const left = field(expr, 'left');
  if (!left) return false;
  if (left.type !== 'variable_name') return true;
  return definedBefore(fn, stmt, left.text, new Set(['variable_name']));
}

/** PHP's mutation operators over a `method_declaration` / `function_definition`. */
export function phpMutationEdits(fn: Node): MutationEdit[] {
  const body = field(fn, 'body');
  if (!body) return [];
  const out: MutationEdit[] = [];
  walk(body, (n) => {
    switch (n.type) {
      case 'binary_expression': {
        const op = field(n, 'operator');
        const operands = [field(n, 'left'), field(n, 'right')].filter((x): x is Node => x !== null);
        if (op) out.push(...binaryEdits(op, operands, { arithmetic: ARITHMETIC, relational: PHP_RELATIONAL, logical: PHP_LOGICAL }, STRINGS));
        break;
      }
      case 'unary_op_expression': {
        const op = field(n, 'operator');
        const arg = field(n, 'argument');
        if (op?.text === '!' && arg) out.push(editOf('logical', n, arg.text));
        break;
      }
      case 'augmented_assignment_expression': {
        const op = field(n, 'operator');
        if (op) out.push(...operatorEdits('arithmetic', op, COMPOUND_ARITHMETIC));
        break;
      }
      case 'update_expression': {
        const op = field(n, 'operator');
        if (op) out.push(...operatorEdits('arithmetic', op, INCREMENT));
        break;
      }
      case 'expression_statement': {
        const expr = named(n)[0];
        if (expr && DELETABLE_EXPRESSIONS.has(expr.type) && deletableAssignment(fn, n, expr)) {
          // `;` keeps a brace-less `if (…) $x = 1;` a statement.
          out.push(editOf('statement-deletion', n, n.parent?.type === 'compound_statement' ? '' : ';'));
        }
        break;
      }
      case 'continue_statement':
      case 'break_statement':
        out.push(editOf('statement-deletion', n, n.parent?.type === 'compound_statement' ? '' : ';'));
        break;
      default: {
        const lit = literalEdit(n);
        if (lit) out.push(lit);
      }
    }
  });
  out.push(...returnValueEdits(fn));
  return out;
}
