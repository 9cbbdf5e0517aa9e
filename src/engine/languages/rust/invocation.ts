import type { Node, Tree } from 'web-tree-sitter';
import { children, field, named } from '../../parse/nodes';
import type { InvocationTarget, LanguageInvocation } from '../../score/invocation-target';
import type { InvocationResult } from '../../score/types';

/*
 * Strict, in Rust: the path or the receiver must be the focal function's own.
 * - A method (`className` set: the impl's type) counts as `Type::m(…)`, `Type::<T>::m(…)` or
 *   `<Type as Trait>::m(…)`, or as `x.m(…)` when the test names `Type` somewhere (a constructor call,
 *   a struct literal, a type annotation; inside macros too). Every type may have an `m`; without
 *   type inference, naming the type is the evidence a syntax tree offers. `Trait::m(&x)` names the
 *   trait, not the type, so it is not strict.
 * - A free function counts unqualified (the test module is placed in the focal function's own
 *   module, the innermost inline `mod` or the file's, so `use super::*;` reaches it; a `use` naming
 *   the module does too), or qualified by a path ending in the focal module (`units::f`,
 *   `crate::triangle::f`) or by `super::f` from the placed test module.
 *
 * Macro arguments (`assert_eq!(f(x), 1)`) are token trees, not expressions: calls there are found by
 * scanning tokens for a name followed by a parenthesised token tree.
 */

interface Call {
  /** `.m(…)`: a method call on some receiver. */
  method: boolean;
  /** The path segments before the name (`['crate', 'units']`), empty when unqualified. */
  qualifier: string[];
  /** The qualifier's type for `<T as Tr>::m` (`T`), else the qualifier's last segment. */
  qualifierType: string;
}

/** `a::b`, `Type::<T>`, `<T as Tr>`, `crate` -> segments; `qualifierType` separately below. */
function pathSegments(path: Node | null): string[] {
  if (!path) return [];
  switch (path.type) {
    case 'scoped_identifier':
    case 'scoped_type_identifier':
      return [...pathSegments(field(path, 'path')), field(path, 'name')?.text ?? ''];
    case 'generic_type':
      return pathSegments(field(path, 'type'));
    case 'bracketed_type': {
      const inner = named(path)[0];
      if (inner?.type === 'qualified_type') return pathSegments(field(inner, 'type'));
      return pathSegments(inner ?? null);
    }
    default:
      return [path.text];
  }
}

function callOfFunction(fn: Node): { name: Node; call: Call } | null {
  switch (fn.type) {
    case 'identifier':
      return { name: fn, call: { method: false, qualifier: [], qualifierType: '' } };
    case 'scoped_identifier': {
      const name = field(fn, 'name');
      const qualifier = pathSegments(field(fn, 'path'));
      return name ? { name, call: { method: false, qualifier, qualifierType: qualifier[qualifier.length - 1] ?? '' } } : null;
    }
    case 'field_expression': {
      const name = field(fn, 'field');
      return name ? { name, call: { method: true, qualifier: [], qualifierType: '' } } : null;
    }
    case 'generic_function': // f::<T>(x), obj.m::<T>(x)
      return field(fn, 'function') ? callOfFunction(field(fn, 'function')!) : null;
    default:
      return null;
  }
}

/** Calls written as expressions. */
function expressionCalls(root: Node, bareName: string): Call[] {
  const out: Call[] = [];
  for (const n of root.descendantsOfType('call_expression')) {
    const fn = n ? field(n, 'function') : null;
    const found = fn ? callOfFunction(fn) : null;
    if (found && found.name.text === bareName) out.push(found.call);
  }
  return out;
}

/** `::<T>` right after a name in a token stream: the index after the closing `>`, or `i` if none. */
function skipTurbofish(tokens: Node[], i: number): number {
  if (tokens[i]?.type !== '::' || tokens[i + 1]?.type !== '<') return i;
  let depth = 0;
  for (let j = i + 1; j < tokens.length; j++) {
    if (tokens[j].type === '<') depth++;
    else if (tokens[j].type === '>') depth--;
    else if (tokens[j].type === '>>') depth -= 2;
    if (depth <= 0) return j + 1;
  }
  return i;
}

/** The index of the `<` matching the `>` (or `>>`) at `close`, scanning backwards; -1 if none. */
function matchingOpen(tokens: Node[], close: number): number {
  let depth = 0;
  for (let j = close; j >= 0; j--) {
    const t = tokens[j].type;
    if (t === '>') depth++;
    else if (t === '>>') depth += 2;
    else if (t === '<') depth--;
    if (depth <= 0) return j;
  }
  return -1;
}

/**
 * The path right before the name at index `i` of a token stream: `a::b::f` -> ['a', 'b'],
 * `Type::<T>::f` -> ['Type'], `<T as Tr>::f` -> ['T'] (the type the trait is implemented for).
 */
function tokenQualifier(tokens: Node[], i: number): string[] {
  const out: string[] = [];
  let j = i - 1;
  while (j >= 1 && tokens[j].type === '::') {
    const prev = tokens[j - 1];
    if (prev.isNamed) {
      out.unshift(prev.text);
      j -= 2;
      continue;
    }
    if (prev.type !== '>' && prev.type !== '>>') break;
    const open = matchingOpen(tokens, j - 1);
    if (open < 0) break;
    if (open >= 1 && tokens[open - 1].type === '::') {
      j = open - 1; // a turbofish on a path segment: keep walking left
      continue;
    }
    // `<T as Tr>::f`: the qualifier is T.
    if (tokens[open + 1]?.isNamed) out.unshift(tokens[open + 1].text);
    break;
  }
  return out;
}

/** Calls inside macro arguments, found by scanning each token tree (nested ones included). */
function macroCalls(root: Node, bareName: string): Call[] {
  const out: Call[] = [];
  for (const tt of root.descendantsOfType('token_tree')) {
    if (!tt) continue;
    const tokens = children(tt);
    tokens.forEach((tok, i) => {
      if (tok.type !== 'identifier' || tok.text !== bareName) return;
      const next = tokens[skipTurbofish(tokens, i + 1)];
      if (next?.type !== 'token_tree' || next.firstChild?.type !== '(') return;
      const prev = tokens[i - 1]?.type;
      if (prev === 'fn') return; // a definition inside a macro body, not a call
      const qualifier = tokenQualifier(tokens, i);
      out.push({ method: prev === '.', qualifier, qualifierType: qualifier[qualifier.length - 1] ?? '' });
    });
  }
  return out;
}

/** Whether `Type` appears anywhere in the test as a type, a path segment or a token. */
function namesType(root: Node, className: string): boolean {
  return root.descendantsOfType(['type_identifier', 'identifier']).some((n) => n?.text === className);
}

function freeCallIsStrict(call: Call, target: InvocationTarget): boolean {
  const scopeSegments = target.scope ? target.scope.split('::') : [];
  const focalModule = scopeSegments[scopeSegments.length - 1] ?? target.fileModule ?? '';
  if (call.method) return false;
  // The test module sits in the focal function's module (toolchain.ts): unqualified names and `super` are that module.
  if (call.qualifier.length === 0) return true;
  const last = call.qualifier[call.qualifier.length - 1];
  if (focalModule && last === focalModule) return true;
  if (call.qualifier.length === 1 && last === 'super') return true;
  // At the crate root (lib.rs/main.rs), `crate::f` is the focal module.
  return scopeSegments.length === 0 && !focalModule && (last === 'crate' || last === 'self');
}

export function findInvocation(tree: Tree, _source: string, target: InvocationTarget): InvocationResult {
  const root = tree.rootNode;
  const calls = [...expressionCalls(root, target.bareName), ...macroCalls(root, target.bareName)];
  if (calls.length === 0) return { invoked: false, strict: false };
  let strict: boolean;
  if (target.className) {
    const typeNamed = namesType(root, target.className);
    strict = calls.some((c) => (c.method ? typeNamed : c.qualifierType === target.className));
  } else {
    strict = calls.some((c) => freeCallIsStrict(c, target));
  }
  return { invoked: true, strict };
}

/** `src/triangle.rs` -> `triangle`; `src/shapes/mod.rs` -> `shapes`; `src/lib.rs`, `src/main.rs` -> ''. */
function fileModuleOf(filePath: string): string {
  const parts = filePath.split('/');
  const file = parts[parts.length - 1] ?? '';
  if (file === 'mod.rs') return parts[parts.length - 2] ?? '';
  if (file === 'lib.rs' || file === 'main.rs') return '';
  return file.replace(/\.rs$/, '');
}

/** Rust's part of the invocation check (the adapter's `invocation`). */
export const rustInvocation: LanguageInvocation = { find: findInvocation, fileModule: fileModuleOf };
