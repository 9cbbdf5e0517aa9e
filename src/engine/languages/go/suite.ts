import type { Node } from 'web-tree-sitter';
import { field, named } from '../../parse/nodes';
import { parseWithDeadline } from '../../parse/parse';
import type { LanguageSuite } from '../types';
import { renameIdentifiers } from './collisions';

/** One parsed test file: its package, import specs and the text of each other top-level declaration. */
interface GoFile {
  pkg: string | null;
  imports: string[];
  decls: string[];
  /** Top-level names it declares (functions, types, vars, consts; not methods). */
  names: string[];
}

function declaredNames(node: Node): string[] {
  if (node.type === 'function_declaration') return [field(node, 'name')?.text ?? ''].filter(Boolean);
  if (node.type !== 'type_declaration' && node.type !== 'var_declaration' && node.type !== 'const_declaration') return [];
  const specs = node.descendantsOfType(['type_spec', 'type_alias', 'var_spec', 'const_spec']).filter((n): n is Node => n !== null);
  // A type's name is its `name` field; a var or const spec names every identifier directly under it.
  return specs.flatMap((s) => (s.type === 'type_spec' || s.type === 'type_alias' ? [field(s, 'name')?.text ?? ''] : named(s).filter((c) => c.type === 'identifier').map((c) => c.text))).filter(Boolean);
}

async function parseFile(code: string): Promise<GoFile | null> {
  const parsed = await parseWithDeadline('go', code, 10_000);
  if (!('tree' in parsed)) return null;
  try {
    const out: GoFile = { pkg: null, imports: [], decls: [], names: [] };
    for (const n of named(parsed.tree.rootNode)) {
      if (n.type === 'package_clause') out.pkg = named(n)[0]?.text ?? null;
      else if (n.type === 'import_declaration') out.imports.push(...n.descendantsOfType('import_spec').filter((x): x is Node => x !== null).map((x) => x.text));
      else {
        out.decls.push(n.text);
        out.names.push(...declaredNames(n));
      }
    }
    return out;
  } finally {
    parsed.tree.delete();
  }
}

/**
 * Go: one file of the first test's package; imports united; every other declaration kept, a test's
 * top-level names that an earlier test declares renamed (`TestX` -> `TestX_2`) throughout that test.
 */
export const goSuite: LanguageSuite = {
  async merge(tests) {
    if (tests.length <= 1) return tests[0] ?? '';
    const taken = new Set<string>();
    const imports: string[] = [];
    const decls: string[] = [];
    let pkg: string | null = null;
    for (const [i, code] of tests.entries()) {
      let file = await parseFile(code);
      if (!file) return tests.join('\n\n');
      const colliding = file.names.filter((n) => taken.has(n) && n !== '_' && n !== 'init');
      if (colliding.length) {
        const renames = new Map<string, string>();
        for (const n of colliding) {
          let k = i + 1;
          while (taken.has(`${n}_${k}`) || file.names.includes(`${n}_${k}`)) k++;
          renames.set(n, `${n}_${k}`);
        }
        const renamed = await renameIdentifiers(code, renames);
        file = renamed === null ? null : await parseFile(renamed);
        if (!file) return tests.join('\n\n');
      }
      pkg ??= file.pkg;
      for (const spec of file.imports) if (!imports.includes(spec)) imports.push(spec);
      for (const n of file.names) taken.add(n);
      decls.push(...file.decls);
    }
    const importBlock = imports.length ? `import (\n${imports.map((s) => `\t${s}`).join('\n')}\n)\n\n` : '';
    return `package ${pkg ?? 'main'}\n\n${importBlock}${decls.join('\n\n')}\n`;
  },
};
