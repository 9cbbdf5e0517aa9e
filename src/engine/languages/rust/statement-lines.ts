import type { Node } from 'web-tree-sitter';
import { named } from '../../parse/nodes';
import { parseWithDeadline } from '../../parse/parse';
import type { LineHits } from '../../score/types';

/**
 * Lines on which a Rust statement starts (METRICS.md: not the signature, not braces). llvm-cov's lcov
 * `DA` lines are the lines its regions start or end on: the `fn` line (the function's entry region)
 * and the `}` closing a function, loop or arm are among them. A line is a statement line when one of
 * these starts on it:
 * - an element of a block (`{ … }` of a function, closure, loop, `if`, `unsafe`, `async`…): a `let`,
 *   an expression statement, or the block's tail expression; not an item (`fn`, `use`, `const`… inside
 *   a body), an attribute, a comment, a lone `;`, or a bare nested `{ … }` (its own elements count);
 * - a match arm's value, and a closure's body, when it is not a block (`A => x + 1,`, `|v| v * 2`);
 * - the `if` of an `else if` (its condition is evaluated on the `} else if` line).
 * Inside a macro call's arguments (`try!(…)`, `assert!(…)`) nothing counts apart from the call's own
 * statement: they are tokens until the macro expands, for rustc's parser as for syn.
 * The scoring keeps a `DA` line only when it is a statement line (rust/toolchain.ts focalHits).
 */
const NOT_A_STATEMENT = new Set([
  'line_comment',
  'block_comment',
  'attribute_item',
  'inner_attribute_item',
  'empty_statement',
  'block',
  'label',
]);

/** Items declared inside a body: they execute nothing where they stand. */
function isItem(type: string): boolean {
  return type.endsWith('_item') || type === 'use_declaration' || type === 'extern_crate_declaration' || type === 'macro_definition';
}

/** What a block element stands for: an expression statement's expression (to see a bare `{ … }`), else itself. */
function statementOf(node: Node): Node | null {
  if (NOT_A_STATEMENT.has(node.type) || isItem(node.type)) return null;
  if (node.type === 'expression_statement') {
    const inner = named(node)[0];
    if (!inner || inner.type === 'block') return null;
  }
  return node;
}

function collect(root: Node): number[] {
  const out: number[] = [];
  const cursor = root.walk();
  try {
    for (;;) {
      const type = cursor.nodeType;
      const node = type === 'block' || type === 'match_arm' || type === 'closure_expression' || type === 'else_clause' ? cursor.currentNode : null;
      if (node && type === 'block') {
        for (const c of named(node)) {
          const s = statementOf(c);
          if (s) out.push(s.startPosition.row + 1);
        }
      } else if (node && type === 'match_arm') {
        const value = node.childForFieldName('value');
        if (value && value.type !== 'block') out.push(value.startPosition.row + 1);
      } else if (node && type === 'closure_expression') {
        const body = node.childForFieldName('body');
        if (body && body.type !== 'block') out.push(body.startPosition.row + 1);
      } else if (node && type === 'else_clause') {
        const alt = named(node).find((c) => c.type === 'if_expression');
        if (alt) out.push(alt.startPosition.row + 1);
      }
      // A macro's arguments are tokens until expansion: what tree-sitter reads as code in them counts not.
      if (type !== 'token_tree' && cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) return out;
      }
    }
  } finally {
    cursor.delete();
  }
}

const cache = new Map<string, ReadonlySet<number> | null>();
const CACHE_SIZE = 8;

/**
 * Every statement line (1-based) of a Rust source file; null when it does not parse in time. Callers
 * pass trusted source (the task's focal file), never a file a test could edit. The same focal file is
 * scored once per sample and per mutant: the last few answers are kept.
 */
export async function rustStatementLines(source: string, deadlineMs = 10_000): Promise<ReadonlySet<number> | null> {
  if (cache.has(source)) return cache.get(source)!;
  const parsed = await parseWithDeadline('rust', source, deadlineMs);
  let lines: ReadonlySet<number> | null = null;
  if ('tree' in parsed) {
    try {
      lines = new Set(collect(parsed.tree.rootNode));
    } finally {
      parsed.tree.delete();
    }
  }
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(source, lines);
  return lines;
}

/**
 * llvm-cov's hits of the sandbox's focal file -> hits per statement line (METRICS.md). The test module
 * sits in that file after the focal item (the end of the file or of its innermost inline module), so
 * lines up to the item's last line (`lastLine`) are the task's own lines and the ones past it are
 * shifted: only the former are kept. With `statements` null (the source did not parse in time) the
 * tool's lines stand, the coarser rule, rather than no coverage at all.
 */
export function statementHits(hits: LineHits, statements: ReadonlySet<number> | null, lastLine: number): LineHits {
  const out: LineHits = new Map();
  for (const [line, count] of hits) {
    if (line <= lastLine && (!statements || statements.has(line))) out.set(line, count);
  }
  return out;
}
