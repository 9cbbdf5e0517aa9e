import { contextModeSpec, type ContextMode } from '../context/modes';
import type { Prompt } from '../generate/types';
import { adapterFor } from '../languages';
import type { LanguageId } from '../parse/grammars';
import type { TaskRecord } from '../tasks/record';
import { renderFileBlock, renderLspBlock, renderRetrievalBlock, type RetrievalBlockOptions } from './blocks';
import { focalCodeForPrompt } from './focal-code';
import type { LanguagePrompt, PromptContext } from './language-prompt';

export { renderFileBlock, renderLspBlock, renderRetrievalBlock, type RetrievalBlockOptions };
export type { LanguagePrompt, PromptContext };

/*
 * The paper's prompts (Appendix K): each language's system prompt, fence and requirement bullets are
 * its adapter's `prompt` (languages/<id>/prompt.ts); the header, the fenced focal code and the context
 * block are put together here, the same for every language.
 */

/** The paper's system prompt for a language. */
export function systemPromptFor(language: LanguageId): string {
  return adapterFor(language).prompt.system;
}

/** The paper's user prompt for a task, without any context block (the context may add a requirement: PHP's runner). */
export function userPromptFor(task: TaskRecord, language: LanguageId, context?: PromptContext): string {
  const adapter = adapterFor(language);
  const t = adapter.prompt;
  return [
    `Generate unit tests for this ${adapter.displayName} function from ${task.file_path}:`,
    '',
    '```' + t.fence,
    focalCodeForPrompt(task, language),
    '```',
    '',
    'Additional requirements:',
    ...t.requirements(task, context).map((r) => `- ${r}`),
  ].join('\n');
}

export { MissingContextError } from '../context/modes';

/** The prompt for one task in one mode: the paper's system prompt, and the mode's context block + user prompt. */
export function buildPrompt(task: TaskRecord, language: LanguageId, mode: ContextMode, context: PromptContext = {}): Prompt {
  const block = contextModeSpec(mode).render(context, task);
  return { system: systemPromptFor(language), user: block + userPromptFor(task, language, context), mode, language };
}
