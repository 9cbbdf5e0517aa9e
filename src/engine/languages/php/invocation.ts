import type { Node, Tree } from 'web-tree-sitter';
import { children, field, named } from '../../parse/nodes';
import type { InvocationTarget, LanguageInvocation } from '../../score/invocation-target';
import type { InvocationResult } from '../../score/types';

/*
 * Strict, in PHP: names are resolved as PHP resolves them (the file's `namespace`, `use`, `use
 * function`, a leading `\`), and compared with the focal function's fully qualified name.
 * - A method counts as `Cls::m()` where `Cls` resolves to the focal class, or `$x->m()` /
 *   `$x?->m()` / `static::m()` when the test names the focal class (`new Cls`, `Cls::class`, a type
 *   hint, `createMock(Cls::class)`, `use Trait;` in an anonymous class). Without type inference we
 *   cannot know `$x`'s class; naming the class is the evidence. `self::`/`static::`/`parent::` in a
 *   test class refer to the test class, so they are strict only when that class extends the focal one.
 * - A free function counts when its call resolves to `Namespace\f` (a qualified call, `use
 *   function`, or an unqualified call from a file in that namespace).
 * - `__construct` is invoked by `new Cls(…)` (and `parent::__construct`); strict when `Cls` resolves.
 *
 * PHP function, method and class names are case-insensitive, so names are compared in lower case.
 * Callables (`'f'`, `[$o, 'm']`, `f(...)` first-class callable syntax) create no call and do not count.
 */

interface Names {
  namespace: string;
  /** Class aliases: lower-case alias -> fully qualified name. */
  classes: Map<string, string>;
  /** `use function` aliases: lower-case alias -> fully qualified name. */
  functions: Map<string, string>;
}

const lower = (s: string) => s.toLowerCase();
const stripSlash = (s: string) => s.replace(/^\\/, '');

function namesOf(root: Node): Names {
  const names: Names = { namespace: '', classes: new Map(), functions: new Map() };
  for (const n of root.descendantsOfType(['namespace_definition', 'namespace_use_declaration'])) {
    if (!n) continue;
    if (n.type === 'namespace_definition') {
      names.namespace = field(n, 'name')?.text ?? '';
      continue;
    }
    const prefix = named(n).find((c) => c.type === 'namespace_name')?.text;
    const isFunction = (node: Node) => children(node).some((c) => c.type === 'function');
    const declIsFunction = isFunction(n);
    for (const clause of n.descendantsOfType('namespace_use_clause')) {
      if (!clause) continue;
      const target = named(clause).find((c) => c.type === 'qualified_name' || c.type === 'name');
      if (!target) continue;
      const full = stripSlash(prefix ? `${prefix}\\${target.text}` : target.text);
      const alias = field(clause, 'alias')?.text ?? full.split('\\').pop()!;
      (declIsFunction || isFunction(clause) ? names.functions : names.classes).set(lower(alias), full);
    }
  }
  return names;
}

/** A class name as written -> its fully qualified name (no leading `\`). */
function resolveClass(written: string, names: Names): string {
  if (written.startsWith('\\')) return stripSlash(written);
  const [first, ...rest] = written.split('\\');
  const imported = names.classes.get(lower(first));
  if (imported) return [imported, ...rest].join('\\');
  return names.namespace ? `${names.namespace}\\${written}` : written;
}

/** A function name as written -> the candidates PHP tries (namespaced, then the global fallback). */
function resolveFunction(written: string, names: Names): string[] {
  if (written.startsWith('\\')) return [stripSlash(written)];
  if (written.includes('\\')) return [resolveClass(written, names)];
  const imported = names.functions.get(lower(written));
  if (imported) return [imported];
  return names.namespace ? [`${names.namespace}\\${written}`, written] : [written];
}

const lastSegment = (name: string) => name.split('\\').pop() ?? name;

function isCallableSyntax(call: Node): boolean {
  const args = field(call, 'arguments');
  return args !== null && named(args).some((a) => a.type === 'variadic_placeholder');
}

/** The name node of a class reference (`Cls`, `\Ns\Cls`), or null for `$var`/expressions. */
function classNameNode(n: Node | null): Node | null {
  return n && (n.type === 'name' || n.type === 'qualified_name') ? n : null;
}

interface Context {
  names: Names;
  focalClass: string;
  focalFunction: string;
  bare: string;
}

/** Whether a written class name resolves to the focal class. */
function isFocalClass(written: Node | null, ctx: Context): boolean {
  return written !== null && lower(resolveClass(written.text, ctx.names)) === lower(ctx.focalClass);
}

/** Whether the class enclosing `n` extends the focal class (so `parent::`/`self::` reach it). */
function enclosingClassExtendsFocal(n: Node, ctx: Context): boolean {
  for (let p = n.parent; p; p = p.parent) {
    if (p.type !== 'class_declaration' && p.type !== 'anonymous_class') continue;
    const base = named(p).find((c) => c.type === 'base_clause');
    const uses = named(field(p, 'body') ?? p).filter((c) => c.type === 'use_declaration');
    return [...(base ? named(base) : []), ...uses.flatMap(named)].some((c) => isFocalClass(classNameNode(c), ctx));
  }
  return false;
}

/** Where a name is a class reference: `new C`, `C::class`, `C::m()`, `C::$p`, type hints, `extends`, `use T;`. */
const CLASS_REFERENCE_PARENTS = new Set([
  'object_creation_expression',
  'class_constant_access_expression',
  'scoped_call_expression',
  'scoped_property_access_expression',
  'named_type',
  'base_clause',
  'class_interface_clause',
  'use_declaration',
  'binary_expression', // `$x instanceof C`
]);

/** Any class reference in the test that resolves to the focal class. */
function namesFocalClass(root: Node, ctx: Context): boolean {
  const short = lower(lastSegment(ctx.focalClass));
  return root.descendantsOfType(['name', 'qualified_name']).some((n) => {
    if (!n || lower(lastSegment(n.text)) !== short) return false;
    const parent = n.parent;
    if (!parent || !CLASS_REFERENCE_PARENTS.has(parent.type)) return false;
    // `C::m()` names C in its scope; its method name is not a class reference.
    if (parent.type === 'scoped_call_expression' || parent.type === 'scoped_property_access_expression') {
      if (!field(parent, 'scope')?.equals(n)) return false;
    }
    if (parent.type === 'class_constant_access_expression' && !named(parent)[0]?.equals(n)) return false;
    return isFocalClass(n, ctx);
  });
}

interface Found {
  invoked: boolean;
  strict: boolean;
}

function constructorCalls(root: Node, ctx: Context): Found {
  const short = lower(lastSegment(ctx.focalClass));
  const found: Found = { invoked: false, strict: false };
  for (const n of root.descendantsOfType('object_creation_expression')) {
    const cls = n ? classNameNode(named(n)[0] ?? null) : null;
    if (!cls || lower(lastSegment(cls.text)) !== short) continue;
    found.invoked = true;
    if (isFocalClass(cls, ctx)) found.strict = true;
  }
  return found;
}

export function findInvocation(tree: Tree, _source: string, target: InvocationTarget): InvocationResult {
  const root = tree.rootNode;
  const names = namesOf(root);
  const focalClass = target.className ? (target.scope ? `${target.scope}\\${target.className}` : target.className) : '';
  const ctx: Context = {
    names,
    focalClass,
    focalFunction: target.scope ? `${target.scope}\\${target.bareName}` : target.bareName,
    bare: lower(target.bareName),
  };
  const result: Found = target.className && ctx.bare === '__construct' ? constructorCalls(root, ctx) : { invoked: false, strict: false };
  let classNamed: boolean | undefined;
  const focalClassNamed = () => (classNamed ??= namesFocalClass(root, ctx));

  const callTypes = ['function_call_expression', 'member_call_expression', 'nullsafe_member_call_expression', 'scoped_call_expression'];
  for (const call of root.descendantsOfType(callTypes)) {
    if (!call || isCallableSyntax(call)) continue;
    if (call.type === 'function_call_expression') {
      const fn = classNameNode(field(call, 'function'));
      if (!fn) continue;
      const candidates = resolveFunction(fn.text, names);
      // An aliased `use function Ns\f as g;` call `g()` is a call of `f`.
      if (lower(lastSegment(fn.text)) !== ctx.bare && !candidates.some((c) => lower(lastSegment(c)) === ctx.bare)) continue;
      result.invoked = true;
      if (!target.className && candidates.some((c) => lower(c) === lower(ctx.focalFunction))) result.strict = true;
      continue;
    }
    if (lower(field(call, 'name')?.text ?? '') !== ctx.bare) continue;
    result.invoked = true;
    if (!target.className) continue; // a method named like a free function is not that function
    if (call.type === 'scoped_call_expression') {
      const scope = field(call, 'scope');
      if (scope?.type === 'relative_scope') {
        if (enclosingClassExtendsFocal(call, ctx)) result.strict = true;
      } else if (isFocalClass(classNameNode(scope), ctx)) {
        result.strict = true;
      } else if (!classNameNode(scope) && focalClassNamed()) {
        result.strict = true; // `$obj::m()`: an instance's class, named elsewhere in the test
      }
    } else if (focalClassNamed()) {
      result.strict = true;
    }
  }
  return result;
}

/** PHP's part of the invocation check (the adapter's `invocation`). */
export const phpInvocation: LanguageInvocation = { find: findInvocation };
