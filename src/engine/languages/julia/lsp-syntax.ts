import type { Node } from 'web-tree-sitter';
import { collect, lastName, type LspSyntax } from '../../context/lsp/syntax-kit';
import { named } from '../../parse/nodes';

const JULIA_CONDITIONS = new Set(['if_statement', 'elseif_clause', 'while_statement', 'ternary_expression']);

/** The types after `::` in a Julia signature or struct. */
function juliaTypeNames(node: Node | null): Node[] {
  if (!node) return [];
  return collect(node, (n) => n.type === 'typed_expression' || n.type === 'typed_parameter').flatMap((t) => {
    const type = named(t).at(-1);
    return type ? collect(type, (n) => n.type === 'identifier') : [];
  });
}

/** What LSP context needs of Julia's grammar (context/lsp/syntax-kit.ts says what each part is for). */
export const juliaLspSyntax: LspSyntax = {
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
