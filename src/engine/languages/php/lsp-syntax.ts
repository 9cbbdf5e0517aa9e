import type { Node } from 'web-tree-sitter';
import { collect, fields, lastName, type LspSyntax } from '../../context/lsp/syntax-kit';
import { field, named } from '../../parse/nodes';

const PHP_NAMES = new Set(['name']);

/** Class names inside a PHP type (`?Foo`, `Foo|Bar`, `\A\Foo`), not primitive types. */
function phpTypeNames(type: Node | null): Node[] {
  return type ? collect(type, (n) => n.type === 'named_type').flatMap((t) => [lastName(t, { named_type: '*last', qualified_name: '*last' }, PHP_NAMES)].filter((x): x is Node => x !== null)) : [];
}

/** What LSP context needs of PHP's grammar (context/lsp/syntax-kit.ts says what each part is for). */
export const phpLspSyntax: LspSyntax = {
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
