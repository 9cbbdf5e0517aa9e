import { adapterFor } from '../languages';
import type { LanguageId } from '../parse/grammars';
import type { TaskRecord } from '../tasks/record';
import type { ImprovementHint, SurvivingMutant } from './types';

/** At most this many mutants are shown: the prompt stays small, and the first ones are the suite's to kill next. */
const MAX_MUTANTS_SHOWN = 8;

/**
 * The focal function with a line-number gutter, each executable line no test runs yet marked `>>`.
 * Line numbers are the focal file's, as coverage and mutants name them.
 */
export function annotatedFocal(task: TaskRecord, uncovered: readonly number[]): string {
  const { start_line, end_line } = task.function_component;
  const lines = (task.file_content || task.focal_code).split('\n');
  const fromFile = !!task.file_content;
  const shown = fromFile ? lines.slice(start_line - 1, end_line) : lines;
  const first = start_line;
  const width = String(first + shown.length - 1).length;
  const marked = new Set(uncovered);
  return shown.map((text, i) => `${marked.has(first + i) ? '>>' : '  '} ${String(first + i).padStart(width)} | ${text}`).join('\n');
}

/** A mutant as a two-line diff of its line: the line as written, and as the mutant has it. */
export function mutantDiff(task: TaskRecord, m: SurvivingMutant): string {
  const line = (task.file_content || '').split('\n')[m.line - 1] ?? '';
  const single = !m.original.includes('\n') && line.includes(m.original);
  const before = single ? line : m.original;
  const after = single ? line.replace(m.original, m.replacement) : m.replacement;
  const minus = before.split('\n').map((l) => `- ${l}`);
  const plus = after === '' ? ['+ (deleted)'] : after.split('\n').map((l) => `+ ${l}`);
  return [`mutant ${m.id} (${m.operator}), line ${m.line}:`, '```diff', ...minus, ...plus, '```'].join('\n');
}

/**
 * An improvement round's request (issue 17): the suite passes; here is what it does not run yet and
 * which changes to the function it does not notice; write additional tests. The suite itself is the
 * assistant's turn before this one (task/improve-suite.ts builds the conversation).
 */
export function improvementPrompt(task: TaskRecord, language: LanguageId, hint: ImprovementHint): string {
  const fence = adapterFor(language).prompt.fence;
  const parts = [
    'Your tests compile and pass. Write additional tests for the same function that exercise what these tests do not.',
    '',
    hint.uncoveredLines.length
      ? `The function, with each executable line no test runs yet marked \`>>\` (${hint.uncoveredLines.length} line(s)):`
      : 'The function (every executable line already runs):',
    '```' + fence,
    annotatedFocal(task, hint.uncoveredLines),
    '```',
  ];
  const shown = hint.survivors.slice(0, MAX_MUTANTS_SHOWN);
  if (shown.length) {
    parts.push(
      '',
      `These changes to the function (mutants) go unnoticed: every test still passes with them${hint.survivors.length > shown.length ? ` (${shown.length} of ${hint.survivors.length} shown)` : ''}. A good test fails on them:`,
      '',
      ...shown.map((m) => mutantDiff(task, m)),
    );
  }
  parts.push(
    '',
    'Reply with the new tests only, as a complete test file that compiles and runs on its own (the same package, imports and conventions as before), ' +
      `in one \`\`\`${fence} block. They are merged with the passing tests and kept only if they pass, call the function, and run a marked line or fail on a mutant.`,
  );
  return parts.join('\n');
}
