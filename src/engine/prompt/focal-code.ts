import { adapterFor } from '../languages';
import type { LanguageId } from '../parse/grammars';
import type { TaskRecord } from '../tasks/record';

/** Removes the indentation every non-blank line shares (tabs and spaces counted as written). */
export function dedent(code: string): string {
  const lines = code.split('\n');
  const indents = lines.filter((l) => l.trim() !== '').map((l) => /^[ \t]*/.exec(l)![0]);
  if (indents.length === 0) return code;
  let common = indents[0];
  for (const ind of indents) while (!ind.startsWith(common)) common = common.slice(0, -1);
  return common ? lines.map((l) => (l.startsWith(common) ? l.slice(common.length) : l.trimStart())).join('\n') : code;
}

/** Indents every non-blank line (blank lines stay empty, as Python's textwrap.indent leaves them). */
export function indent(code: string, prefix: string): string {
  return code
    .split('\n')
    .map((l) => (l.trim() === '' ? '' : prefix + l))
    .join('\n');
}

/**
 * The focal code as the prompt shows it. With a class signature, the method is wrapped in it as the
 * release does — `"{class_signature} {\n<focal code indented 4>\n}"` — so the model sees which type it
 * belongs to. A language whose prompt says `wrapsMethodInClass: false` is left alone (Go: its "class
 * signature" is the receiver type (`*Inventory`), already in the method's own header). Ruby gets
 * the same braces as every language in the release (it is a reading aid, not code to compile).
 *
 * Our focal code is whole lines, so a method carries its indentation inside the type; it is dedented
 * before the wrapper's four spaces go on. (The release's focal code is the node's text, whose first
 * line starts at the node and whose later lines keep the file's indentation.)
 */
export function focalCodeForPrompt(task: TaskRecord, language: LanguageId): string {
  const signature = typeof task.metadata.class_signature === 'string' ? task.metadata.class_signature.trim() : '';
  if (!signature || !adapterFor(language).prompt.wrapsMethodInClass) return task.focal_code;
  return `${signature} {\n${indent(dedent(task.focal_code), '    ')}\n}`;
}
