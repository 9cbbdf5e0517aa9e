import { adapterFor } from '../../languages';
import type { LanguageId } from '../../parse/grammars';
import type { TaskRecord } from '../../tasks/record';
import type { CompletionRequest, CompletionResult, Provider } from '../types';

/*
 * The offline baseline: per language, one test built from the task record alone (the focal code, its
 * file, its signature and metadata) that constructs an argument per parameter type and calls the focal
 * function once, with an assertion no stronger than "it returned". It is a lower bound for the models,
 * not a model: it reads no prompt, learns nothing from a repair round, and costs nothing. Each
 * language's builder is its adapter's `baseline` (languages/<id>/baseline.ts); the shared parts are in
 * common.ts.
 */

/** The baseline test for a task: deterministic (same task, byte-identical test). */
export function baselineTest(task: TaskRecord, language: LanguageId): Promise<string> {
  return adapterFor(language).baseline(task);
}

/** The reply a model would give: one fenced block tagged as `extractTest` recognises the language. */
export function baselineReply(test: string, language: LanguageId): string {
  return `\`\`\`${adapterFor(language).prompt.fence}\n${test.replace(/\n+$/, '')}\n\`\`\`\n`;
}

export const baselineProvider: Provider = {
  id: 'baseline',
  isBaseline: true,
  async complete(request: CompletionRequest): Promise<CompletionResult> {
    request.signal?.throwIfAborted();
    const started = Date.now();
    // A repair round gets the same test: the request's messages are never read. An improvement round
    // gets a test aimed at the lines still uncovered where the language's builder has one, else the
    // same test again (which adds nothing and is dropped).
    const improved = request.improvement ? await adapterFor(request.language).baselineForLines?.(request.task, request.improvement.uncoveredLines) : null;
    const text = baselineReply(improved ?? (await baselineTest(request.task, request.language)), request.language);
    return { text, usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0, cached: false, latencyMs: Date.now() - started };
  },
};
