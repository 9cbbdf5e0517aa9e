import type { Node } from 'web-tree-sitter';
import { collect, fields, type LspSyntax } from '../../context/lsp/syntax-kit';
import { field, named } from '../../parse/nodes';

const RUBY_CONDITIONS = new Set(['if', 'unless', 'elsif', 'while', 'until', 'if_modifier', 'unless_modifier', 'while_modifier', 'until_modifier', 'conditional']);

/** What LSP context needs of Ruby's grammar (context/lsp/syntax-kit.ts says what each part is for). */
export const rubyLspSyntax: LspSyntax = {
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
