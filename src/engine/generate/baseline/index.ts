import type { LanguageId } from '../../parse/grammars';
import type { TaskRecord } from '../../tasks/record';
import type { CompletionRequest, CompletionResult, Provider } from '../types';
import { goBaselineTest } from './go';
import { juliaBaselineTest } from './julia';
import { phpBaselineTest } from './php';
import { rubyBaselineTest } from './ruby';
import { rustBaselineTest } from './rust';

/*
 * The offline baseline: per language, one test built from the task record alone (the focal code, its
 * file, its signature and metadata) that constructs an argument per parameter type and calls the focal
 * function once, with an assertion no stronger than "it returned". It is a lower bound for the models,
 * not a model: it reads no prompt, learns nothing from a repair round, and costs nothing.
 */

const BUILDERS: Record<LanguageId, (task: TaskRecord) => Promise<string>> = {
  go: goBaselineTest,
  rust: rustBaselineTest,
  php: phpBaselineTest,
  ruby: rubyBaselineTest,
  julia: juliaBaselineTest,
};

/** The fence tag `extractTest` recognises for each language. */
const FENCE: Record<LanguageId, string> = { go: 'go', rust: 'rust', php: 'php', ruby: 'ruby', julia: 'julia' };

/** The baseline test for a task: deterministic (same task, byte-identical test). */
export function baselineTest(task: TaskRecord, language: LanguageId): Promise<string> {
  return BUILDERS[language](task);
}

/** The reply a model would give: one fenced block in the task's language. */
export function baselineReply(test: string, language: LanguageId): string {
  return `\`\`\`${FENCE[language]}\n${test.replace(/\n+$/, '')}\n\`\`\`\n`;
}

export const baselineProvider: Provider = {
  id: 'baseline',
  isBaseline: true,
  async complete(request: CompletionRequest): Promise<CompletionResult> {
    request.signal?.throwIfAborted();
    const started = Date.now();
    // A repair round gets the same test: the request's messages are never read.
    const text = baselineReply(await baselineTest(request.task, request.language), request.language);
    return { text, usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0, cached: false, latencyMs: Date.now() - started };
  },
};
