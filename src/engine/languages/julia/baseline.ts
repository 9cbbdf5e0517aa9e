import type { Node } from 'web-tree-sitter';
import { children, field, named } from '../../parse/nodes';
import type { TaskRecord } from '../../tasks/record';
import { repositoryNameOrNull } from '../../tasks/task-path';
import { enclosingAll, guessFromName, LITERAL, withFocalSite } from '../../generate/baseline/common';

/*
 * Julia baseline: `using Test` and the package, then a `@testset` whose one test is
 * `@test (f(args); true)`: true when the call returns, an error when it throws. Arguments follow the
 * declared types (`AbstractVector{<:Real}` -> `[1.0]`, `IO` -> `IOBuffer()`, a struct of the focal file
 * -> its default constructor with field values), untyped ones are guessed from their names; arguments
 * with defaults keep them. Calls are qualified by the module path (`MiniStats.Inner.winsorize`), so
 * unexported functions are reached too; a method added to another module's function keeps that
 * module (`Base.show`).
 */

const MAX_DEPTH = 3;
const INTS = /^(Int|Int8|Int16|Int32|Int64|Int128|UInt|UInt8|UInt16|UInt32|UInt64|UInt128|Integer|Signed|Unsigned)$/;
const FLOATS = /^(Float16|Float32|Float64|AbstractFloat|Real|Number)$/;
const VECTORS = new Set(['Vector', 'AbstractVector', 'Array', 'AbstractArray', 'DenseVector', 'StridedVector']);

interface StructInfo {
  modulePath: string;
  typeParams: Map<string, string>;
  fields: Array<Node | null>;
}

function moduleNames(node: Node): string[] {
  return enclosingAll(node, new Set(['module_definition'])).map((m) => field(m, 'name')?.text ?? named(m)[0]?.text ?? '');
}

/** `T<:Real` -> Float64, `T<:Integer` -> Int, `T<:AbstractString` -> String; unbounded -> Float64. */
function concreteFor(bound: string): string {
  if (INTS.test(bound)) return 'Int';
  if (/String$/.test(bound)) return 'String';
  return 'Float64';
}

/** `{T<:Real, S}` type variables -> concrete types. */
function typeVariables(curly: Node | null, into: Map<string, string>): void {
  for (const v of curly ? named(curly) : []) {
    if (v.type === 'identifier') into.set(v.text, 'Float64');
    else if (v.type === 'binary_expression' && named(v)[0]?.type === 'identifier') into.set(named(v)[0].text, concreteFor(named(v)[2]?.text ?? named(v)[named(v).length - 1]?.text ?? ''));
  }
}

class JuliaBuilder {
  private readonly structs = new Map<string, StructInfo>();

  constructor(root: Node, private readonly focalModule: string) {
    for (const s of root.descendantsOfType('struct_definition')) {
      if (!s) continue;
      const head = named(s).find((c) => c.type === 'type_head');
      let nameNode = head ? named(head)[0] : undefined;
      if (nameNode?.type === 'binary_expression') nameNode = named(nameNode)[0]; // `S <: Abstract`
      const typeParams = new Map<string, string>();
      if (nameNode?.type === 'parametrized_type_expression') {
        typeVariables(named(nameNode).find((c) => c.type === 'curly_expression') ?? null, typeParams);
        nameNode = named(nameNode)[0];
      }
      if (!nameNode || nameNode.type !== 'identifier') continue;
      const fields = named(s)
        .filter((c) => c.type === 'typed_expression' || c.type === 'identifier')
        .filter((c) => !c.equals(nameNode!))
        .map((c) => (c.type === 'typed_expression' ? (named(c)[1] ?? null) : null));
      const path = moduleNames(s);
      this.structs.set(nameNode.text, { modulePath: path.length ? path.join('.') : this.focalModule, typeParams, fields });
    }
  }

  valueOf(type: Node | null, subst: Map<string, string>, depth: number): string {
    if (!type || depth > MAX_DEPTH) return 'nothing';
    switch (type.type) {
      case 'identifier':
        return this.ofName(type.text, subst, depth);
      case 'unary_expression': // `<:Real` inside braces
        return this.valueOf(named(type).find((c) => c.type !== 'operator') ?? null, subst, depth);
      case 'field_expression':
        return this.ofName(named(type).pop()?.text ?? '', subst, depth);
      case 'parametrized_type_expression': {
        const base = named(type)[0]?.text ?? '';
        const params = named(named(type).find((c) => c.type === 'curly_expression') ?? type).filter((c) => c !== named(type)[0]);
        const first = params[0] ?? null;
        if (VECTORS.has(base)) {
          const element = first?.type === 'identifier' ? (subst.get(first.text) ?? first.text) : null;
          const v = this.valueOf(first, subst, depth + 1);
          return element && /^[A-Z]\w*$/.test(element) && this.isScalar(element) ? `${element}[${v}]` : `[${v}]`;
        }
        if (base === 'Matrix' || base === 'AbstractMatrix') return `fill(${this.valueOf(first, subst, depth + 1)}, 1, 1)`;
        if (base === 'Dict' || base === 'AbstractDict') return `Dict{${params.map((p) => subst.get(p.text) ?? p.text).join(', ')}}()`;
        if (base === 'Set' || base === 'AbstractSet') return `Set{${subst.get(first?.text ?? '') ?? first?.text ?? 'Any'}}()`;
        if (base === 'Tuple' || base === 'NTuple') return `(${params.map((p) => this.valueOf(p, subst, depth + 1)).join(', ')},)`;
        if (base === 'Union') {
          const member = params.find((p) => p.text !== 'Nothing' && p.text !== 'Missing');
          return member ? this.valueOf(member, subst, depth + 1) : 'nothing';
        }
        if (base === 'Type') return first?.text ?? 'Any';
        return this.ofName(base, subst, depth);
      }
      default:
        return 'nothing';
    }
  }

  private isScalar(name: string): boolean {
    return INTS.test(name) || FLOATS.test(name) || /^(String|Bool|Char|Symbol)$/.test(name);
  }

  private ofName(name: string, subst: Map<string, string>, depth: number): string {
    const n = subst.get(name) ?? name;
    if (INTS.test(n)) return LITERAL.int;
    if (FLOATS.test(n)) return LITERAL.float;
    if (n === 'String' || n === 'AbstractString') return JSON.stringify(LITERAL.string);
    if (n === 'Char' || n === 'AbstractChar') return `'${LITERAL.string}'`;
    if (n === 'Symbol') return `:${LITERAL.string}`;
    if (n === 'Bool') return 'false';
    if (n === 'IO' || n === 'IOBuffer') return 'IOBuffer()';
    if (n === 'Function') return 'identity';
    if (n === 'Dict' || n === 'AbstractDict') return 'Dict()';
    if (VECTORS.has(n)) return `[${LITERAL.float}]`;
    const s = this.structs.get(n);
    if (s) {
      const fields = s.fields.map((f) => this.valueOf(f, s.typeParams, depth + 1));
      return `${s.modulePath ? `${s.modulePath}.` : ''}${n}(${fields.join(', ')})`;
    }
    return 'nothing';
  }
}

/** `f(...)` of a signature, under `where` and a return-type annotation. */
function signatureCall(fn: Node): Node | null {
  let n: Node | null = fn.type === 'function_definition' ? (named(fn).find((c) => c.type === 'signature') ?? null) : named(fn)[0] ?? null;
  if (n?.type === 'signature') n = named(n)[0] ?? null;
  while (n && (n.type === 'where_expression' || n.type === 'typed_expression')) n = named(n)[0] ?? null;
  return n?.type === 'call_expression' ? n : null;
}

function calleeText(fn: Node): string | null {
  const call = signatureCall(fn);
  const callee = call ? named(call)[0] : null;
  if (!callee) return null;
  return callee.type === 'parametrized_type_expression' ? (named(callee)[0]?.text ?? null) : callee.text;
}

function untypedName(arg: Node): string | null {
  return arg.type === 'identifier' ? arg.text : null;
}

export async function juliaBaselineTest(task: TaskRecord): Promise<string> {
  const nameOf = (fn: Node) => calleeText(fn)?.replace(/^.*\./, '') ?? null;
  return withFocalSite(task, 'julia', ['function_definition', 'assignment'], nameOf, ({ root, fn }) => {
    const own = moduleNames(fn);
    const focalModule = (task.metadata.module as string | undefined) || own.join('.');
    const pkg = focalModule.split('.')[0] || (repositoryNameOrNull(task) ?? '').replace(/\.jl$/, '');
    const b = new JuliaBuilder(root, focalModule);
    const call = signatureCall(fn);
    const subst = new Map<string, string>();
    for (const w of fn.descendantsOfType('where_expression')) if (w) typeVariables(named(w).find((c) => c.type === 'curly_expression') ?? named(w)[1] ?? null, subst);

    const positional: string[] = [];
    const keywords: string[] = [];
    let afterSemicolon = false;
    const argList = call ? named(call).find((c) => c.type === 'argument_list') : undefined;
    for (const a of argList ? children(argList) : []) {
      if (a.type === ';') afterSemicolon = true;
      if (!a.isNamed || a.type === 'named_argument' || a.type === 'splat_expression') continue; // defaults kept, varargs empty
      const argName = a.type === 'typed_expression' ? named(a)[0]?.text : untypedName(a);
      let value: string;
      if (a.type === 'typed_expression') value = b.valueOf(named(a)[1] ?? null, subst, 1);
      else {
        const guess = guessFromName(argName ?? '');
        value = { list: `[${LITERAL.float}]`, map: 'Dict()', int: LITERAL.int, float: LITERAL.float, string: JSON.stringify(LITERAL.string), bool: 'false', unknown: 'nothing' }[guess];
      }
      if (afterSemicolon) keywords.push(`${argName} = ${value}`);
      else positional.push(value);
    }
    const written = calleeText(fn) ?? task.function_name;
    const qualified = written.includes('.') ? written : focalModule ? `${focalModule}.${written}` : written;
    const args = positional.join(', ') + (keywords.length ? `; ${keywords.join(', ')}` : '');
    const bare = written.replace(/^.*\./, '');
    return [
      'using Test',
      `using ${pkg}`,
      '',
      `# Baseline (a lower bound, not a model): calls ${bare} once with values built from its parameter`,
      '# types; the test holds when the call returns without throwing.',
      `@testset ${JSON.stringify(`${bare} (baseline)`).replace(/\$/g, "\\$")} begin`,
      `    @test (${qualified}(${args}); true)`,
      'end',
      '',
    ].join('\n');
  });
}
