import type { Node } from 'web-tree-sitter';
import type { LanguageId } from '../../parse/grammars';
import { field, named } from '../../parse/nodes';

/**
 * What LSP context needs to know about one grammar: which nodes are whole definitions (what a server's
 * answer is widened to), which hold conditions, calls and type names. Node types are tree-sitter's
 * (grammars/VERSIONS.md); servers answer either a name range or a whole declaration, and both land
 * inside one of these definitions.
 */
export interface LspSyntax {
  /** A whole struct / type / enum / class / function / method / constant declaration. */
  definitions: ReadonlySet<string>;
  /** Attributes and doc comments that belong to the definition after them (kept with it). */
  leading: ReadonlySet<string>;
  /** A definition node of an ambiguous type that is one (Ruby `X = …`, Julia `f(x) = …`). */
  isDefinition?(node: Node): boolean;
  /** The callee's name node of a call node, or null when the node is not a call. */
  calleeName(node: Node): Node | null;
  /** The condition parts of a control-flow node (if/while/match/switch/ternary/guard), else []. */
  conditionParts(node: Node): Node[];
  /** Identifier-like node types worth asking about inside a condition. */
  identifiers: ReadonlySet<string>;
  /** Name nodes of the types the focal function's parameters (and receiver) are declared with. */
  parameterTypeNames(fn: Node): Node[];
  /** Name nodes of the return type. */
  returnTypeNames(fn: Node): Node[];
  /** Name nodes of the types a definition refers to (for the one level of dependent types). */
  typeNamesIn(def: Node): Node[];
}

/** Every named descendant (and the node itself) that passes the test, in source order. */
export function collect(node: Node, test: (n: Node) => boolean): Node[] {
  const out: Node[] = [];
  const visit = (n: Node): void => {
    if (test(n)) out.push(n);
    for (const c of named(n)) visit(c);
  };
  visit(node);
  return out;
}

function ofTypes(node: Node | null, types: ReadonlySet<string>): Node[] {
  return node ? collect(node, (n) => types.has(n.type)) : [];
}

function fields(node: Node, ...names: string[]): Node[] {
  return names.map((n) => field(node, n)).filter((n): n is Node => n !== null);
}

/** The last name in a qualified / scoped / selector chain (`a.b.c` -> `c`). */
function lastName(node: Node | null, chains: Record<string, string>, names: ReadonlySet<string>): Node | null {
  for (let n = node; n; ) {
    if (names.has(n.type)) return n;
    const f = chains[n.type];
    if (!f) return null;
    n = f === '*last' ? (named(n).at(-1) ?? null) : field(n, f);
  }
  return null;
}

const GO_TYPE_NAMES = new Set(['type_identifier']);

const go: LspSyntax = {
  definitions: new Set(['function_declaration', 'method_declaration', 'type_declaration', 'const_declaration', 'var_declaration']),
  leading: new Set(['comment']),
  calleeName: (n) =>
    n.type === 'call_expression'
      ? lastName(field(n, 'function'), { selector_expression: 'field', parenthesized_expression: '*last', generic_type: 'type' }, new Set(['identifier', 'field_identifier', 'type_identifier']))
      : null,
  conditionParts(n) {
    switch (n.type) {
      case 'if_statement':
        return fields(n, 'condition');
      case 'for_statement': {
        const clause = named(n).find((c) => c.type === 'for_clause');
        if (clause) return fields(clause, 'condition');
        return named(n).filter((c) => c.type !== 'block' && c.type !== 'range_clause' && c.type !== 'comment');
      }
      case 'expression_switch_statement':
      case 'type_switch_statement':
        return fields(n, 'value');
      default:
        return [];
    }
  },
  identifiers: new Set(['identifier', 'field_identifier']),
  parameterTypeNames: (fn) => [...fields(fn, 'receiver'), ...fields(fn, 'parameters')].flatMap((list) => named(list).flatMap((p) => ofTypes(field(p, 'type'), GO_TYPE_NAMES))),
  returnTypeNames: (fn) => ofTypes(field(fn, 'result'), GO_TYPE_NAMES),
  typeNamesIn: (def) => ofTypes(def, GO_TYPE_NAMES).filter((n) => n.parent?.type !== 'type_spec' || field(n.parent, 'name')?.id !== n.id),
};

const RUST_TYPE_NAMES = new Set(['type_identifier']);

/** The `impl` a method sits in: `self` stands for its type. */
function implType(fn: Node): Node | null {
  for (let p = fn.parent; p; p = p.parent) if (p.type === 'impl_item') return field(p, 'type');
  return null;
}

const rust: LspSyntax = {
  definitions: new Set([
    'function_item', 'function_signature_item', 'struct_item', 'enum_item', 'union_item', 'trait_item', 'type_item',
    'const_item', 'static_item', 'macro_definition',
  ]),
  leading: new Set(['attribute_item', 'line_comment', 'block_comment']),
  calleeName: (n) =>
    n.type === 'call_expression'
      ? lastName(field(n, 'function'), { field_expression: 'field', scoped_identifier: 'name', generic_function: 'function' }, new Set(['identifier', 'field_identifier']))
      : null,
  conditionParts(n) {
    switch (n.type) {
      case 'if_expression':
      case 'while_expression':
      case 'match_pattern':
        return fields(n, 'condition');
      case 'match_expression':
        return fields(n, 'value');
      default:
        return [];
    }
  },
  identifiers: new Set(['identifier', 'field_identifier']),
  parameterTypeNames(fn) {
    const params = field(fn, 'parameters');
    if (!params) return [];
    return named(params).flatMap((p) => (p.type === 'self_parameter' ? ofTypes(implType(fn), RUST_TYPE_NAMES) : ofTypes(field(p, 'type'), RUST_TYPE_NAMES)));
  },
  returnTypeNames: (fn) => ofTypes(field(fn, 'return_type'), RUST_TYPE_NAMES),
  typeNamesIn: (def) => ofTypes(def, RUST_TYPE_NAMES).filter((n) => field(def, 'name')?.id !== n.id),
};

const PHP_NAMES = new Set(['name']);

/** Class names inside a PHP type (`?Foo`, `Foo|Bar`, `\A\Foo`), not primitive types. */
function phpTypeNames(type: Node | null): Node[] {
  return type ? collect(type, (n) => n.type === 'named_type').flatMap((t) => [lastName(t, { named_type: '*last', qualified_name: '*last' }, PHP_NAMES)].filter((x): x is Node => x !== null)) : [];
}

const php: LspSyntax = {
  definitions: new Set([
    'function_definition', 'method_declaration', 'class_declaration', 'interface_declaration', 'trait_declaration', 'enum_declaration',
    'property_declaration', 'const_declaration', 'enum_case',
  ]),
  leading: new Set(['comment', 'attribute_list']),
  calleeName(n) {
    switch (n.type) {
      case 'function_call_expression':
        return lastName(field(n, 'function'), { qualified_name: '*last' }, PHP_NAMES);
      case 'member_call_expression':
      case 'nullsafe_member_call_expression':
      case 'scoped_call_expression':
        return lastName(field(n, 'name'), {}, PHP_NAMES);
      case 'object_creation_expression':
        return lastName(named(n).find((c) => c.type === 'name' || c.type === 'qualified_name') ?? null, { qualified_name: '*last' }, PHP_NAMES);
      default:
        return null;
    }
  },
  conditionParts(n) {
    switch (n.type) {
      case 'if_statement':
      case 'else_if_clause':
      case 'while_statement':
      case 'do_statement':
      case 'switch_statement':
      case 'match_expression':
      case 'conditional_expression':
        return fields(n, 'condition');
      case 'for_statement':
        return fields(n, 'condition');
      default:
        return [];
    }
  },
  identifiers: PHP_NAMES,
  parameterTypeNames: (fn) => named(field(fn, 'parameters') ?? fn).flatMap((p) => (p.type.endsWith('parameter') ? phpTypeNames(field(p, 'type')) : [])),
  returnTypeNames: (fn) => phpTypeNames(field(fn, 'return_type')),
  typeNamesIn: (def) => [
    ...collect(def, (n) => n.type === 'base_clause' || n.type === 'class_interface_clause').flatMap((c) => collect(c, (n) => n.type === 'name')),
    ...collect(def, (n) => n.type === 'property_declaration' || n.type === 'property_promotion_parameter').flatMap((p) => phpTypeNames(field(p, 'type'))),
  ],
};

const RUBY_CONDITIONS = new Set(['if', 'unless', 'elsif', 'while', 'until', 'if_modifier', 'unless_modifier', 'while_modifier', 'until_modifier', 'conditional']);

const ruby: LspSyntax = {
  definitions: new Set(['method', 'singleton_method', 'class', 'module', 'assignment']),
  leading: new Set(['comment']),
  // Only constant assignments define something; a local `x = 1` is a binding, not a declaration.
  isDefinition: (n) => n.type !== 'assignment' || field(n, 'left')?.type === 'constant',
  calleeName: (n) => (n.type === 'call' ? field(n, 'method') : null),
  conditionParts(n) {
    if (RUBY_CONDITIONS.has(n.type)) return fields(n, 'condition');
    if (n.type === 'case') return fields(n, 'value');
    return [];
  },
  identifiers: new Set(['identifier', 'constant', 'instance_variable', 'class_variable', 'global_variable']),
  // Ruby declares no parameter types; the parameter names are what a server may type (TypeProf).
  parameterTypeNames: (fn) => {
    const params = field(fn, 'parameters');
    return params ? named(params).map((p) => (p.type === 'identifier' ? p : field(p, 'name'))).filter((n): n is Node => n !== null) : [];
  },
  returnTypeNames: () => [],
  typeNamesIn: (def) => (def.type === 'class' ? fields(def, 'superclass').flatMap((s) => collect(s, (n) => n.type === 'constant')) : []),
};

const JULIA_CONDITIONS = new Set(['if_statement', 'elseif_clause', 'while_statement', 'ternary_expression']);

/** The types after `::` in a Julia signature or struct. */
function juliaTypeNames(node: Node | null): Node[] {
  if (!node) return [];
  return collect(node, (n) => n.type === 'typed_expression' || n.type === 'typed_parameter').flatMap((t) => {
    const type = named(t).at(-1);
    return type ? collect(type, (n) => n.type === 'identifier') : [];
  });
}

const julia: LspSyntax = {
  definitions: new Set(['function_definition', 'macro_definition', 'struct_definition', 'abstract_definition', 'primitive_definition', 'const_statement', 'assignment']),
  leading: new Set(['line_comment', 'block_comment', 'string_literal']),
  isDefinition: (n) => n.type !== 'assignment' || named(n)[0]?.type === 'call_expression',
  calleeName: (n) =>
    n.type === 'call_expression' ? lastName(named(n)[0] ?? null, { field_expression: '*last' }, new Set(['identifier'])) : null,
  // The grammar gives conditions no field: the first part that is not the body.
  conditionParts: (n) => (JULIA_CONDITIONS.has(n.type) ? named(n).slice(0, 1).filter((c) => c.type !== 'block') : []),
  identifiers: new Set(['identifier']),
  parameterTypeNames: (fn) => juliaTypeNames(named(fn).find((c) => c.type === 'signature' || c.type === 'call_expression') ?? null),
  returnTypeNames: () => [],
  typeNamesIn: (def) => (def.type === 'struct_definition' ? juliaTypeNames(def) : []),
};

const SYNTAX: Record<LanguageId, LspSyntax> = { go, rust, php, ruby, julia };

export function lspSyntax(language: LanguageId): LspSyntax {
  return SYNTAX[language];
}
