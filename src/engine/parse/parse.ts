import type { Tree } from 'web-tree-sitter';
import { parserFor, type LanguageId } from './grammars';

export type ParseOutcome = { tree: Tree } | { timedOut: true };

/**
 * Parses with a deadline. Julia's grammar is superlinear (a 314 KB file takes seconds, 5 MB never
 * ends), so every parse can be cut short; the caller reports the file and moves on.
 */
export async function parseWithDeadline(language: LanguageId, source: string, deadlineMs: number): Promise<ParseOutcome> {
  const parser = await parserFor(language);
  const deadline = Date.now() + deadlineMs;
  // The typings say the callback returns void; the runtime cancels the parse when it returns true.
  const progressCallback = (() => Date.now() > deadline) as unknown as () => void;
  const tree = parser.parse(source, null, { progressCallback });
  if (!tree) {
    parser.reset(); // otherwise the next parse would resume the cancelled one
    return { timedOut: true };
  }
  return { tree };
}
