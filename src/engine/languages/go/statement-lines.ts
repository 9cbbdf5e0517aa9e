import type { Node } from 'web-tree-sitter';
import { lineStartOffsets, named } from '../../parse/nodes';
import { parseWithDeadline } from '../../parse/parse';
import type { StatementStart } from '../../score/coverage/go-cover';


/**
 * Statements `go test -cover` counts (cmd/cover's addCounters): every element of a statement list —
 * a function or block body, a `case`/`default` clause, a `select` case — and the `if` of an `else if`,
 * which cover wraps in a block of its own. A labeled statement starts where the statement after the
 * label does (the label executes nothing), a bare `{ … }` block or a lone `;` is no statement of its
 * own (METRICS.md: braces are not executable). Not counted, as in cover: `case` expressions, a
 * `select` case's communication, the init and post statements of an `if`/`for` header (they share the
 * header's line anyway).
 */
const NOT_A_STATEMENT = new Set(['comment', 'block', 'empty_statement']);

/** The statement a list element stands for: labels peeled off; null for a block, `;` or a bare label. */
function counted(node: Node): Node | null {
  let n: Node | undefined = node;
  while (n && n.type === 'labeled_statement') n = named(n).find((c) => c.type !== 'label_name' && c.type !== 'comment');
  return n && !NOT_A_STATEMENT.has(n.type) ? n : null;
}

function collect(root: Node): Node[] {
  const out: Node[] = [];
  const cursor = root.walk();
  try {
    // Depth-first over every node: statement lists and if statements are the only ones looked at.
    for (;;) {
      const type = cursor.nodeType;
      if (type === 'statement_list') {
        for (const c of named(cursor.currentNode)) {
          const s = counted(c);
          if (s) out.push(s);
        }
      } else if (type === 'if_statement') {
        const alt = cursor.currentNode.childForFieldName('alternative');
        if (alt?.type === 'if_statement') out.push(alt);
      }
      if (cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) return out;
      }
    }
  } finally {
    cursor.delete();
  }
}

/** Go's byte column (1-based) of a UTF-16 offset. */
function positionOf(source: string, lineStarts: number[], offset: number, row: number): StatementStart {
  const lineStart = lineStarts[row] ?? 0;
  return { line: row + 1, column: Buffer.byteLength(source.slice(lineStart, offset), 'utf8') + 1 };
}

const cache = new Map<string, StatementStart[] | null>();
const CACHE_SIZE = 8;

/**
 * Every counted statement's start in a Go source file, in source order; null when the file does not
 * parse in time. Callers pass trusted source (the task's focal file), never a file a test could edit.
 * The same focal file is scored once per sample and per mutant: the last few answers are kept.
 */
export async function goStatementStarts(source: string, deadlineMs = 10_000): Promise<StatementStart[] | null> {
  if (cache.has(source)) return cache.get(source)!;
  const parsed = await parseWithDeadline('go', source, deadlineMs);
  let starts: StatementStart[] | null = null;
  if ('tree' in parsed) {
    try {
      const lineStarts = lineStartOffsets(source);
      starts = collect(parsed.tree.rootNode)
        .map((n) => positionOf(source, lineStarts, n.startIndex, n.startPosition.row))
        .sort((a, b) => a.line - b.line || a.column - b.column);
    } finally {
      parsed.tree.delete();
    }
  }
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(source, starts);
  return starts;
}
