import type { Node, Tree } from 'web-tree-sitter';
import { field, named } from '../../parse/nodes';
import { parseWithDeadline } from '../../parse/parse';
import type { LanguageSuite } from '../types';

/** Hooks PHPUnit calls by name: two tests' hooks become one, the second's statements after the first's. */
const HOOKS = new Set(['setUp', 'tearDown', 'setUpBeforeClass', 'tearDownAfterClass']);

interface Member {
  kind: 'method' | 'property' | 'other';
  name: string;
  text: string;
  /** A method's body between its braces. */
  body?: { start: number; end: number; inner: string };
}

interface PhpFile {
  code: string;
  uses: Array<{ text: string; end: number }>;
  /** Top-level statements outside the class and the namespace header (`require_once …`). */
  statements: string[];
  cls: { bodyStart: number; bodyEnd: number; members: Member[] } | null;
  /** Where a new `use` line goes when the file has none: after the namespace line, or the open tag. */
  headerEnd: number;
}

function memberOf(n: Node): Member {
  if (n.type === 'method_declaration') {
    const body = field(n, 'body');
    return {
      kind: 'method',
      name: field(n, 'name')?.text ?? '',
      text: n.text,
      ...(body ? { body: { start: body.startIndex + 1, end: body.endIndex - 1, inner: body.text.slice(1, -1) } } : {}),
    };
  }
  if (n.type === 'property_declaration') {
    const v = n.descendantsOfType('variable_name')[0];
    return { kind: 'property', name: v ? v.text.replace(/^\$/, '') : '', text: n.text };
  }
  return { kind: 'other', name: '', text: n.text };
}

function readFile(code: string, tree: Tree): PhpFile {
  const out: PhpFile = { code, uses: [], statements: [], cls: null, headerEnd: 0 };
  const visit = (container: Node): void => {
    for (const n of named(container)) {
      if (n.type === 'php_tag') out.headerEnd = Math.max(out.headerEnd, n.endIndex);
      else if (n.type === 'namespace_definition') {
        const body = field(n, 'body');
        if (body) visit(body);
        else out.headerEnd = n.endIndex;
      } else if (n.type === 'namespace_use_declaration') out.uses.push({ text: n.text, end: n.endIndex });
      else if (n.type === 'class_declaration' && !out.cls) {
        const body = field(n, 'body');
        if (body) out.cls = { bodyStart: body.startIndex + 1, bodyEnd: body.endIndex - 1, members: named(body).filter((m) => m.type !== 'comment').map(memberOf) };
      } else if (n.type === 'expression_statement') out.statements.push(n.text);
    }
  };
  visit(tree.rootNode);
  return out;
}

async function parsed(code: string): Promise<PhpFile | null> {
  const p = await parseWithDeadline('php', code, 10_000);
  if (!('tree' in p)) return null;
  try {
    return readFile(code, p.tree);
  } finally {
    p.tree.delete();
  }
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Renames a method or property throughout one test's members: declarations, `->x(`, `::x(`, `$x`, `'x'` (data providers). */
function renamed(text: string, kind: 'method' | 'property', from: string, to: string): string {
  const f = escapeRe(from);
  if (kind === 'method') {
    return text
      .replace(new RegExp(`\\bfunction\\s+${f}\\b`, 'g'), `function ${to}`)
      .replace(new RegExp(`(->|::)${f}(\\s*\\()`, 'g'), `$1${to}$2`)
      .replace(new RegExp(`(['"])${f}\\1`, 'g'), `$1${to}$1`)
      .replace(new RegExp(`(@dataProvider\\s+)${f}\\b`, 'g'), `$1${to}`);
  }
  return text.replace(new RegExp(`\\$${f}\\b`, 'g'), `$${to}`).replace(new RegExp(`->${f}\\b(?!\\s*\\()`, 'g'), `->${to}`);
}

/**
 * PHP: one test class, the first test's, holding every test's methods and properties. A member
 * identical to one already there is not repeated; setUp / tearDown hooks are joined (the later
 * test's statements run after the earlier's); other colliding names are renamed (`testX` ->
 * `testX_2`) throughout that test's members. `use` imports and top-level statements (`require_once`)
 * the first test lacks are added.
 */
export const phpSuite: LanguageSuite = {
  async merge(tests) {
    if (tests.length <= 1) return tests[0] ?? '';
    const base = await parsed(tests[0]);
    if (!base?.cls) return tests.join('\n\n');
    const edits: Array<{ at: number; text: string }> = [];
    const names = new Map<string, Member>(base.cls.members.filter((m) => m.kind !== 'other').map((m) => [`${m.kind}:${m.name}`, m]));
    const texts = new Set(base.cls.members.map((m) => m.text.trim()));
    const uses = new Set(base.uses.map((u) => u.text.trim()));
    const statements = new Set(base.statements.map((s) => s.trim()));
    const useAt = base.uses.length ? base.uses[base.uses.length - 1].end : base.headerEnd;
    for (const [i, code] of tests.slice(1).entries()) {
      const file = await parsed(code);
      if (!file?.cls) return tests.join('\n\n');
      for (const u of file.uses) if (!uses.has(u.text.trim())) (uses.add(u.text.trim()), edits.push({ at: useAt, text: `\n${u.text}` }));
      for (const s of file.statements) if (!statements.has(s.trim())) (statements.add(s.trim()), edits.push({ at: useAt, text: `\n${s}` }));
      let members = file.cls.members.filter((m) => !texts.has(m.text.trim()));
      for (const m of members.filter((x) => x.kind === 'method' && HOOKS.has(x.name) && names.has(`method:${x.name}`))) {
        const into = names.get(`method:${m.name}`)!.body;
        if (into && m.body) edits.push({ at: into.end, text: `\n${m.body.inner.replace(/^\s*\n|\s+$/g, '')}\n    ` });
      }
      members = members.filter((m) => !(m.kind === 'method' && HOOKS.has(m.name) && names.has(`method:${m.name}`)));
      let text = members.map((m) => m.text).join('\n\n    ');
      for (const m of members) {
        if (m.kind === 'other' || !names.has(`${m.kind}:${m.name}`)) continue;
        let k = i + 2;
        while (names.has(`${m.kind}:${m.name}_${k}`)) k++;
        text = renamed(text, m.kind, m.name, `${m.name}_${k}`);
        names.set(`${m.kind}:${m.name}_${k}`, m);
      }
      for (const m of members) if (m.kind !== 'other') names.set(`${m.kind}:${m.name}`, m);
      for (const m of members) texts.add(m.text.trim());
      if (text.trim()) edits.push({ at: base.cls.bodyEnd, text: `\n    ${text}\n` });
    }
    let out = base.code;
    // Edits at the same offset keep their order: apply from the end, later edits of one offset first.
    const ordered = edits.map((e, i) => ({ ...e, i })).sort((a, b) => b.at - a.at || b.i - a.i);
    for (const e of ordered) out = out.slice(0, e.at) + e.text + out.slice(e.at);
    return out;
  },
};
