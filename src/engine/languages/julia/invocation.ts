import type { Node, Tree } from 'web-tree-sitter';
import { named } from '../../parse/nodes';
import type { InvocationTarget, LanguageInvocation } from '../../score/invocation-target';
import type { InvocationResult } from '../../score/types';

/*
 * Strict, in Julia: functions belong to modules, not to types (methods are dispatched on every
 * argument), so the only receiver-like thing a call names is a module. A qualified call `M.f(…)`
 * counts when `M` is the last segment of the focal module (`Inner.winsorize`,
 * `MiniStats.Inner.winsorize`) or the module the function extends (`Base.show` for a `Base.show`
 * method); an unqualified call counts, since which method runs depends on the argument types, which
 * a syntax tree does not know.
 *
 * Call forms: `f(x)`, `M.f(x)`, `f{T}(x)`, `f.(x)`, `x |> f`, `x .|> f`, `f(x) do … end`, keyword
 * arguments and splats (all plain call_expressions), calls inside macros (`@test f(x) == 1`: macro
 * arguments are parsed as expressions), and a binary operator when the focal function is one.
 */

interface Callee {
  name: string;
  /** The module path before the name (`['MiniStats', 'Inner']`), empty when unqualified. */
  qualifier: string[];
}

/** `f`, `M.f`, `A.B.f`, `f{T}` -> name and qualifier; null for anything else (a lambda, an index). */
function calleeOf(n: Node | null): Callee | null {
  if (!n) return null;
  switch (n.type) {
    case 'identifier':
      return { name: n.text, qualifier: [] };
    case 'field_expression': {
      const parts = named(n);
      const member = parts[parts.length - 1];
      const value = parts.length > 1 ? calleeOf(parts[0]) : null;
      if (!member || member.type !== 'identifier' || !value) return null;
      return { name: member.text, qualifier: [...value.qualifier, value.name] };
    }
    case 'parametrized_type_expression':
      return calleeOf(named(n)[0] ?? null);
    case 'parenthesized_expression':
      return calleeOf(named(n)[0] ?? null);
    default:
      return null;
  }
}

const PIPE_OPERATORS = new Set(['|>', '.|>']);

function calleesOf(root: Node, bareName: string): Callee[] {
  const out: Callee[] = [];
  for (const n of root.descendantsOfType(['call_expression', 'broadcast_call_expression', 'binary_expression'])) {
    if (!n) continue;
    const parts = named(n);
    if (n.type === 'binary_expression') {
      const op = parts.find((c) => c.type === 'operator')?.text ?? '';
      if (op === bareName) out.push({ name: op, qualifier: [] });
      if (!PIPE_OPERATORS.has(op)) continue;
      const callee = calleeOf(parts[parts.length - 1] ?? null); // `x |> f` calls f
      if (callee?.name === bareName) out.push(callee);
      continue;
    }
    const callee = calleeOf(parts[0] ?? null);
    if (callee?.name === bareName) out.push(callee);
  }
  return out;
}

export function findInvocation(tree: Tree, _source: string, target: InvocationTarget): InvocationResult {
  const callees = calleesOf(tree.rootNode, target.bareName);
  if (callees.length === 0) return { invoked: false, strict: false };
  const modules = target.scope ? target.scope.split('.') : [];
  const allowed = new Set<string>();
  if (modules.length > 0) allowed.add(modules[modules.length - 1]);
  // `Base.show` extends Base's function: `Base.show(io, x)` is a call of it.
  const own = target.name.replace(/\{.*$/s, '').split('.').slice(0, -1);
  if (own.length > 0 && own[own.length - 1] !== '') allowed.add(own[own.length - 1]);
  const strict = callees.some((c) => c.qualifier.length === 0 || allowed.has(c.qualifier[c.qualifier.length - 1]));
  return { invoked: true, strict };
}

/** `Base.show` -> `show`, `f{T}` -> `f`, `Base.:(==)` / `Base.:+` -> `==` / `+`: what a call site spells. */
function bareNameOf(name: string): string {
  const noParams = name.replace(/\{.*$/s, '');
  const operator = /\.:\(?([^()]+)\)?$/.exec(noParams);
  if (operator) return operator[1];
  return noParams.replace(/^.*\./, '');
}

/** Julia's part of the invocation check (the adapter's `invocation`). */
export const juliaInvocation: LanguageInvocation = { find: findInvocation, bareName: bareNameOf };
