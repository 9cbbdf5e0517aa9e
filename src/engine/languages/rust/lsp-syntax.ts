import type { Node } from 'web-tree-sitter';
import { ofTypes, fields, lastName, type LspSyntax } from '../../context/lsp/syntax-kit';
import { field, named } from '../../parse/nodes';

const RUST_TYPE_NAMES = new Set(['type_identifier']);

/** The `impl` a method sits in: `self` stands for its type. */
function implType(fn: Node): Node | null {
  for (let p = fn.parent; p; p = p.parent) if (p.type === 'impl_item') return field(p, 'type');
  return null;
}

/** What LSP context needs of Rust's grammar (context/lsp/syntax-kit.ts says what each part is for). */
export const rustLspSyntax: LspSyntax = {
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
