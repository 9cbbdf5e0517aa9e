import type { Node } from 'web-tree-sitter';
import { field, named } from '../../parse/nodes';
import { parseWithDeadline } from '../../parse/parse';

/**
 * What `go test -c` says when two files of a package declare the same top-level name:
 *   ./a_test.go:5:6: TestX redeclared in this block
 *   	./b_test.go:32:6: other declaration of TestX
 * The compiler reports it at whichever declaration it reads second, so our file may be on either line.
 */
const REDECLARED = /^\s*(\S+?\.go):\d+:\d+: (\S+) redeclared in this block\s*\n\s*(\S+?\.go):\d+:\d+: other declaration of \2\s*$/gm;

/** The top-level names our file declares that another file of the package declares too. */
export function collidingNames(output: string, ours: string): string[] {
  const names = new Set<string>();
  for (const m of output.matchAll(REDECLARED)) {
    const [, first, name, second] = m;
    if (baseName(first!) === ours || baseName(second!) === ours) names.add(name!);
  }
  return [...names];
}

/** The package's files the errors are reported in (each error's own location), other than ours. */
export function blamedFiles(output: string, ours: string, candidates: readonly string[]): string[] {
  const located = new Set<string>();
  for (const m of output.matchAll(/^(\S+?\.go):\d+:\d+: /gm)) located.add(baseName(m[1]!));
  return candidates.filter((f) => f !== ours && located.has(f));
}

function baseName(p: string): string {
  return p.split(/[\\/]/).pop() ?? p;
}

/** A suffix free in both our code and the compiler's output (which names the package's declarations). */
export function freeSuffix(code: string, output: string, names: readonly string[]): string {
  for (let n = 1; ; n++) {
    const suffix = `_xrt${n}`;
    if (names.every((name) => !code.includes(name + suffix) && !output.includes(name + suffix))) return suffix;
  }
}

/**
 * Renames the given top-level names everywhere our code uses them as plain identifiers (declarations,
 * calls, type uses), never a selector's field (`x.helper`, `pkg.TestX`), a string or a comment.
 * null when the code does not parse.
 */
export async function renameIdentifiers(code: string, renames: ReadonlyMap<string, string>): Promise<string | null> {
  const parsed = await parseWithDeadline('go', code, 10_000);
  if (!('tree' in parsed)) return null;
  try {
    const spans: Array<{ start: number; end: number; to: string }> = [];
    const walk = (node: Node): void => {
      if ((node.type === 'identifier' || node.type === 'type_identifier') && renames.has(node.text)) {
        spans.push({ start: node.startIndex, end: node.endIndex, to: renames.get(node.text)! });
      }
      for (const child of named(node)) walk(child);
    };
    walk(parsed.tree.rootNode);
    // web-tree-sitter's indices count the JS string's units (as mutate/mutants.ts uses them); edit from the end.
    let out = code;
    for (const s of spans.sort((a, b) => b.start - a.start)) out = out.slice(0, s.start) + s.to + out.slice(s.end);
    return out;
  } finally {
    parsed.tree.delete();
  }
}

/** `func TestXxx(t *testing.T)` names, for `-run`: only our tests run, not the package's others. */
export async function testFunctionNames(code: string): Promise<string[]> {
  const parsed = await parseWithDeadline('go', code, 10_000);
  if (!('tree' in parsed)) return [];
  try {
    return named(parsed.tree.rootNode)
      .filter((n) => n.type === 'function_declaration')
      .map((n) => field(n, 'name')?.text ?? '')
      .filter((name) => /^Test($|[^a-z])/.test(name));
  } finally {
    parsed.tree.delete();
  }
}

/** A Go file's package clause and the top-level names it declares (funcs, types, vars, consts; not methods, `_` or `init`). */
export interface DeclaredNames {
  pkg: string | null;
  names: string[];
}

/** What a file declares at top level, from tree-sitter; null when it does not parse in time. */
export async function declaredNames(code: string): Promise<DeclaredNames | null> {
  const parsed = await parseWithDeadline('go', code, 10_000);
  if (!('tree' in parsed)) return null;
  try {
    let pkg: string | null = null;
    const names: string[] = [];
    const add = (n: Node | null | undefined): void => {
      if (n && n.text !== '_' && n.text !== 'init') names.push(n.text);
    };
    for (const node of named(parsed.tree.rootNode)) {
      if (node.type === 'package_clause') pkg = named(node).find((c) => c.type === 'package_identifier')?.text ?? null;
      else if (node.type === 'function_declaration') add(field(node, 'name'));
      else if (node.type === 'type_declaration') for (const spec of named(node)) add(field(spec, 'name'));
      else if (node.type === 'var_declaration' || node.type === 'const_declaration') {
        // var x, y = …; var ( a int; b = 2 ): every name of every spec, in a group or not.
        const specs = named(node).flatMap((c) => (c.type === 'var_spec_list' ? named(c) : [c]));
        for (const spec of specs) for (const id of named(spec)) if (id.type === 'identifier' && spec.childrenForFieldName('name').some((n) => n?.id === id.id)) add(id);
      }
    }
    return { pkg, names };
  } finally {
    parsed.tree.delete();
  }
}

/**
 * The top-level names our file declares that the package's other files (of the same package clause)
 * declare too: what `go test -c` would report as "redeclared in this block", known before it runs. A
 * name declared by a file the build leaves out (a build tag, another GOOS) is counted all the same:
 * renaming it in our file only is harmless, and any collision missed here is still reported by the
 * compiler and repaired after it.
 */
export function predictedCollisions(ours: DeclaredNames, others: readonly DeclaredNames[]): string[] {
  const theirs = new Set(others.filter((o) => o.pkg === ours.pkg).flatMap((o) => o.names));
  return [...new Set(ours.names.filter((n) => theirs.has(n)))];
}
