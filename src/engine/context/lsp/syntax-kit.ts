import type { Node } from 'web-tree-sitter';
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

export function ofTypes(node: Node | null, types: ReadonlySet<string>): Node[] {
  return node ? collect(node, (n) => types.has(n.type)) : [];
}

export function fields(node: Node, ...names: string[]): Node[] {
  return names.map((n) => field(node, n)).filter((n): n is Node => n !== null);
}

/** The last name in a qualified / scoped / selector chain (`a.b.c` -> `c`). */
export function lastName(node: Node | null, chains: Record<string, string>, names: ReadonlySet<string>): Node | null {
  for (let n = node; n; ) {
    if (names.has(n.type)) return n;
    const f = chains[n.type];
    if (!f) return null;
    n = f === '*last' ? (named(n).at(-1) ?? null) : field(n, f);
  }
  return null;
}
