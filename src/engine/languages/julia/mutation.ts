import type { Node } from 'web-tree-sitter';
import {
  LOGICAL,
  RELATIONAL,
  binaryEdits,
  definedBefore,
  editOf,
  flipBoolean,
  insideAny,
  mutateFloat,
  mutateInteger,
  mutateQuotedString,
  operatorEdits,
  walk,
  type OperatorTable,
} from '../../mutate/edits';
import type { MutationEdit } from '../../mutate/types';
import { named } from '../../parse/nodes';

/**
 * Julia's binary expressions carry their operator as a named `operator` child, not a field. Tokens not
 * listed are never touched: `:` builds ranges (a `range_expression`), `<:` is subtyping, `|>` pipes,
 * and the `!` of `push!` is part of a name. Broadcast operators mutate to their broadcast partners.
 */
const JULIA_ARITHMETIC: OperatorTable = {
  '+': ['-'],
  '-': ['+'],
  '*': ['/'],
  '/': ['*'],
  '%': ['*'],
  '÷': ['*'],
  '^': ['*'],
  '.+': ['.-'],
  '.-': ['.+'],
  '.*': ['./'],
  './': ['.*'],
};
const JULIA_RELATIONAL: OperatorTable = {
  ...RELATIONAL,
  '≤': ['<', '>'],
  '≥': ['>', '<'],
  '≠': ['=='],
  '===': ['!=='],
  '!==': ['==='],
};
const JULIA_COMPOUND: OperatorTable = { '+=': ['-='], '-=': ['+='], '*=': ['/='], '/=': ['*='] };
const COMMENTS = new Set(['line_comment', 'block_comment']);
const STRINGS = new Set(['string_literal']);
const MACRO_CALLS = new Set(['macrocall_expression']);

/** Nodes whose statements are listed as their own children (beside a condition or binding). */
const STATEMENT_PARENTS = new Set([
  'function_definition',
  'if_statement',
  'elseif_clause',
  'else_clause',
  'for_statement',
  'while_statement',
  'let_statement',
  'compound_statement',
  'try_statement',
  'catch_clause',
  'finally_clause',
]);

/** Anonymous functions and nested methods: their `return` is not the focal function's. */
const INNER_FUNCTIONS = new Set(['arrow_function_expression', 'do_clause', 'function_definition', 'function_expression']);

/** The last expression is the function's value; these are not expressions worth replacing by `nothing`. */
const NOT_A_VALUE = new Set([
  'if_statement',
  'for_statement',
  'while_statement',
  'try_statement',
  'let_statement',
  'return_statement',
  'assignment',
  'compound_assignment_expression',
  'const_statement',
  'local_statement',
  'global_statement',
]);

function operatorOf(n: Node): Node | null {
  return named(n).find((c) => c.type === 'operator') ?? null;
}

/** A short-form method definition `f(x) = …` (an assignment whose left side is a call). */
function isShortDefinition(n: Node): boolean {
  if (n.type !== 'assignment') return false;
  let lhs = named(n)[0] ?? null;
  if (lhs?.type === 'typed_expression' || lhs?.type === 'where_expression') lhs = named(lhs)[0] ?? null;
  return lhs?.type === 'call_expression';
}

/** The declared return type (`function f(x)::Int`), or null. */
function declaredReturnType(fn: Node): string | null {
  let head: Node | null = fn.type === 'function_definition' ? (named(named(fn).find((c) => c.type === 'signature') ?? fn)[0] ?? null) : (named(fn)[0] ?? null);
  while (head?.type === 'where_expression') head = named(head)[0] ?? null;
  if (head?.type !== 'typed_expression') return null;
  const parts = named(head);
  return parts[parts.length - 1]?.text ?? null;
}

/** A value of the declared type where it is a plain literal, else `nothing`. */
function neutralValue(fn: Node): string {
  const type = declaredReturnType(fn) ?? '';
  if (/^U?Int(8|16|32|64|128)?$/.test(type)) return '0';
  if (/^Float(16|32|64)$/.test(type)) return '0.0';
  if (type === 'Bool') return 'false';
  if (type === 'String') return '""';
  return 'nothing';
}

/** The body's statements: what follows the signature (long form) or the right side (short form). */
function bodyStatements(fn: Node): Node[] {
  if (fn.type === 'assignment') {
    const parts = named(fn).filter((c) => c.type !== 'operator');
    return parts.slice(1);
  }
  return named(fn).filter((c) => c.type !== 'signature');
}

function lastStatementOf(fn: Node): Node | null {
  const statements = bodyStatements(fn).filter((s) => !COMMENTS.has(s.type));
  return statements.length ? statements[statements.length - 1] : null;
}

function returnValueEdits(fn: Node): MutationEdit[] {
  const neutral = neutralValue(fn);
  const out: MutationEdit[] = [];
  for (const stmt of bodyStatements(fn)) {
    walk(stmt, (n) => {
      if (INNER_FUNCTIONS.has(n.type) || isShortDefinition(n)) return false;
      if (n.type !== 'return_statement') return;
      const value = named(n).find((c) => !COMMENTS.has(c.type));
      if (value && value.text !== neutral) out.push(editOf('return-value', value, neutral));
    });
  }
  const last = lastStatementOf(fn);
  if (last && !NOT_A_VALUE.has(last.type) && last.text !== neutral && !isThrow(last)) out.push(editOf('return-value', last, neutral));
  return out;
}

/** `throw(…)` / `error(…)` as the last expression: no value to replace. */
function isThrow(n: Node): boolean {
  if (n.type !== 'call_expression') return false;
  const callee = named(n)[0]?.text;
  return callee === 'throw' || callee === 'error';
}

function literalEdit(n: Node, fn: Node): MutationEdit | null {
  let r: string | null = null;
  if (n.type === 'integer_literal') r = mutateInteger(n.text);
  else if (n.type === 'float_literal') r = mutateFloat(n.text);
  else if (n.type === 'boolean_literal') r = flipBoolean(n.text);
  // A macro's string argument may be a format (`@printf "%d"`): emptying it fails when the module loads.
  else if (STRINGS.has(n.type) && !insideAny(n, MACRO_CALLS, fn)) r = mutateQuotedString(n.text);
  return r === null ? null : editOf('constant', n, r);
}

/** Whether removing a statement is a mutant a test's assertions (not an UndefVarError) should notice. */
function deletable(fn: Node, stmt: Node, lastOfBody: Node | null): boolean {
  if (lastOfBody?.equals(stmt)) return false; // the function's value: the return-value operator covers it
  switch (stmt.type) {
    case 'call_expression':
      return !isThrow(stmt);
    case 'compound_assignment_expression':
    case 'continue_statement':
    case 'break_statement':
      return true;
    case 'assignment': {
      if (isShortDefinition(stmt)) return false;
      const left = named(stmt)[0];
      if (!left) return false;
      if (left.type !== 'identifier') return left.type === 'index_expression' || left.type === 'field_expression';
      return definedBefore(fn, stmt, left.text, new Set(['identifier']));
    }
    default:
      return false;
  }
}

/** Julia's mutation operators over a `function_definition` or a short-form `f(x) = …` definition. */
export function juliaMutationEdits(fn: Node): MutationEdit[] {
  const out: MutationEdit[] = [];
  const statements = bodyStatements(fn);
  const lastOfBody = lastStatementOf(fn);
  for (const stmt of statements) {
    walk(stmt, (n) => {
      // Type parameters (`Vector{Float64}`, `NTuple{3,Int}`) are types, not values.
      if (n.type === 'curly_expression') return false;
      switch (n.type) {
        case 'binary_expression': {
          const op = operatorOf(n);
          const operands = named(n).filter((c) => c.type !== 'operator');
          if (op) out.push(...binaryEdits(op, operands, { arithmetic: JULIA_ARITHMETIC, relational: JULIA_RELATIONAL, logical: LOGICAL }, STRINGS));
          break;
        }
        case 'unary_expression': {
          const op = operatorOf(n);
          const operand = named(n).find((c) => c.type !== 'operator');
          if (op?.text === '!' && operand) out.push(editOf('logical', n, operand.text));
          break;
        }
        case 'compound_assignment_expression': {
          const op = operatorOf(n);
          if (op) out.push(...operatorEdits('arithmetic', op, JULIA_COMPOUND));
          break;
        }
        default: {
          const lit = literalEdit(n, fn);
          if (lit) out.push(lit);
        }
      }
      const parent = n.parent;
      if (parent && STATEMENT_PARENTS.has(parent.type) && deletable(fn, n, lastOfBody) && !isConditionOf(n, parent)) {
        out.push(editOf('statement-deletion', n, ''));
      }
    });
  }
  out.push(...returnValueEdits(fn));
  return out;
}

/** An `if`/`while` condition is a child of the statement too, but not one of its statements. */
function isConditionOf(n: Node, parent: Node): boolean {
  const condition = parent.childForFieldName('condition');
  if (condition?.equals(n)) return true;
  // elseif/while conditions may come without a field: the first named child after the keyword.
  return (parent.type === 'elseif_clause' || parent.type === 'while_statement') && named(parent)[0]?.equals(n) === true;
}
