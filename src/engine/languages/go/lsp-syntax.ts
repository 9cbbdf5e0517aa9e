import { ofTypes, fields, lastName, type LspSyntax } from '../../context/lsp/syntax-kit';
import { field, named } from '../../parse/nodes';

const GO_TYPE_NAMES = new Set(['type_identifier']);

/** What LSP context needs of Go's grammar (context/lsp/syntax-kit.ts says what each part is for). */
export const goLspSyntax: LspSyntax = {
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
