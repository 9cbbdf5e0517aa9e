import type { Node } from 'web-tree-sitter';
import { field, named } from '../../parse/nodes';
import type { TaskRecord } from '../../tasks/record';
import { enclosing, enclosingAll, indent, LITERAL, snakeCase, withFocalSite } from '../../generate/baseline/common';

/*
 * Rust baseline: a `#[cfg(test)] mod tests { use super::*; … }` (the runner puts it at the end of the
 * innermost inline module holding the focal item, else of the focal file, so private items of the
 * focal module are in reach) calling the focal function once. Values
 * come from the parameter types; a type declared in the focal file is built by `T::default()` when it
 * derives Default, else by its `new`, else by a struct literal (the test module is a child of the focal
 * module, so private fields are visible), else by its first enum variant. `Default::default()` is the
 * last resort. A method whose receiver cannot be built gets an ignored test (libtest "skips" it) whose
 * body still type-checks the call.
 */

const MAX_DEPTH = 4;
const INTS = /^(i8|i16|i32|i64|i128|isize|u8|u16|u32|u64|u128|usize)$/;
const FLOATS = /^(f32|f64)$/;
const COLLECTIONS = new Set(['HashMap', 'HashSet', 'BTreeMap', 'BTreeSet', 'VecDeque', 'BinaryHeap', 'LinkedList']);
const MOD_TYPES = new Set(['mod_item']);

interface Declared {
  node: Node;
  /** Inline modules from the file root down to the declaration. */
  modules: string[];
  defaultable: boolean;
  /** `new` without a receiver, from an inherent impl in the file. */
  constructor: Node | null;
  typeParams: string[];
}

interface Value {
  code: string;
  /** A plain literal: safe to repeat inside a collection. */
  literal: boolean;
}

function lit(code: string): Value {
  return { code, literal: true };
}
function expr(code: string): Value {
  return { code, literal: false };
}

/** Names of the modules enclosing a node, outermost first. */
function modulePath(node: Node): string[] {
  return enclosingAll(node, MOD_TYPES).map((m) => field(m, 'name')?.text ?? '');
}

function derivesDefault(item: Node): boolean {
  for (let p = item.previousNamedSibling; p && (p.type === 'attribute_item' || p.type === 'line_comment' || p.type === 'block_comment'); p = p.previousNamedSibling) {
    if (p.type === 'attribute_item' && /^#\[\s*derive\s*\(/.test(p.text) && /\bDefault\b/.test(p.text)) return true;
  }
  return false;
}

function typeParamNames(item: Node): string[] {
  const params = field(item, 'type_parameters');
  return (params ? named(params) : []).filter((p) => p.type === 'type_parameter').map((p) => field(p, 'name')?.text ?? '');
}

/** A concrete type for a type parameter, from its bounds: `&str` for string-like bounds, `f64` for floats, else `i32`. */
function concreteFor(bounds: string): string {
  if (/\b(AsRef<str>|Into<String>|ToString|Borrow<str>)\b/.test(bounds)) return '&str';
  if (/\b(Float|Real)\b/.test(bounds)) return 'f64';
  return 'i32';
}

/** Type parameters of an item (`impl<T: Copy>`, `fn f<T>`) with `where` clauses -> concrete types. */
function substOf(item: Node | null, into: Map<string, string>): void {
  if (!item) return;
  const bounds = new Map<string, string>();
  const params = field(item, 'type_parameters');
  for (const p of params ? named(params) : []) {
    if (p.type !== 'type_parameter') continue;
    bounds.set(field(p, 'name')?.text ?? '', field(p, 'bounds')?.text ?? '');
  }
  const where = named(item).find((c) => c.type === 'where_clause');
  for (const pred of where ? named(where) : []) {
    const left = field(pred, 'left')?.text;
    if (left && bounds.has(left)) bounds.set(left, `${bounds.get(left)} ${field(pred, 'bounds')?.text ?? ''}`);
  }
  for (const [name, b] of bounds) into.set(name, concreteFor(b));
}

class RustBuilder {
  private readonly declared = new Map<string, Declared>();
  private receiverCode: string | null = null;

  /** `testModules`: the inline modules the test module is placed in (the focal item's, outermost first). */
  constructor(root: Node, private readonly testModules: string[] = []) {
    for (const item of root.descendantsOfType(['struct_item', 'enum_item'])) {
      if (!item || enclosing(item, new Set(['function_item']))) continue;
      const name = field(item, 'name')?.text;
      if (!name || this.declared.has(name)) continue;
      this.declared.set(name, { node: item, modules: modulePath(item), defaultable: derivesDefault(item), constructor: null, typeParams: typeParamNames(item) });
    }
    for (const impl of root.descendantsOfType('impl_item')) {
      if (!impl) continue;
      const typeName = baseTypeName(field(impl, 'type'));
      const decl = typeName ? this.declared.get(typeName) : undefined;
      if (!decl) continue;
      const trait = field(impl, 'trait');
      if (trait && /(^|::)Default$/.test(trait.text)) decl.defaultable = true;
      if (trait) continue;
      for (const f of named(field(impl, 'body') ?? impl)) {
        if (f.type !== 'function_item' || field(f, 'name')?.text !== 'new') continue;
        const params = field(f, 'parameters');
        if (params && !named(params).some((p) => p.type === 'self_parameter')) decl.constructor = f;
      }
    }
  }

  /** Sets how `Self` is spelled once the receiver is known. */
  setSelf(code: string): void {
    this.receiverCode = code;
  }

  /**
   * A type declared in the focal file, as the test module spells it: bare when the test's
   * `use super::*;` reaches it (declared in the module the test sits in), else from the file's root
   * through `super::` (`units::Unit` from a test at the root, `super::super::Unit` from one in `units`).
   */
  qualified(name: string): string {
    const decl = this.declared.get(name);
    if (!decl || sameModules(decl.modules, this.testModules)) return name;
    return [...Array<string>(this.testModules.length + 1).fill('super').slice(this.testModules.length ? 0 : 1), ...decl.modules, name].join('::');
  }

  /** Private fields and functions of a type are visible from the test when it sits inside the type's module. */
  private seesPrivate(decl: Declared): boolean {
    return decl.modules.every((m, i) => this.testModules[i] === m);
  }

  /** A value of a type declared in the focal file, or null when none can be built. */
  build(name: string, typeArgs: string[], depth: number): Value | null {
    const decl = this.declared.get(name);
    if (!decl || depth > MAX_DEPTH) return null;
    const path = this.qualified(name);
    if (decl.defaultable) return expr(`${path}::default()`);
    const subst = new Map(decl.typeParams.map((p, i) => [p, typeArgs[i] ?? 'i32']));
    const visibleFields = this.seesPrivate(decl); // from outside the type's module only its pub fields are visible
    if (decl.constructor) {
      const args = this.arguments(field(decl.constructor, 'parameters'), subst, depth + 1);
      if (args && (visibleFields || named(decl.constructor).some((c) => c.type === 'visibility_modifier'))) return expr(`${path}::new(${args.join(', ')})`);
    }
    const body = field(decl.node, 'body');
    if (decl.node.type === 'struct_item') {
      if (!visibleFields && body && named(body).some((f) => (f.type === 'field_declaration' || f.type === 'ordered_field_declaration_list') && !named(f).some((c) => c.type === 'visibility_modifier'))) return null;
      return this.fields(path, body, subst, depth);
    }
    const variant = body ? named(body).find((v) => v.type === 'enum_variant') : undefined;
    if (!variant) return null;
    return this.fields(`${path}::${field(variant, 'name')?.text}`, field(variant, 'body'), subst, depth);
  }

  /** `P { a: 1 }`, `P(1, 2)` or `P` for a struct or variant body. */
  private fields(path: string, body: Node | null, subst: Map<string, string>, depth: number): Value | null {
    if (!body) return expr(path);
    if (body.type === 'field_declaration_list') {
      const parts: string[] = [];
      for (const f of named(body).filter((c) => c.type === 'field_declaration')) {
        const type = field(f, 'type');
        const v = type ? this.valueOf(type, subst, depth + 1) : null;
        if (!v) return null;
        parts.push(`${field(f, 'name')?.text}: ${v.code}`);
      }
      return expr(parts.length ? `${path} { ${parts.join(', ')} }` : `${path} {}`);
    }
    const parts: string[] = [];
    for (const type of body.childrenForFieldName('type').filter((c): c is Node => c !== null)) {
      const v = this.valueOf(type, subst, depth + 1);
      if (!v) return null;
      parts.push(v.code);
    }
    return expr(`${path}(${parts.join(', ')})`);
  }

  /** Values for a parameter list (receiver left out), or null when one cannot be built. */
  arguments(params: Node | null, subst: Map<string, string>, depth: number): string[] | null {
    const out: string[] = [];
    for (const p of params ? named(params) : []) {
      if (p.type !== 'parameter') continue;
      const type = field(p, 'type');
      const v = type ? this.valueOf(type, subst, depth) : null;
      if (!v) return null;
      out.push(v.code);
    }
    return out;
  }

  private named(text: string, subst: Map<string, string>, depth: number): Value | null {
    if (subst.has(text)) return this.valueOfText(subst.get(text)!);
    const scalar = this.valueOfText(text);
    if (scalar) return scalar;
    if (text === 'Self') return this.receiverCode ? expr(this.receiverCode) : null;
    return this.build(text, [], depth);
  }

  /** Scalars and std types named by a bare identifier. */
  private valueOfText(text: string): Value | null {
    if (INTS.test(text)) return lit(LITERAL.int);
    if (FLOATS.test(text)) return lit(LITERAL.float);
    if (text === 'bool') return lit('false');
    if (text === 'char') return lit(`'${LITERAL.string}'`);
    if (text === '&str') return lit(JSON.stringify(LITERAL.string));
    if (text === 'String') return expr(`String::from(${JSON.stringify(LITERAL.string)})`);
    if (text === 'PathBuf') return expr(`std::path::PathBuf::from(${JSON.stringify(LITERAL.string)})`);
    return null;
  }

  valueOf(type: Node, subst: Map<string, string>, depth: number): Value | null {
    if (depth > MAX_DEPTH) return null;
    switch (type.type) {
      case 'primitive_type':
      case 'type_identifier':
        return this.named(type.text, subst, depth) ?? expr('Default::default()');
      case 'scoped_type_identifier': {
        const last = field(type, 'name')?.text ?? '';
        return this.valueOfText(last) ?? expr('Default::default()');
      }
      case 'reference_type': {
        const inner = field(type, 'type');
        const mut = named(type).some((c) => c.type === 'mutable_specifier') ? 'mut ' : '';
        if (!inner) return null;
        if (inner.type === 'primitive_type' && inner.text === 'str') return lit(JSON.stringify(LITERAL.string));
        if (inner.type === 'array_type' && !field(inner, 'length')) {
          const element = field(inner, 'element');
          const v = element ? this.valueOf(element, subst, depth + 1) : null;
          return expr(`&${mut}[${v?.literal ? v.code : ''}]`);
        }
        if (inner.type === 'type_identifier' && subst.get(inner.text) === '&str') return lit(JSON.stringify(LITERAL.string));
        const v = this.valueOf(inner, subst, depth + 1);
        return v ? expr(`&${mut}${v.code}`) : null;
      }
      case 'array_type': {
        const element = field(type, 'element');
        const length = field(type, 'length')?.text;
        const v = element ? this.valueOf(element, subst, depth + 1) : null;
        if (!v || !length) return null;
        return expr(v.literal ? `[${v.code}; ${length}]` : `std::array::from_fn(|_| ${v.code})`);
      }
      case 'tuple_type': {
        const parts = named(type).map((t) => this.valueOf(t, subst, depth + 1));
        if (parts.some((p) => !p)) return null;
        return expr(`(${parts.map((p) => p!.code).join(', ')}${parts.length === 1 ? ',' : ''})`);
      }
      case 'unit_type':
        return lit('()');
      case 'generic_type':
        return this.generic(type, subst, depth);
      case 'function_type': {
        const params = field(type, 'parameters');
        const arity = params ? named(params).length : 0;
        const ret = field(type, 'return_type');
        const v = ret ? this.valueOf(ret, subst, depth + 1) : lit('()');
        return v ? expr(`|${Array(arity).fill('_').join(', ')}| ${v.code}`) : null;
      }
      case 'abstract_type': {
        const trait = field(type, 'trait');
        if (trait?.type === 'function_type') return this.valueOf(trait, subst, depth);
        if (trait && /\b(AsRef<str>|Into<String>|ToString|Display)\b/.test(trait.text)) return lit(JSON.stringify(LITERAL.string));
        return null;
      }
      case 'pointer_type':
        return expr(/\bmut\b/.test(type.text) ? 'std::ptr::null_mut()' : 'std::ptr::null()');
      default:
        return expr('Default::default()');
    }
  }

  private generic(type: Node, subst: Map<string, string>, depth: number): Value | null {
    const base = baseTypeName(type) ?? '';
    const args = named(field(type, 'type_arguments') ?? type).filter((a) => a.type !== 'lifetime');
    const first = args[0];
    const inner = () => (first ? this.valueOf(first, subst, depth + 1) : null);
    switch (base) {
      case 'Vec': {
        const v = inner();
        return expr(v?.literal ? `vec![${v.code}]` : 'Vec::new()');
      }
      case 'Option':
        return expr('None');
      case 'Box':
      case 'Rc':
      case 'Arc':
      case 'RefCell':
      case 'Cell': {
        const v = inner();
        const path = { Box: 'Box', Rc: 'std::rc::Rc', Arc: 'std::sync::Arc', RefCell: 'std::cell::RefCell', Cell: 'std::cell::Cell' }[base];
        return v ? expr(`${path}::new(${v.code})`) : null;
      }
      case 'Result': {
        const v = inner();
        return v ? expr(`Ok(${v.code})`) : null;
      }
      default:
        if (COLLECTIONS.has(base)) return expr('Default::default()');
        if (this.declared.has(base)) return this.build(base, args.map((a) => subst.get(a.text) ?? a.text), depth);
        return expr('Default::default()');
    }
  }
}

function sameModules(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((m, i) => m === b[i]);
}

/** `Interval<T>` / `units::Unit` / `Polygon` -> the type's own name. */
function baseTypeName(type: Node | null): string | null {
  if (!type) return null;
  if (type.type === 'generic_type') return baseTypeName(field(type, 'type'));
  if (type.type === 'scoped_type_identifier') return field(type, 'name')?.text ?? null;
  return type.type === 'type_identifier' ? type.text : null;
}

export async function rustBaselineTest(task: TaskRecord): Promise<string> {
  return withFocalSite(task, 'rust', ['function_item'], (fn) => field(fn, 'name')?.text ?? null, ({ root, fn }) => {
    const b = new RustBuilder(root, modulePath(fn));
    const name = field(fn, 'name')?.text ?? task.function_name;
    const impl = enclosing(fn, new Set(['impl_item', 'trait_item']));
    const subst = new Map<string, string>();
    substOf(impl, subst);
    const ownParams = new Map<string, string>();
    substOf(fn, ownParams);
    for (const [k, v] of ownParams) subst.set(k, v);

    const params = field(fn, 'parameters');
    const selfParam = params ? named(params).find((p) => p.type === 'self_parameter') : undefined;
    const body: string[] = [];
    let ignore: string | null = null;
    let callee: string;
    if (impl) {
      const typeNode = field(impl, 'type');
      const typeName = baseTypeName(typeNode) ?? task.metadata.class_name;
      const typeArgs = typeNode?.type === 'generic_type' ? named(field(typeNode, 'type_arguments') ?? typeNode).map((a) => subst.get(a.text) ?? a.text) : [];
      const receiver = b.build(typeName, typeArgs, 1);
      const path = b.qualified(typeName) || typeName;
      if (impl.type === 'impl_item' && field(impl, 'trait')) {
        const trait = field(impl, 'trait')!.text.replace(/<.*$/s, '');
        if (/^(crate|std|core|alloc)::/.test(trait)) body.push(`#[allow(unused_imports)]\nuse ${trait};`);
      }
      if (selfParam) {
        const mutable = /\bmut\b/.test(selfParam.text) ? 'mut ' : '';
        if (receiver) body.push(`let ${mutable}receiver = ${receiver.code};`);
        else {
          ignore = `baseline: no way to build a ${typeName} from the focal file`;
          body.push(`let ${mutable}receiver: ${path} = todo!(${JSON.stringify(ignore)});`);
        }
        callee = `receiver.${name}`;
        if (receiver) b.setSelf(receiver.code);
      } else {
        if (receiver) b.setSelf(receiver.code);
        callee = `${path}::${name}`;
      }
    } else {
      // The test module sits in the focal function's own module: its `use super::*;` reaches it.
      callee = name;
    }
    if (ownParams.size && !params?.descendantsOfType('abstract_type').length) callee += `::<${[...ownParams.values()].join(', ')}>`;
    const args = b.arguments(params, subst, 1);
    let call: string;
    if (args) call = `${callee}(${args.join(', ')})`;
    else {
      ignore ??= 'baseline: an argument type cannot be built from the focal file';
      call = `${callee}(${(params ? named(params).filter((p) => p.type === 'parameter') : []).map(() => 'todo!()').join(', ')})`;
    }
    if (/\bunsafe\b/.test(named(fn).find((c) => c.type === 'function_modifiers')?.text ?? '')) call = `unsafe { ${call} }`;
    const returns = field(fn, 'return_type');
    body.push(returns && returns.text !== '()' ? `let _ = ${call};` : `${call};`);

    const lines = [
      '#[cfg(test)]',
      'mod tests {',
      '    use super::*;',
      '',
      `    /// Baseline (a lower bound, not a model): calls \`${name}\` once with values built from its`,
      '    /// parameter types; it passes when the call returns without panicking.',
      '    #[test]',
      ...(ignore ? [`    #[ignore = ${JSON.stringify(ignore)}]`] : []),
      `    fn ${snakeCase(name)}_baseline() {`,
      indent(body.join('\n'), '        '),
      '    }',
      '}',
      '',
    ];
    return lines.join('\n');
  });
}
