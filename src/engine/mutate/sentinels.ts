import type { Node, Tree } from 'web-tree-sitter';
import type { LanguageId } from '../parse/grammars';

/**
 * Sentinel mutants (issue 31): copies of the focal file whose text differs from the original and whose
 * behaviour cannot. A test that hashes or compares the focal file's text "kills" every real mutant
 * (MS 1.0, against 0.38 for an honest test of the same function) without testing anything; it also
 * fails on a sentinel, which no test of behaviour can. Run among the mutants (mutate/run.ts); one
 * detected sentinel voids the run's mutation score.
 *
 * Three kinds, each placed where no string, comment or heredoc can see it (a trailing space inside a Go
 * raw string or a Ruby heredoc would change a value):
 * - `comment`: a line comment at the end of the function's first line;
 * - `indent`: one more space before the first statement on the function's second line;
 * - `rename`: one local variable of the function renamed throughout it (renamedLocal): a test that
 *   drops comments and blanks before comparing the text passes the first two and fails this one.
 * - `code` (Go, Rust, Ruby): a statement that does nothing, added just after the body's `{` (Ruby: at
 *   the end of the `def` line): the machine code (Ruby: the instruction sequence) changes, and a test
 *   that compared its own binary's code for the function, or RubyVM::InstructionSequence's without
 *   names and lines (kept from the first run in a folder every run shares), passed the text sentinels.
 * A test that also renames identifiers to a canonical form before comparing passes all the text
 * sentinels: what no sentinel can stop (docs/metrics.md).
 */
export interface Sentinel {
  kind: 'comment' | 'indent' | 'rename' | 'code';
  /** What it changed, in words, for the verdict. */
  says: string;
  source: string;
}

const LINE_COMMENT: Record<LanguageId, string> = { go: '//', rust: '//', php: '//', ruby: '#', julia: '#' };

/** Whether the character at `index` lies in a string, comment, heredoc or regex literal (or the tree cannot tell). */
function inLiteral(tree: Tree, index: number): boolean {
  let node: Node | null = tree.rootNode.descendantForIndex(index, index);
  if (!node) return true;
  for (; node; node = node.parent) {
    if (/string|comment|heredoc|regex|char_literal|raw/.test(node.type) || node.type === 'ERROR') return true;
  }
  return false;
}

/** The sentinels of the focal function `fn` (its node in `tree`, parsed from `source`). */
export function sentinelsOf(language: LanguageId, source: string, tree: Tree, fn: Node): Sentinel[] {
  const out: Sentinel[] = [];
  const firstLineEnd = source.indexOf('\n', fn.startIndex);
  // A one-line function: the end of its line is its end.
  const end = firstLineEnd === -1 ? source.length : firstLineEnd;
  const last = source.slice(0, end).trimEnd().length - 1;
  if (last >= fn.startIndex && !inLiteral(tree, last)) {
    out.push({ kind: 'comment', says: 'a comment added at the end of its first line', source: `${source.slice(0, end)} ${LINE_COMMENT[language]} -${source.slice(end)}` });
  }
  if (firstLineEnd !== -1 && firstLineEnd + 1 < fn.endIndex) {
    const lineStart = firstLineEnd + 1;
    const text = source.slice(lineStart, fn.endIndex);
    const first = lineStart + (text.length - text.replace(/^[ \t]+/, '').length);
    // A line with code on it (not a blank line, not the function's last), outside every literal.
    if (first < fn.endIndex - 1 && source[first] !== '\n' && source[first] !== '\r' && !inLiteral(tree, first)) {
      out.push({ kind: 'indent', says: 'one more space of indentation on its second line', source: `${source.slice(0, lineStart)} ${source.slice(lineStart)}` });
    }
  }
  const renamed = renamedLocal(language, source, fn);
  if (renamed) out.push(renamed);
  const code = NO_OP[language];
  const body = fn.childForFieldName('body');
  const says = `a statement that does nothing (${code?.replace(/^[\s;]+/, '')}) added at the start of its body`;
  if (code && body?.type === 'block' && source[body.startIndex] === '{') {
    const at = body.startIndex + 1;
    out.push({ kind: 'code', says, source: `${source.slice(0, at)}${code}${source.slice(at)}` });
  } else if (language === 'ruby' && code && firstLineEnd !== -1 && firstLineEnd + 1 < fn.endIndex && !inLiteral(tree, last) && !RENAME.ruby?.byName?.test(source.slice(fn.startIndex, fn.endIndex))) {
    // After the `def` line's parameters (a signature cut over lines does not parse, and is dropped).
    out.push({ kind: 'code', says, source: `${source.slice(0, last + 1)}${code}${source.slice(last + 1)}` });
  }
  return out;
}

/**
 * A statement with no effect the compiler keeps (an empty deferred call; a value through
 * black_box, from core so that no_std crates have it; a Ruby local no one reads, which changes the
 * method's instruction sequence). A function where it does not compile (a `const fn`) makes the
 * sentinel unviable, never a detection.
 */
const NO_OP: Partial<Record<LanguageId, string>> = { go: ' defer func() {}();', rust: ' ::core::hint::black_box(0u8);', ruby: '; _xrt_ = nil' };

/** How a language names its locals, where it declares them, and what makes renaming one unsafe. */
interface RenameRules {
  /** The node type of a variable's name (PHP's includes its `$`). */
  name: string;
  /** Whether this name node declares a local (an assignment's left side, a `let`, `:=`). */
  declares(node: Node): boolean;
  /** Whether it names a parameter: renamed only when the function declares no local (Go, Rust: callers never see a parameter's name). */
  parameter?(node: Node): boolean;
  /** A name node with the same text that is not the variable (a method called on self, a static property): left alone. */
  notTheVariable?(node: Node): boolean;
  /** An occurrence that makes renaming this variable change behaviour or break the build (a struct field shorthand). */
  unsafe?(node: Node, fnText: string): boolean;
  /** Nested scopes that cannot see the function's locals: what they hold is left alone. */
  ownScopes?: RegExp;
  /** The first occurrence must be the declaration (Ruby: a name used before its assignment is a method call). */
  firstDeclares?: boolean;
  /** A function using these reads its locals by name (compact, binding): no rename. */
  byName?: RegExp;
  /** How a fresh name is written. */
  spell(fresh: string): string;
}

const isField = (node: Node, field: string): boolean => node.parent?.childForFieldName(field)?.startIndex === node.startIndex && node.parent?.childForFieldName(field)?.endIndex === node.endIndex;
const within = (node: Node, type: RegExp, stop: Node): boolean => {
  for (let n = node.parent; n && n.startIndex >= stop.startIndex && !(n.startIndex === stop.startIndex && n.endIndex === stop.endIndex); n = n.parent) if (type.test(n.type)) return true;
  return false;
};

const RENAME: Partial<Record<LanguageId, RenameRules>> = {
  go: {
    name: 'identifier',
    declares: (n) =>
      (n.parent?.type === 'expression_list' && (n.parent.parent?.type === 'short_var_declaration' || n.parent.parent?.type === 'range_clause') && isField(n.parent, 'left')) ||
      (n.parent?.type === 'var_spec' && isField(n, 'name')),
    parameter: (n) => n.parent?.type === 'parameter_declaration' && isField(n, 'name'),
    notTheVariable: (n) => (n.parent?.type === 'function_declaration' || n.parent?.type === 'method_declaration') && isField(n, 'name'),
    // `Item{days: days}`: the key is a field, and renaming it would not compile.
    unsafe: (n) => n.parent?.type === 'literal_element' && n.parent.parent?.type === 'keyed_element' && n.parent.parent.namedChild(0)?.startIndex === n.parent.startIndex,
    spell: (f) => f,
  },
  rust: {
    name: 'identifier',
    declares: (n) => {
      for (let p: Node | null = n; p?.parent; p = p.parent) {
        if (p.parent.type === 'let_declaration') return isField(p, 'pattern');
        if (!/pattern$/.test(p.parent.type)) return false;
      }
      return false;
    },
    parameter: (n) => n.parent?.type === 'parameter' && isField(n, 'pattern'),
    notTheVariable: (n) => (n.parent?.type === 'function_item' && isField(n, 'name')) || (n.parent?.type === 'macro_invocation' && isField(n, 'macro')),
    // `Point { x }` and `format!("{x}")` name the variable where no identifier node stands.
    unsafe: (n, fnText) => n.parent?.type === 'shorthand_field_initializer' || n.parent?.type === 'field_pattern' || new RegExp(`\\{${n.text}[}:]`).test(fnText),
    spell: (f) => f,
  },
  php: {
    name: 'variable_name',
    declares: (n) => n.parent?.type === 'assignment_expression' && isField(n, 'left') && n.text !== '$this',
    notTheVariable: (n) => n.parent?.type === 'scoped_property_access_expression',
    // A parameter's name is part of the call (named arguments); `global $x` names the global.
    unsafe: (n) => /parameter$/.test(n.parent?.type ?? '') || n.parent?.type === 'global_declaration',
    // An included file runs in the function's scope and names its locals itself.
    byName: /\b(?:compact|extract|get_defined_vars|eval|parse_str)\s*\(|\b(?:include|require)(?:_once)?\b|\$\$|\$\{/,
    spell: (f) => `$${f}`,
  },
  ruby: {
    name: 'identifier',
    declares: (n) =>
      ((n.parent?.type === 'assignment' || n.parent?.type === 'operator_assignment') && isField(n, 'left')) || n.parent?.type === 'left_assignment_list',
    // `self.words`, `words()`: a method, not the local.
    notTheVariable: (n) => (n.parent?.type === 'call' && isField(n, 'method')) || (n.parent?.type === 'method' && isField(n, 'name')),
    ownScopes: /^(?:method|singleton_method|class|module|singleton_class)$/,
    firstDeclares: true,
    byName: /\b(?:binding|local_variables|eval|instance_eval|class_eval|module_eval|instance_exec)\b/,
    spell: (f) => f,
  },
};

/**
 * The `rename` sentinel: the function's first local (Go and Rust: else its first parameter) renamed
 * `_xrt_<name>` at every place that names it, or null where no variable can be renamed safely.
 * Go and Rust compile it: a rename that does not compile makes the sentinel unviable, never a
 * detection; PHP and Ruby run it unchecked, so what could make it a change of behaviour there is
 * refused (a local read by name, a parameter, a Ruby method of that name called before it is set).
 */
export function renamedLocal(language: LanguageId, source: string, fn: Node): Sentinel | null {
  const rules = RENAME[language];
  if (!rules) return null;
  const fnText = source.slice(fn.startIndex, fn.endIndex);
  if (rules.byName?.test(fnText)) return null;
  const names = fn.descendantsOfType(rules.name).filter((n): n is Node => !!n && !(rules.ownScopes && within(n, rules.ownScopes, fn)));
  const occurrences = (text: string): Node[] => names.filter((n) => n.text === text && !rules.notTheVariable?.(n));
  const candidates = [...names.filter((n) => rules.declares(n)), ...names.filter((n) => rules.parameter?.(n))];
  const tried = new Set<string>();
  for (const decl of candidates) {
    const old = decl.text;
    if (tried.has(old) || /^\$?_$/.test(old)) continue;
    tried.add(old);
    const uses = occurrences(old);
    if (uses.some((n) => rules.unsafe?.(n, fnText))) continue;
    if (rules.firstDeclares && !(uses.length && rules.declares(uses[0]))) continue;
    const bare = old.replace(/^\$/, '');
    let fresh = `_xrt_${bare}`;
    for (let i = 2; source.includes(fresh); i++) fresh = `_xrt${i}_${bare}`;
    let out = source;
    for (const n of [...uses].sort((a, b) => b.startIndex - a.startIndex)) out = out.slice(0, n.startIndex) + rules.spell(fresh) + out.slice(n.endIndex);
    return { kind: 'rename', says: `the variable ${old} renamed ${rules.spell(fresh)} throughout the function`, source: out };
  }
  return null;
}

/**
 * The run order of mutants and sentinels: the mutants in their order, each sentinel at a random place
 * among them, and (with a mutant to run) at least one after a mutant, so that a test passing its first
 * runs and failing every later one meets a sentinel among the later ones. `pick(n)` is a random
 * integer below n.
 */
export function interleave<M, S>(mutants: readonly M[], sentinels: readonly S[], pick: (n: number) => number): Array<{ mutant: M } | { sentinel: S }> {
  const at = sentinels.map(() => pick(mutants.length + 1));
  if (mutants.length && at.length && !at.some((i) => i > 0)) at[at.length - 1] = 1 + pick(mutants.length);
  const out: Array<{ mutant: M } | { sentinel: S }> = [];
  for (let i = 0; i <= mutants.length; i++) {
    sentinels.forEach((sentinel, k) => {
      if (at[k] === i) out.push({ sentinel });
    });
    if (i < mutants.length) out.push({ mutant: mutants[i] });
  }
  return out;
}
