import { adapterFor } from '../../languages';
import type { LanguageId } from '../../parse/grammars';
import { parseWithDeadline } from '../../parse/parse';
import type { Position } from '../types';
import { collect, lspSyntax } from './syntax';

/**
 * A position whose definition a server must find once it knows the workspace: a call, in the file,
 * to a function the same file defines. Servers without progress reports (TypeProf) and servers that
 * answer empty for a while after theirs end (intelephense) are ready when one resolves. A few, since
 * a server may never resolve some call (TypeProf: a call inside a block); none when the file has none.
 */
export async function probePositions(language: LanguageId, source: string, max = 4): Promise<Position[]> {
  const parsed = await parseWithDeadline(language, source, 5000);
  if (!('tree' in parsed)) return [];
  try {
    const defined = new Set(adapterFor(language).listFunctions(parsed.tree, source, '').map((f) => f.bareName));
    const syntax = lspSyntax(language);
    const out: Position[] = [];
    for (const call of collect(parsed.tree.rootNode, (n) => syntax.calleeName(n) !== null)) {
      const name = syntax.calleeName(call)!;
      if (defined.has(name.text)) out.push({ line: name.startPosition.row, character: name.startPosition.column });
      if (out.length >= max) break;
    }
    return out;
  } finally {
    parsed.tree.delete();
  }
}
