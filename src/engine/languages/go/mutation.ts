import type { Node } from 'web-tree-sitter';
import {
  ARITHMETIC,
  COMPOUND_ARITHMETIC,
  INCREMENT,
  LOGICAL,
  RELATIONAL,
  binaryEdits,
  editOf,
  flipBoolean,
  mutateFloat,
  mutateInteger,
  mutateQuotedString,
  operatorEdits,
  walk,
} from '../../mutate/edits';
import type { MutationEdit } from '../../mutate/types';
import { field, named } from '../../parse/nodes';

const STRINGS = new Set(['interpreted_string_literal', 'raw_string_literal']);

/** Literals in types (`[3]int`) are part of the type, not a value. */
const TYPE_NODES = new Set(['array_type', 'implicit_length_array_type', 'type_arguments', 'type_parameter_list']);

/** Statements whose removal still compiles, if anything does: calls, assignments, ++/--, jumps. */
const DELETABLE = new Set([
  'expression_statement',
  'assignment_statement',
  'inc_statement',
  'dec_statement',
  'continue_statement',
  'break_statement',
  'send_statement',
  'go_statement',
  'defer_statement',
]);

const NUMERIC = /^(u?int(8|16|32|64)?|uintptr|byte|rune|float(32|64)|complex(64|128))$/;

/** The zero value of a result type where it is a literal we can write, else null. */
function zeroValue(type: Node): string | null {
  if (type.type === 'type_identifier') {
    if (NUMERIC.test(type.text)) return '0';
    if (type.text === 'string') return '""';
    if (type.text === 'bool') return 'false';
    if (type.text === 'error' || type.text === 'any') return 'nil';
    return null; // a named type: a struct has no literal zero we can spell without knowing it
  }
  if (['pointer_type', 'slice_type', 'map_type', 'channel_type', 'function_type', 'interface_type'].includes(type.type)) return 'nil';
  return null;
}

/** The zero value of each result position (null where unknown); [] for no results. */
function resultZeros(fn: Node): Array<string | null> {
  const result = field(fn, 'result');
  if (!result) return [];
  if (result.type !== 'parameter_list') return [zeroValue(result)];
  const zeros: Array<string | null> = [];
  for (const p of named(result).filter((n) => n.type === 'parameter_declaration')) {
    const type = field(p, 'type');
    const names = p.childrenForFieldName('name').filter((n) => n !== null).length;
    for (let i = 0; i < Math.max(1, names); i++) zeros.push(type ? zeroValue(type) : null);
  }
  return zeros;
}

function returnValueEdits(fn: Node): MutationEdit[] {
  const zeros = resultZeros(fn);
  const out: MutationEdit[] = [];
  walk(fn, (n) => {
    if (n.type === 'func_literal') return false; // a closure's return is not the function's
    if (n.type !== 'return_statement') return;
    const list = named(n).find((c) => c.type === 'expression_list');
    const values = list ? named(list).filter((c) => c.type !== 'comment') : [];
    // `return f()` forwarding several results: positions cannot be told apart.
    if (values.length !== zeros.length) return;
    values.forEach((v, i) => {
      const zero = zeros[i];
      if (zero !== null && v.text !== zero) out.push(editOf('return-value', v, zero));
    });
  });
  return out;
}

function literalEdit(n: Node): MutationEdit | null {
  let r: string | null = null;
  if (n.type === 'int_literal') r = mutateInteger(n.text);
  else if (n.type === 'float_literal') r = mutateFloat(n.text);
  else if (STRINGS.has(n.type)) r = mutateQuotedString(n.text);
  else if (n.type === 'true' || n.type === 'false') r = flipBoolean(n.text);
  return r === null ? null : editOf('constant', n, r);
}

/** Go's mutation operators over a `function_declaration` / `method_declaration` (docs: notes/toolchains.md). */
export function goMutationEdits(fn: Node): MutationEdit[] {
  const body = field(fn, 'body');
  if (!body) return [];
  const out: MutationEdit[] = [];
  walk(body, (n) => {
    if (TYPE_NODES.has(n.type)) return false;
    switch (n.type) {
      case 'binary_expression': {
        const op = field(n, 'operator');
        const operands = [field(n, 'left'), field(n, 'right')].filter((x): x is Node => x !== null);
        if (op) out.push(...binaryEdits(op, operands, { arithmetic: ARITHMETIC, relational: RELATIONAL, logical: LOGICAL }, STRINGS));
        break;
      }
      case 'unary_expression': {
        // Only `!x` -> `x`: unary `&` and `*` take addresses and dereference, `-x` is left to constants.
        const op = field(n, 'operator');
        const operand = field(n, 'operand');
        if (op?.text === '!' && operand) out.push(editOf('logical', n, operand.text));
        break;
      }
      case 'assignment_statement': {
        const op = field(n, 'operator');
        if (op) out.push(...operatorEdits('arithmetic', op, COMPOUND_ARITHMETIC));
        break;
      }
      case 'inc_statement':
      case 'dec_statement': {
        const token = n.children.find((c) => c?.type === '++' || c?.type === '--');
        if (token) out.push(...operatorEdits('arithmetic', token, INCREMENT));
        break;
      }
      default: {
        const lit = literalEdit(n);
        if (lit) out.push(lit);
      }
    }
    if (DELETABLE.has(n.type) && n.parent?.type === 'statement_list') out.push(editOf('statement-deletion', n, ''));
  });
  out.push(...returnValueEdits(fn));
  return out;
}
