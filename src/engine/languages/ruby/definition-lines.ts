import type { Node } from 'web-tree-sitter';
import { field, named } from '../../parse/nodes';
import { parseWithDeadline } from '../../parse/parse';

const METHOD_TYPES = new Set(['method', 'singleton_method']);
const HEADER_FIELDS = new Set(['name', 'parameters', 'object']);

function methodAt(root: Node, row: number): Node | null {
  const stack: Node[] = [root];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.startPosition.row > row || n.endPosition.row < row) continue;
    if (METHOD_TYPES.has(n.type) && n.startPosition.row === row) return n;
    stack.push(...named(n));
  }
  return null;
}

/**
 * The lines of the focal method's `def` header (`def name(params)`, 1-based) when its body starts on
 * a later line: Ruby's Coverage marks the header as code and runs it only when the file loads (it
 * defines the method), so no test can cover it and Cov leaves it out (METRICS.md, Ruby). A method
 * whose body shares the header's line (`def x; 1; end`, `def x = 1`) keeps it: calling it runs it.
 * Parsed from the task's own copy of the file (trusted), never from the sandbox.
 */
export async function definitionLines(fileContent: string, startLine: number): Promise<number[]> {
  const parsed = await parseWithDeadline('ruby', fileContent, 5_000);
  if (!('tree' in parsed)) return [];
  try {
    const method = methodAt(parsed.tree.rootNode, startLine - 1);
    if (!method) return [];
    const headerParts = [field(method, 'name'), field(method, 'parameters'), field(method, 'object')].filter((n): n is Node => n !== null);
    const headerEnd = Math.max(method.startPosition.row, ...headerParts.map((n) => n.endPosition.row));
    const body = named(method).find((c) => !HEADER_FIELDS.has(fieldNameOf(method, c) ?? '') && c.type !== 'comment');
    if (body && body.startPosition.row <= headerEnd) return [];
    const lines: number[] = [];
    for (let row = method.startPosition.row; row <= headerEnd; row++) lines.push(row + 1);
    return lines;
  } finally {
    parsed.tree.delete();
  }
}

function fieldNameOf(parent: Node, child: Node): string | null {
  for (const name of HEADER_FIELDS) if (field(parent, name)?.equals(child)) return name;
  return null;
}
