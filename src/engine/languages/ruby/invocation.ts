import type { Node, Tree } from 'web-tree-sitter';
import { field, named } from '../../parse/nodes';
import type { InvocationTarget, LanguageInvocation } from '../../score/invocation-target';
import type { InvocationResult } from '../../score/types';

/*
 * Strict, in Ruby: the receiver must be the focal method's owner (its class, or its module when it
 * has no class), as far as a syntax tree shows it.
 * - A singleton method (`def self.x`, `class << self`) counts through the owner's constant
 *   (`Catalog.x`, `Bookshelf::Catalog.x`, `Util::x`) or `described_class` inside `RSpec.describe Owner`.
 * - An instance method of a class counts through a receiver that is not a class constant, when the
 *   test names the class (`Cls.new`, `RSpec.describe Cls`, `instance_double(Cls)`). Any object may
 *   respond to `m`; naming the class is the evidence we have without type inference.
 * - A module's instance method (`module_function`, mixins) counts through the module's constant, or
 *   through another receiver (or none) when the test names the module (`include Mod`, `extend Mod`).
 * - `initialize` is invoked by `Cls.new` (or `described_class.new`), strict when `Cls` is the owner.
 * A constant path counts as the owner when its last segment is the owner and what precedes it is a
 * suffix of the recorded module path (`Catalog`, `Bookshelf::Catalog`; not `Other::Catalog`).
 *
 * Ruby cannot tell a bare `m` from a local variable `m` without the parser's local-variable table, so
 * a bare identifier counts as a call only when no assignment or parameter of that name is in scope
 * before it, and no `let(:m)` / `subject(:m)` / `def m` of the test shadows it. `send(:m)`,
 * `method(:m)` and `&:m` are indirect and do not count.
 */

const HARD_SCOPES = new Set(['method', 'singleton_method', 'class', 'module', 'singleton_class', 'program']);
const SOFT_SCOPES = new Set(['block', 'do_block', 'lambda']);
const UNARY_METHOD: Record<string, string> = { '-': '-@', '+': '+@', '!': '!', not: '!', '~': '~' };

interface Site {
  node: Node;
  /** null for a receiverless call. */
  receiver: Node | null;
}

function scopeOf(n: Node): Node | null {
  for (let p = n.parent; p; p = p.parent) if (HARD_SCOPES.has(p.type) || SOFT_SCOPES.has(p.type)) return p;
  return null;
}

/** Segments of a constant path (`A::B::C`), or null when the node is not one. */
function constantPath(n: Node | null): string[] | null {
  if (!n) return null;
  if (n.type === 'constant') return [n.text];
  if (n.type !== 'scope_resolution') return null;
  const name = field(n, 'name');
  if (!name) return null;
  const scope = field(n, 'scope');
  const head = scope ? constantPath(scope) : [];
  return head ? [...head, name.text] : null;
}

interface Binding {
  name: string;
  start: number;
  scope: Node;
}

/** Assignments and parameters: the names Ruby's parser would treat as local variables. */
function bindingsOf(root: Node): Binding[] {
  const out: Binding[] = [];
  const add = (id: Node | null, scope: Node | null) => {
    if (id?.type === 'identifier' && scope) out.push({ name: id.text, start: id.startIndex, scope });
  };
  for (const n of root.descendantsOfType(['assignment', 'operator_assignment', 'left_assignment_list', 'exception_variable', 'for'])) {
    if (!n) continue;
    if (n.type === 'left_assignment_list') named(n).forEach((c) => add(c.type === 'rest_assignment' ? (named(c)[0] ?? null) : c, scopeOf(n)));
    else if (n.type === 'exception_variable') add(named(n)[0] ?? null, scopeOf(n));
    else if (n.type === 'for') add(field(n, 'pattern'), scopeOf(n));
    else add(field(n, 'left'), scopeOf(n));
  }
  for (const params of root.descendantsOfType(['method_parameters', 'block_parameters', 'lambda_parameters', 'parameters'])) {
    if (!params?.parent) continue;
    for (const p of params.descendantsOfType(['identifier'])) {
      // Default values are expressions, not names being bound.
      if (p && (p.parent?.equals(params) || field(p.parent!, 'name')?.equals(p))) add(p, params.parent);
    }
  }
  return out;
}

/** Whether `id` reads a local variable: bound earlier in its own scope or an enclosing block. */
function isLocalVariable(id: Node, bindings: Binding[]): boolean {
  return bindings.some((b) => {
    if (b.name !== id.text || b.start > id.startIndex) return false;
    for (let p = id.parent; p; p = p.parent) {
      if (p.equals(b.scope)) return true;
      if (HARD_SCOPES.has(p.type)) return false; // locals do not cross def/class/module
    }
    return false;
  });
}

/** `let(:m)`, `let!(:m)`, `subject(:m)` and `def m` in the test: receiverless `m` calls these instead. */
function testHelperNames(root: Node): Set<string> {
  const out = new Set<string>();
  for (const n of root.descendantsOfType(['call', 'method'])) {
    if (!n) continue;
    if (n.type === 'method') {
      out.add(field(n, 'name')?.text ?? '');
      continue;
    }
    if (field(n, 'receiver') || !/^(let!?|subject!?)$/.test(field(n, 'method')?.text ?? '')) continue;
    const first = named(field(n, 'arguments') ?? n).find((a) => a.type === 'simple_symbol');
    if (first) out.add(first.text.slice(1));
  }
  return out;
}

/** The class an `RSpec.describe Cls` around `n` names, for `described_class`. */
function describedClass(n: Node): string[] | null {
  for (let p = n.parent; p; p = p.parent) {
    if (p.type !== 'call' || !/^describe$/.test(field(p, 'method')?.text ?? '')) continue;
    const path = constantPath(named(field(p, 'arguments') ?? p)[0] ?? null);
    if (path) return path;
  }
  return null;
}

/** The constant path a receiver stands for (`described_class` resolved), or null. */
function receiverPath(receiver: Node | null): string[] | null {
  if (!receiver) return null;
  if (receiver.type === 'identifier' && receiver.text === 'described_class') return describedClass(receiver);
  return constantPath(receiver);
}

/** Every call of `bareName`: method calls, bare calls, setters and operator forms. */
function sitesOf(root: Node, bareName: string): Site[] {
  const sites: Site[] = [];
  const bindings = bindingsOf(root);
  const helpers = testHelperNames(root);
  for (const n of root.descendantsOfType(['call', 'identifier', 'assignment', 'operator_assignment', 'binary', 'unary', 'element_reference'])) {
    if (!n) continue;
    const parent = n.parent;
    switch (n.type) {
      case 'call': {
        if (field(n, 'method')?.text !== bareName) break;
        const receiver = field(n, 'receiver');
        if (!receiver && helpers.has(bareName)) break;
        sites.push({ node: n, receiver });
        break;
      }
      case 'identifier': {
        if (n.text !== bareName || !parent || helpers.has(bareName)) break;
        if (parent.type === 'call' && field(parent, 'method')?.equals(n)) break; // counted as the call
        if ((parent.type === 'method' || parent.type === 'singleton_method') && field(parent, 'name')?.equals(n)) break;
        if (parent.type === 'assignment' && field(parent, 'left')?.equals(n)) break;
        if (isLocalVariable(n, bindings)) break;
        sites.push({ node: n, receiver: null });
        break;
      }
      case 'assignment':
      case 'operator_assignment': {
        const left = field(n, 'left');
        // `o.name = v` calls `name=`, `a[i] = v` calls `[]=`.
        if (n.type === 'assignment' && left?.type === 'call' && `${field(left, 'method')?.text}=` === bareName) {
          sites.push({ node: n, receiver: field(left, 'receiver') });
        } else if (n.type === 'assignment' && left?.type === 'element_reference' && bareName === '[]=') {
          sites.push({ node: n, receiver: field(left, 'object') });
        } else if (n.type === 'operator_assignment' && field(n, 'operator')?.text === `${bareName}=`) {
          sites.push({ node: n, receiver: left }); // `a += b` calls `+`
        }
        break;
      }
      case 'binary':
        if (field(n, 'operator')?.text === bareName) sites.push({ node: n, receiver: field(n, 'left') });
        break;
      case 'unary': {
        const op = field(n, 'operator')?.text ?? '';
        if (UNARY_METHOD[op] === bareName) sites.push({ node: n, receiver: field(n, 'operand') });
        break;
      }
      case 'element_reference':
        if (bareName === '[]' && !(parent?.type === 'assignment' && field(parent, 'left')?.equals(n))) {
          sites.push({ node: n, receiver: field(n, 'object') });
        }
        break;
    }
  }
  return sites;
}

interface Owner {
  name: string;
  /** What may precede the owner's name in a constant path. */
  qualifier: string[];
  isModule: boolean;
}

function ownerOf(target: InvocationTarget): Owner {
  const modules = target.scope ? target.scope.split('::') : [];
  if (target.className) return { name: target.className, qualifier: modules, isModule: false };
  return { name: modules[modules.length - 1] ?? '', qualifier: modules.slice(0, -1), isModule: true };
}

function isOwnerPath(path: string[] | null, owner: Owner): boolean {
  if (!path || path.length === 0 || path[path.length - 1] !== owner.name) return false;
  const head = path.slice(0, -1);
  const tail = owner.qualifier.slice(owner.qualifier.length - head.length);
  return head.length <= owner.qualifier.length && head.every((s, i) => s === tail[i]);
}

/** Whether any constant path in the test is the owner (`Cls.new`, `describe Cls`, `include Mod`). */
function namesOwner(root: Node, owner: Owner): boolean {
  return root.descendantsOfType(['constant', 'scope_resolution']).some((n) => {
    if (!n || n.parent?.type === 'scope_resolution') return false; // part of a longer path, judged whole
    return isOwnerPath(constantPath(n), owner);
  });
}

/** `include Mod` / `extend Mod` in the test: receiverless calls then reach the module's methods. */
function mixesIn(root: Node, owner: Owner): boolean {
  return root.descendantsOfType('call').some((c) => {
    if (!c || field(c, 'receiver') || !/^(include|extend)$/.test(field(c, 'method')?.text ?? '')) return false;
    return named(field(c, 'arguments') ?? c).some((a) => isOwnerPath(constantPath(a), owner));
  });
}

function constructorSites(root: Node, owner: Owner): { invoked: boolean; strict: boolean } {
  let invoked = false;
  let strict = false;
  for (const site of sitesOf(root, 'new')) {
    const path = receiverPath(site.receiver);
    if (!path || path[path.length - 1] !== owner.name) continue;
    invoked = true;
    if (isOwnerPath(path, owner)) strict = true;
  }
  return { invoked, strict };
}

export function findInvocation(tree: Tree, _source: string, target: InvocationTarget): InvocationResult {
  const root = tree.rootNode;
  const owner = ownerOf(target);
  if (target.bareName === 'initialize' && target.className) return constructorSites(root, owner);

  const sites = sitesOf(root, target.bareName);
  if (sites.length === 0) return { invoked: false, strict: false };
  let ownerNamed: boolean | undefined;
  const ownerIsNamed = () => (ownerNamed ??= namesOwner(root, owner));
  const strict = sites.some((site) => {
    const path = receiverPath(site.receiver);
    if (target.methodKind === 'singleton') return isOwnerPath(path, owner);
    if (owner.isModule) {
      if (path) return isOwnerPath(path, owner);
      return site.receiver ? ownerIsNamed() : mixesIn(root, owner);
    }
    // An instance method through a class constant would be a class-level call: not this method.
    return site.receiver !== null && path === null && ownerIsNamed();
  });
  return { invoked: true, strict };
}

/** Ruby's part of the invocation check (the adapter's `invocation`). */
export const rubyInvocation: LanguageInvocation = { find: findInvocation };
