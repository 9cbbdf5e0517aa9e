import type { Node } from 'web-tree-sitter';
import { field, named } from '../../parse/nodes';
import type { TaskRecord } from '../../tasks/record';
import { LITERAL, pascalCase, withFocalSite } from '../../generate/baseline/common';

/*
 * Go baseline: an internal test (`package <pkg>`, so unexported names are reachable) that calls the
 * focal function once with a value per parameter type and discards the results with `_`. Go's zero
 * values make this compile for nearly any signature: where nothing better is known, `*new(T)` is a
 * valid value of every type T.
 */

type TypeKind = 'struct' | 'map' | 'slice' | 'array' | 'interface' | 'func' | 'basic' | 'other';

interface TypeDecl {
  kind: TypeKind;
  /** The underlying basic type for `type Tier int`. */
  basic?: string;
  /** Type parameters in order, each with the concrete type a baseline picks for it. */
  typeArgs: string[];
}

const INTS = /^(u?int(8|16|32|64)?|byte|rune|uintptr)$/;
const FLOATS = /^(float32|float64)$/;
const COMPLEX = /^complex(64|128)$/;

function basicLiteral(name: string): string | null {
  if (INTS.test(name) || COMPLEX.test(name)) return LITERAL.int;
  if (FLOATS.test(name)) return LITERAL.float;
  if (name === 'string') return JSON.stringify(LITERAL.string);
  if (name === 'bool') return 'false';
  if (name === 'error' || name === 'any') return 'nil';
  return null;
}

/** A concrete type satisfying a constraint, read from its text: `int` for any/comparable/Ordered/Integer. */
export function concreteFor(constraint: string): string {
  const c = constraint.replace(/\s+/g, ' ').trim();
  if (/Float/.test(c)) return 'float64';
  if (/Unsigned/.test(c)) return 'uint';
  if (/(^|\|)\s*~?string\s*($|\|)/.test(c) && !/(^|\|)\s*~?int/.test(c)) return 'string';
  const firstTerm = /^~?([a-z][a-z0-9]*)\b/.exec(c);
  if (firstTerm && basicLiteral(firstTerm[1]) !== null && firstTerm[1] !== 'any' && firstTerm[1] !== 'error') return firstTerm[1];
  return 'int';
}

class GoBuilder {
  readonly imports = new Set<string>();
  private readonly types = new Map<string, TypeDecl>();
  /** Local package name -> import spec line (`"io"` or `alias "path"`). */
  private readonly fileImports = new Map<string, string>();

  constructor(root: Node, private readonly subst: Map<string, string>) {
    for (const spec of root.descendantsOfType('type_spec')) if (spec) this.addType(spec);
    for (const spec of root.descendantsOfType('import_spec')) {
      if (!spec) continue;
      const importPath = field(spec, 'path')?.text ?? '';
      const alias = field(spec, 'name')?.text;
      const bare = importPath.replace(/^["`]|["`]$/g, '');
      const local = alias ?? bare.split('/').filter((p) => !/^v\d+$/.test(p)).pop() ?? bare;
      if (alias !== '_' && alias !== '.') this.fileImports.set(local, alias ? `${alias} ${importPath}` : importPath);
    }
  }

  private addType(spec: Node): void {
    const name = field(spec, 'name')?.text;
    const type = field(spec, 'type');
    if (!name || !type) return;
    const typeArgs: string[] = [];
    const params = field(spec, 'type_parameters');
    for (const decl of params ? named(params) : []) {
      const constraint = field(decl, 'type')?.text ?? 'any';
      for (const n of named(decl).filter((c) => c.type === 'identifier')) typeArgs.push(concreteFor(constraint) || n.text);
    }
    const kinds: Record<string, TypeKind> = {
      struct_type: 'struct',
      map_type: 'map',
      slice_type: 'slice',
      array_type: 'array',
      interface_type: 'interface',
      function_type: 'func',
    };
    let kind: TypeKind = kinds[type.type] ?? 'other';
    let basic: string | undefined;
    if (type.type === 'type_identifier' && basicLiteral(type.text) !== null && type.text !== 'error' && type.text !== 'any') {
      kind = 'basic';
      basic = type.text;
    }
    this.types.set(name, { kind, basic, typeArgs });
  }

  declared(name: string): TypeDecl | undefined {
    return this.types.get(name);
  }

  /** `pkg` in `pkg.T`: the test must import it as the focal file does. */
  private usePackage(local: string): void {
    const spec = this.fileImports.get(local);
    if (spec) this.imports.add(spec);
  }

  private useStd(pathName: string): string {
    const local = pathName.split('/').pop()!;
    const spec = this.fileImports.get(local);
    // The focal file may import this package under an alias, or another package under its name.
    if (spec && spec !== JSON.stringify(pathName)) {
      const alias = `xrt${local}`;
      this.imports.add(`${alias} ${JSON.stringify(pathName)}`);
      return alias;
    }
    this.imports.add(JSON.stringify(pathName));
    return local;
  }

  /** The type as written, with the focal function's type parameters replaced by concrete types. */
  typeText(node: Node): string {
    const edits: Array<[number, number, string]> = [];
    const visit = (n: Node): void => {
      if (n.type === 'type_identifier' && this.subst.has(n.text)) edits.push([n.startIndex, n.endIndex, this.subst.get(n.text)!]);
      else if (n.type === 'package_identifier') this.usePackage(n.text);
      for (const c of named(n)) visit(c);
    };
    visit(node);
    let text = node.text;
    for (const [s, e, r] of edits.reverse()) text = text.slice(0, s - node.startIndex) + r + text.slice(e - node.startIndex);
    return text;
  }

  /** `Stack[T]` written in a receiver or parameter -> `Stack[int]`; a bare generic name gets its default arguments. */
  private instantiated(name: string, written: Node): string {
    const decl = this.types.get(name);
    if (written.type === 'generic_type') return this.typeText(written);
    return decl && decl.typeArgs.length ? `${name}[${decl.typeArgs.join(', ')}]` : name;
  }

  /** A value of the type written at `node`. */
  valueOf(node: Node): string {
    switch (node.type) {
      case 'type_identifier':
      case 'generic_type': {
        const name = node.type === 'generic_type' ? (field(node, 'type')?.text ?? node.text) : node.text;
        if (this.subst.has(name)) return basicLiteral(this.subst.get(name)!) ?? `*new(${this.subst.get(name)})`;
        const basic = basicLiteral(name);
        if (basic !== null) return basic;
        const decl = this.types.get(name);
        const text = this.instantiated(name, node);
        if (!decl) return `*new(${text})`;
        if (decl.kind === 'struct' || decl.kind === 'map' || decl.kind === 'slice' || decl.kind === 'array') return `${text}{}`;
        if (decl.kind === 'basic') return `${text}(${basicLiteral(decl.basic!)})`;
        if (decl.kind === 'interface' || decl.kind === 'func') return 'nil';
        return `*new(${text})`;
      }
      case 'qualified_type': {
        const pkg = field(node, 'package')?.text ?? '';
        const name = field(node, 'name')?.text ?? '';
        const qualified = `${pkg}.${name}`;
        if (qualified === 'context.Context') return `${this.useStd('context')}.Background()`;
        if (qualified === 'io.Writer') return `${this.useStd('io')}.Discard`;
        if (qualified === 'io.Reader') return `${this.useStd('strings')}.NewReader(${JSON.stringify(LITERAL.string)})`;
        return `*new(${this.typeText(node)})`;
      }
      case 'pointer_type': {
        const inner = named(node)[0];
        if (!inner) return 'nil';
        if (inner.text === 'testing.T') return 't';
        const innerName = inner.type === 'generic_type' ? field(inner, 'type')?.text : inner.text;
        const decl = innerName ? this.types.get(innerName) : undefined;
        if (decl && (decl.kind === 'struct' || decl.kind === 'map' || decl.kind === 'slice' || decl.kind === 'array')) {
          return `&${this.instantiated(innerName!, inner)}{}`;
        }
        return `new(${this.typeText(inner)})`;
      }
      case 'slice_type': {
        const element = field(node, 'element');
        const v = element ? this.valueOf(element) : 'nil';
        // One element when it is a plain literal: an empty slice would stop most loops before they start.
        const literal = element && basicLiteral(element.text) !== null && v !== 'nil';
        return `${this.typeText(node)}{${literal ? v : ''}}`;
      }
      case 'array_type':
      case 'map_type':
        return `${this.typeText(node)}{}`;
      case 'channel_type':
        return `make(${this.typeText(node)}, 1)`;
      case 'function_type':
      case 'interface_type':
        return 'nil';
      case 'parenthesized_type':
        return named(node)[0] ? this.valueOf(named(node)[0]) : 'nil';
      default:
        return `*new(${this.typeText(node)})`;
    }
  }
}

/** Parameter types in order, one per name (`a, b string` is two), variadic ones left out. */
function parameterTypes(list: Node | null): Node[] {
  const out: Node[] = [];
  for (const p of list ? named(list) : []) {
    if (p.type !== 'parameter_declaration') continue; // variadic: passing nothing is valid
    const type = field(p, 'type');
    if (!type) continue;
    const names = named(p).filter((c) => c.type === 'identifier').length;
    for (let i = 0; i < Math.max(1, names); i++) out.push(type);
  }
  return out;
}

function resultCount(fn: Node): number {
  const result = field(fn, 'result');
  if (!result) return 0;
  if (result.type !== 'parameter_list') return 1;
  return named(result)
    .filter((p) => p.type === 'parameter_declaration')
    .reduce((n, p) => n + Math.max(1, named(p).filter((c) => c.type === 'identifier').length), 0);
}

/** Type parameter names -> concrete types, for the function's own list or a receiver's `Stack[T]`. */
function typeParameterMap(fn: Node, root: Node): { subst: Map<string, string>; order: string[] } {
  const subst = new Map<string, string>();
  const order: string[] = [];
  const params = field(fn, 'type_parameters');
  for (const decl of params ? named(params) : []) {
    const constraint = field(decl, 'type')?.text ?? 'any';
    for (const n of named(decl).filter((c) => c.type === 'identifier')) {
      subst.set(n.text, concreteFor(constraint));
      order.push(n.text);
    }
  }
  const receiverType = receiverTypeNode(fn);
  const generic = receiverType?.type === 'generic_type' ? receiverType : null;
  if (generic) {
    const typeName = field(generic, 'type')?.text;
    const spec = root.descendantsOfType('type_spec').find((s) => s && field(s, 'name')?.text === typeName);
    const declParams = spec ? field(spec, 'type_parameters') : null;
    const constraints: string[] = [];
    for (const decl of declParams ? named(declParams) : []) {
      const c = field(decl, 'type')?.text ?? 'any';
      for (const _ of named(decl).filter((x) => x.type === 'identifier')) constraints.push(c);
    }
    const args = field(generic, 'type_arguments');
    named(args ?? generic)
      .filter((a) => a.type === 'type_elem' || a.type === 'type_identifier')
      .forEach((a, i) => subst.set(a.text, concreteFor(constraints[i] ?? 'any')));
  }
  return { subst, order };
}

function receiverTypeNode(fn: Node): Node | null {
  const receiver = field(fn, 'receiver');
  const decl = receiver ? named(receiver).find((p) => p.type === 'parameter_declaration') : undefined;
  let type = decl ? field(decl, 'type') : null;
  if (type?.type === 'pointer_type') type = named(type)[0] ?? null;
  return type;
}

/** Parameter names in the order `parameterTypes` lists their types. */
function parameterNames(list: Node | null): string[] {
  const out: string[] = [];
  for (const p of list ? named(list) : []) {
    if (p.type !== 'parameter_declaration' || !field(p, 'type')) continue;
    const names = named(p).filter((c) => c.type === 'identifier').map((c) => c.text);
    out.push(...(names.length ? names : ['_']));
  }
  return out;
}

/** A value for one parameter that takes a branch the suite has not taken; `line` is the branch's `if`. */
interface BranchIdea {
  param: number;
  value: string;
  line: number;
}

const FLIP: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '==': '==', '!=': '!=' };

/** The number that makes `p OP n` come out `want`, or null. */
function numberFor(op: string, n: number, want: boolean): number | null {
  const truth: Record<string, [number, number]> = { '<': [n - 1, n], '<=': [n, n + 1], '>': [n + 1, n], '>=': [n, n - 1], '==': [n, n + 1], '!=': [n + 1, n] };
  const pair = truth[op];
  return pair ? pair[want ? 0 : 1] : null;
}

/**
 * `p OP literal` (either side) for a parameter `p` of a basic type, or `p` / `!p` for a bool: the
 * value of `p` that makes the condition `want`. Conditions on anything else give no idea.
 */
function valueFor(cond: Node, params: string[], types: Node[], want: boolean): { param: number; value: string } | null {
  let c = cond;
  while (c.type === 'parenthesized_expression' && named(c)[0]) c = named(c)[0];
  const index = (n: Node | null): number => (n?.type === 'identifier' ? params.indexOf(n.text) : -1);
  const typeOf = (i: number): string => types[i]?.text ?? '';
  if (c.type === 'unary_expression' && field(c, 'operator')?.text === '!') return valueFor(field(c, 'operand')!, params, types, !want);
  if (c.type === 'identifier' && typeOf(index(c)) === 'bool') return { param: index(c), value: String(want) };
  if (c.type !== 'binary_expression') return null;
  let op = field(c, 'operator')?.text ?? '';
  let [p, lit] = [field(c, 'left'), field(c, 'right')];
  if (index(p) < 0) {
    [p, lit] = [lit, p];
    op = FLIP[op] ?? '';
  }
  const i = index(p);
  if (i < 0 || !lit || !(op in FLIP)) return null;
  const type = typeOf(i);
  if (INTS.test(type) && lit.type === 'int_literal' && /^-?\d+$/.test(lit.text)) {
    const v = numberFor(op, Number(lit.text), want);
    // An unsigned parameter cannot take a negative value.
    return v === null || (v < 0 && /^u/.test(type)) ? null : { param: i, value: String(v) };
  }
  if (FLOATS.test(type) && (lit.type === 'float_literal' || lit.type === 'int_literal')) {
    const v = numberFor(op, Number(lit.text), want);
    return v === null ? null : { param: i, value: String(v) };
  }
  if (type === 'string' && lit.type === 'interpreted_string_literal' && (op === '==' || op === '!=')) {
    const equal = (op === '==') === want;
    return { param: i, value: equal ? lit.text : JSON.stringify(`${JSON.parse(lit.text) as string}xrt`) };
  }
  return null;
}

/** Ideas for the focal function's `if`s whose taken branch holds an uncovered line, in source order. */
function branchIdeas(fn: Node, uncovered: ReadonlySet<number>): BranchIdea[] {
  const params = parameterNames(field(fn, 'parameters'));
  const types = parameterTypes(field(fn, 'parameters'));
  const holdsUncovered = (n: Node | null): boolean => {
    if (!n) return false;
    for (let l = n.startPosition.row + 1; l <= n.endPosition.row + 1; l++) if (uncovered.has(l)) return true;
    return false;
  };
  const ideas: BranchIdea[] = [];
  for (const stmt of fn.descendantsOfType('if_statement')) {
    const cond = stmt && field(stmt, 'condition');
    if (!stmt || !cond) continue;
    for (const [branch, want] of [[field(stmt, 'consequence'), true], [field(stmt, 'alternative'), false]] as const) {
      if (!holdsUncovered(branch)) continue;
      const v = valueFor(cond, params, types, want);
      if (v) ideas.push({ ...v, line: stmt.startPosition.row + 1 });
    }
  }
  return ideas;
}

/**
 * Improvement rounds' baseline: the same call with one argument changed so that an `if` whose branch
 * holds an uncovered line takes that branch (`qty <= 0` -> `qty = 0`); null when no condition on a
 * parameter leads there.
 */
export async function goBaselineForLines(task: TaskRecord, uncoveredLines: readonly number[]): Promise<string | null> {
  const uncovered = new Set(uncoveredLines);
  let idea: BranchIdea | undefined;
  await withFocalSite(task, 'go', ['function_declaration', 'method_declaration'], (fn) => field(fn, 'name')?.text ?? null, ({ fn }) => {
    idea = branchIdeas(fn, uncovered)[0];
  });
  return idea ? goBaselineTest(task, idea) : null;
}

export async function goBaselineTest(task: TaskRecord, idea?: BranchIdea): Promise<string> {
  return withFocalSite(task, 'go', ['function_declaration', 'method_declaration'], (fn) => field(fn, 'name')?.text ?? null, ({ root, fn }) => {
    const clause = named(root).find((n) => n.type === 'package_clause');
    const pkg = (task.metadata.package as string | undefined) || (clause ? named(clause)[0]?.text : '') || 'main';
    const name = field(fn, 'name')?.text ?? task.function_name;
    const { subst, order } = typeParameterMap(fn, root);
    const b = new GoBuilder(root, subst);
    const args = parameterTypes(field(fn, 'parameters')).map((t) => b.valueOf(t));
    if (idea && idea.param < args.length) args[idea.param] = idea.value;

    const body: string[] = [];
    let callee = order.length ? `${name}[${order.map((p) => subst.get(p)).join(', ')}]` : name;
    const receiverType = receiverTypeNode(fn);
    if (fn.type === 'method_declaration' && receiverType) {
      const typeName = receiverType.type === 'generic_type' ? field(receiverType, 'type')?.text ?? '' : receiverType.text;
      const decl = b.declared(typeName);
      const text = b.typeText(receiverType);
      const pointer = field(fn, 'receiver')?.text.includes('*') ?? false;
      if (decl && ['struct', 'map', 'slice', 'array'].includes(decl.kind)) body.push(`receiver := ${pointer ? '&' : ''}${text}{}`);
      else body.push(`var receiver ${text}`); // addressable, so pointer methods work on it too
      callee = `receiver.${name}`;
    }
    const call = `${callee}(${args.join(', ')})`;
    const results = resultCount(fn);
    body.push(results === 0 ? call : `${Array(results).fill('_').join(', ')} = ${call}`);

    const imports = ['"testing"', ...[...b.imports].filter((i) => i !== '"testing"').sort()];
    const testName = `Test${fn.type === 'method_declaration' ? pascalCase(task.metadata.class_name || '') : ''}${pascalCase(name)}Baseline${idea ? `Line${idea.line}` : ''}`;
    return [
      `package ${pkg}`,
      '',
      imports.length === 1 ? `import ${imports[0]}` : `import (\n${imports.map((i) => `\t${i}`).join('\n')}\n)`,
      '',
      `// Baseline (a lower bound, not a model): calls ${name} once with values built from its parameter`,
      '// types; it passes when the call returns without panicking.',
      ...(idea ? [`// Aimed at the branch of the \`if\` on line ${idea.line}, through one argument.`] : []),
      `func ${testName}(t *testing.T) {`,
      ...body.map((l) => `\t${l}`),
      '}',
      '',
    ].join('\n');
  });
}
