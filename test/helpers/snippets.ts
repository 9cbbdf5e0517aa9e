import { adapterFor } from '../../src/engine/languages';
import type { FunctionInfo } from '../../src/engine/languages/types';
import type { LanguageId } from '../../src/engine/parse/grammars';
import { parseWithDeadline } from '../../src/engine/parse/parse';

export interface SnippetFunction extends Omit<FunctionInfo, 'node'> {
  hasOutput: boolean;
  hasError: boolean;
}

/** Parses a snippet and lists its functions as the adapter sees them (trees freed before returning). */
export async function functionsOf(language: LanguageId, source: string, fileScope = ''): Promise<SnippetFunction[]> {
  const adapter = adapterFor(language);
  const parsed = await parseWithDeadline(language, source, 10_000);
  if (!('tree' in parsed)) throw new Error('parse timed out');
  try {
    return adapter.listFunctions(parsed.tree, source, fileScope).map(({ node, ...rest }) => ({
      ...rest,
      hasOutput: adapter.hasOutput({ node, ...rest }),
      hasError: node.hasError,
    }));
  } finally {
    parsed.tree.delete();
  }
}

export function byName(fns: SnippetFunction[], name: string): SnippetFunction {
  const f = fns.find((x) => x.name === name);
  if (!f) throw new Error(`no function ${name} among ${fns.map((x) => x.name).join(', ')}`);
  return f;
}
