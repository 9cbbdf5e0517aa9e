import type { Node, Tree } from 'web-tree-sitter';
import type { LanguageId } from '../parse/grammars';

/**
 * Sentinel mutants (issue 31): copies of the focal file whose text differs from the original and whose
 * behaviour cannot. A test that hashes or compares the focal file's text "kills" every real mutant
 * (MS 1.0, against 0.38 for an honest test of the same function) without testing anything; it also
 * fails on a sentinel, which no test of behaviour can. Run with the mutants (mutate/run.ts); one
 * detected sentinel voids the run's mutation score.
 *
 * Two kinds, each placed where no string, comment or heredoc can see it (a trailing space inside a Go
 * raw string or a Ruby heredoc would change a value):
 * - `comment`: a line comment at the end of the function's first line;
 * - `indent`: one more space before the first statement on the function's second line.
 * Not done: renaming a local (a test that normalises comments and whitespace before hashing passes
 * both sentinels); PHP's compact()/$$name and Ruby's binding make a rename a change of behaviour there.
 */
export interface Sentinel {
  kind: 'comment' | 'indent';
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
  return out;
}
