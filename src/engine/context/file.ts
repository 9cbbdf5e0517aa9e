import { adapterFor } from '../languages';
import type { TestOnlyItem } from '../languages/execution-types';
import type { LanguageId } from '../parse/grammars';
import { parseWithDeadline } from '../parse/parse';
import type { TaskRecord } from '../tasks/record';

const PARSE_DEADLINE_MS = 10_000;

/** Cuts [start, end) ranges out of a text, taking the rest of each last line and its line break along. */
function cutRanges(source: string, ranges: readonly TestOnlyItem[]): string {
  let out = '';
  let from = 0;
  for (const { startIndex: start, endIndex: end } of ranges) {
    // From the start of the line when only indentation precedes the range, so no stray spaces remain.
    const lineStart = source.lastIndexOf('\n', start - 1) + 1;
    const cutFrom = /^[ \t]*$/.test(source.slice(lineStart, start)) ? lineStart : start;
    let cutTo = end;
    const rest = /^[ \t]*\r?\n/.exec(source.slice(end));
    if (rest) cutTo += rest[0].length;
    out += source.slice(from, cutFrom);
    from = cutTo;
  }
  return out + source.slice(from);
}

/**
 * Source without its test-only items (the language's `testOnlyItems`: Rust `#[cfg(test)] mod tests { … }`,
 * `#[cfg(test)] fn …`, at any depth), found with tree-sitter. Blank lines left at the end of the file are
 * trimmed. A file that is test-only as a whole (`#![cfg(test)]`) is returned unchanged: it is not a focal file.
 */
export async function stripTestItems(source: string, language: LanguageId): Promise<string> {
  const testOnlyItems = adapterFor(language).testOnlyItems;
  if (!testOnlyItems) return source;
  const parsed = await parseWithDeadline(language, source, PARSE_DEADLINE_MS);
  if ('timedOut' in parsed) return source; // better the whole file than none
  try {
    const ranges = testOnlyItems(parsed.tree.rootNode);
    if (ranges.length === 0) return source;
    const stripped = cutRanges(source, ranges);
    return source.endsWith('\n') ? `${stripped.replace(/\s+$/, '')}\n` : stripped.replace(/\s+$/, '');
  } finally {
    parsed.tree.delete(); // WASM memory is not garbage-collected
  }
}

/**
 * The `file` mode's context: the focal file as recorded (`file_content`), without the test-only items
 * of languages that have them (Rust), as the release strips `#[cfg(test)]` modules (they would hand
 * the model existing tests).
 */
export async function fileContext(task: TaskRecord, language: LanguageId): Promise<string> {
  return stripTestItems(task.file_content, language);
}
