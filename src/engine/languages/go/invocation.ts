import type { Node, Tree } from 'web-tree-sitter';
import { field, named } from '../../parse/nodes';
import type { InvocationTarget, LanguageInvocation } from '../../score/invocation-target';
import type { InvocationResult } from '../../score/types';

/*
 * Strict, in Go: the call's receiver or package must be the focal function's own.
 * - A method (`className` set) counts when it is called through a selector (`x.M(…)`, or the method
 *   expression `T.M(x, …)` / `(*T).M(x, …)`) and the test names the receiver type: a composite
 *   literal, a conversion, a var/parameter/field type, `new(T)`, or a `New<T>` constructor, either
 *   unqualified in the focal package itself or qualified by that package (`inventory.Stack[int]{}`).
 *   Go has no overloading, but every type may have an `M`: naming the type is the evidence we can see
 *   without type-checking. A plain `New()` returning the type is not visible to a syntax check.
 * - A free function counts when called unqualified from a file of the focal package (or through a
 *   dot import), or as `pkg.F` where `pkg` is the focal package (an external `pkg_test` package).
 */

interface Call {
  /** The callee: a bare identifier, or `x.F`'s selector. */
  callee: Node;
  /** `x` of `x.F`, null for a bare name. */
  operand: Node | null;
}

/** `pkg.F` / `x.M` / `F` / `F[int]` / `pkg.F[int]` -> the identifier and its operand. */
function calleeOf(fn: Node): Call | null {
  switch (fn.type) {
    case 'identifier':
    case 'type_identifier':
      return { callee: fn, operand: null };
    case 'selector_expression': {
      const f = field(fn, 'field');
      return f ? { callee: f, operand: field(fn, 'operand') } : null;
    }
    case 'qualified_type': {
      const n = field(fn, 'name');
      return n ? { callee: n, operand: field(fn, 'package') } : null;
    }
    case 'generic_type': // F[int](x) parses as a conversion to a generic type
      return field(fn, 'type') ? calleeOf(field(fn, 'type')!) : null;
    case 'index_expression':
      return field(fn, 'operand') ? calleeOf(field(fn, 'operand')!) : null;
    case 'parenthesized_expression':
      return named(fn)[0] ? calleeOf(named(fn)[0]) : null;
    default:
      return null;
  }
}

function callsIn(root: Node): Call[] {
  const out: Call[] = [];
  for (const n of root.descendantsOfType(['call_expression', 'type_conversion_expression'])) {
    if (!n) continue;
    const fn = n.type === 'call_expression' ? field(n, 'function') : field(n, 'type');
    // A conversion to a non-generic type is not a call; `F[int](x)` is one the grammar cannot tell apart.
    if (!fn || (n.type === 'type_conversion_expression' && fn.type !== 'generic_type')) continue;
    const call = calleeOf(fn);
    if (call) out.push(call);
  }
  return out;
}

/** The last path element Go would name the package by: `example.com/inventory/v2` -> `inventory`. */
function packageNameOfPath(importPath: string): string {
  const parts = importPath.split('/').filter((p) => !/^v\d+$/.test(p));
  return (parts[parts.length - 1] ?? '').replace(/^go-/, '').replace(/[-.]go$/, '');
}

interface FileFacts {
  packageName: string;
  /** Names that refer to the focal package here: its own name and aliases of imports of it. */
  qualifiers: Set<string>;
  /** Every imported package's local name (to tell `pkg.F` from `value.M`). */
  importedNames: Set<string>;
  dotImport: boolean;
}

function factsOf(root: Node, scope: string): FileFacts {
  const clause = named(root).find((n) => n.type === 'package_clause');
  const facts: FileFacts = {
    packageName: clause ? (named(clause)[0]?.text ?? '') : '',
    qualifiers: new Set(scope ? [scope] : []),
    importedNames: new Set(),
    dotImport: false,
  };
  for (const spec of root.descendantsOfType('import_spec')) {
    if (!spec) continue;
    const importPath = field(spec, 'path')?.text.replace(/^["`]|["`]$/g, '') ?? '';
    const alias = field(spec, 'name')?.text;
    const pkgName = packageNameOfPath(importPath);
    const localName = alias ?? pkgName;
    facts.importedNames.add(localName);
    if (pkgName !== scope) continue;
    if (alias === '.') facts.dotImport = true;
    else if (alias && alias !== '_') facts.qualifiers.add(alias);
  }
  return facts;
}

/** Whether the file sees the focal package's names unqualified. */
function seesUnqualified(facts: FileFacts, scope: string): boolean {
  return facts.packageName === scope || facts.dotImport;
}

/** Whether a name with this qualifier (null: unqualified) resolves into the focal package. */
function namesFocal(operand: Node | null, facts: FileFacts, scope: string): boolean {
  if (!operand) return seesUnqualified(facts, scope);
  return operand.type === 'identifier' || operand.type === 'package_identifier' ? facts.qualifiers.has(operand.text) : false;
}

/** Whether the test names the receiver type `className` of the focal package anywhere. */
function namesType(root: Node, className: string, facts: FileFacts, scope: string): boolean {
  const ctor = `New${className}`;
  for (const n of root.descendantsOfType(['type_identifier', 'identifier', 'field_identifier'])) {
    if (!n || (n.text !== className && n.text !== ctor)) continue;
    const parent = n.parent;
    if (parent?.type === 'qualified_type' && field(parent, 'name')?.equals(n)) {
      if (namesFocal(field(parent, 'package'), facts, scope)) return true;
    } else if (parent?.type === 'selector_expression' && field(parent, 'field')?.equals(n)) {
      if (namesFocal(field(parent, 'operand'), facts, scope)) return true;
    } else if (n.type !== 'field_identifier' && namesFocal(null, facts, scope)) {
      // A local variable spelled like an exported type would be unusual Go; accept the name.
      return true;
    }
  }
  return false;
}

/** `Inventory.Status(it)` / `(*Inventory).Restock(inv, …)` / `(*Stack[int]).PopN(s, …)`: the operand is the type. */
function isMethodExpressionOn(operand: Node, className: string): boolean {
  switch (operand.type) {
    case 'identifier':
    case 'type_identifier':
      return operand.text === className;
    case 'selector_expression':
      return field(operand, 'field')?.text === className;
    case 'qualified_type':
      return field(operand, 'name')?.text === className;
    case 'unary_expression': {
      const inner = field(operand, 'operand');
      return inner !== null && isMethodExpressionOn(inner, className);
    }
    case 'generic_type': {
      const inner = field(operand, 'type');
      return inner !== null && isMethodExpressionOn(inner, className);
    }
    case 'index_expression': {
      const inner = field(operand, 'operand');
      return inner !== null && isMethodExpressionOn(inner, className);
    }
    case 'parenthesized_expression':
    case 'pointer_type': {
      const inner = named(operand)[0];
      return inner !== undefined && isMethodExpressionOn(inner, className);
    }
    default:
      return false;
  }
}

export function findInvocation(tree: Tree, _source: string, target: InvocationTarget): InvocationResult {
  const root = tree.rootNode;
  const calls = callsIn(root).filter((c) => c.callee.text === target.bareName);
  if (calls.length === 0) return { invoked: false, strict: false };
  const facts = factsOf(root, target.scope);

  let strict: boolean;
  if (target.className) {
    const typeNamed = namesType(root, target.className, facts, target.scope);
    strict = calls.some((c) => {
      if (!c.operand) return false;
      if (isMethodExpressionOn(c.operand, target.className)) return true;
      // `pkg.M(…)` on an imported package is a function of that package, not this method.
      const isPackage = c.operand.type === 'identifier' && facts.importedNames.has(c.operand.text);
      return !isPackage && typeNamed;
    });
  } else {
    strict = calls.some((c) => namesFocal(c.operand, facts, target.scope));
  }
  return { invoked: true, strict };
}

/** Go's part of the invocation check (the adapter's `invocation`). */
export const goInvocation: LanguageInvocation = { find: findInvocation };
