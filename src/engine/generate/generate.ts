import { adapterFor } from '../languages';
import type { LanguageId } from '../parse/grammars';
import { extractTest } from '../prompt/extract-test';
import { redact } from '../util/redact';
import { requestHash } from './providers/cache';
import type { TaskRecord } from '../tasks/record';
import type { ChatMessage, GenerationParams, GenerationRecord, ImprovementHint, Prompt, Provider } from './types';

/** `code` in a fenced block tagged with the language, as prompts and replies carry tests. */
export function fencedTest(language: LanguageId, code: string): string {
  return '```' + adapterFor(language).prompt.fence + '\n' + code + '\n```';
}

/**
 * The paper's one-round repair request (Table A.7): the failed test and its trimmed error log. The
 * log is what an untrusted test printed (it could have read a file of the host), so it is redacted
 * here too, whoever built it.
 */
export function repairPrompt(language: LanguageId, testCode: string, feedback: string): string {
  return [
    'You previously generated a test for this function, but it failed. Please fix the test so that it compiles and passes, and still tests the function.',
    '',
    'The test:',
    fencedTest(language, redact(testCode)),
    '',
    'The error log:',
    '```',
    redact(feedback),
    '```',
    '',
    `Reply with the complete fixed test in one \`\`\`${adapterFor(language).prompt.fence} block.`,
  ].join('\n');
}

export interface GenerateOne {
  provider: Provider;
  params: GenerationParams;
  prompt: Prompt;
  messages: ChatMessage[];
  task: TaskRecord;
  language: LanguageId;
  sample: number;
  round: number;
  /** An improvement round: what it asks for, also given to the provider as data (the record keeps its number). */
  improvement?: ImprovementHint;
  signal?: AbortSignal;
}

/** One call: the reply, the test extracted from it, and everything a record needs; a failed call is a record with `error`. */
export async function generateOne(g: GenerateOne): Promise<GenerationRecord> {
  const base = {
    id: g.task.id,
    task_id: g.task.task_id,
    language: g.language,
    sample: g.sample,
    round: g.round,
    ...(g.improvement ? { improve: g.improvement.round } : {}),
    mode: g.prompt.mode,
    provider: g.provider.id,
    model: g.params.model,
    request_hash: requestHash(g.provider.id, g.params, g.prompt.system, g.messages, g.provider.endpoint),
    ...(g.provider.isBaseline ? { baseline: true } : {}),
  };
  try {
    const reply = await g.provider.complete({
      system: g.prompt.system,
      messages: [...g.messages],
      params: g.params,
      task: g.task,
      language: g.language,
      sample: g.sample,
      round: g.round,
      ...(g.improvement ? { improvement: g.improvement } : {}),
      signal: g.signal,
    });
    // Redacted before anything stores it (providers redact already; replay and baseline replies come here as read).
    const text = redact(reply.text);
    return { ...base, test_code: extractTest(text, g.language), raw_response: text, usage: reply.usage, cost_usd: reply.costUsd, cached: reply.cached };
  } catch (e) {
    if (g.signal?.aborted) throw e;
    // A failed call is a slot with no test: it still counts (as zeros) when scored.
    return { ...base, test_code: '', raw_response: '', usage: { inputTokens: 0, outputTokens: 0 }, cost_usd: null, cached: false, error: redact((e as Error).message) };
  }
}
