import { parseContextMode } from '../engine/context/modes';
import { generationParams, providerFromSettings, type GenerationSettings } from '../engine/generate/options';
import type { ContextMode, GenerationParams, Prompt, Provider } from '../engine/generate/types';
import { promptSource } from '../engine/prompt/context';
import type { LoadedTask } from '../engine/tasks/load';
import type { GenerationCliOptions } from './generation-flags';

/** What the generation flags (generation-flags.ts) mean: the engine's settings, provider and prompts. */
export type { GenerationCliOptions };

export function contextMode(opts: GenerationCliOptions): ContextMode {
  return parseContextMode(opts.mode, '--mode');
}

export function providerName(opts: GenerationCliOptions): string {
  return opts.provider ?? 'baseline';
}

/** How the CLI's user supplies what generation needs: its flags and environment variables. */
const CLI_HINTS: GenerationSettings['hints'] = {
  provider: '--provider',
  model: 'pass --model',
  mode: '--mode',
  embedding: 'Pass --embed-url URL and --embed-model NAME; a key, if the endpoint wants one, goes in XREPOTEST_EMBED_API_KEY.',
  checkout: '--repos DIR, or --allow-checkouts ROOT for the folder the task records',
};

/** The flags as the engine's plain generation settings (the one mapping; generate/options.ts does the rest). */
export function generationSettings(opts: GenerationCliOptions, concurrency?: number): GenerationSettings {
  return {
    provider: providerName(opts),
    model: opts.model,
    baseUrl: opts.baseUrl,
    replayFile: opts.replay,
    credentials: { from: 'environment' },
    cacheDir: opts.cache ? opts.cacheDir : undefined,
    concurrency,
    requestTimeoutMs: opts.requestTimeout !== undefined ? Math.round(opts.requestTimeout * 1000) : undefined,
    maxRetries: opts.retries,
    decoding: { temperature: opts.temperature, maxTokens: opts.maxTokens, topP: opts.topP },
    mode: opts.mode,
    k: opts.k,
    publishedContext: opts.publishedContext,
    embedding: { baseUrl: opts.embedUrl, model: opts.embedModel, apiKey: process.env.XREPOTEST_EMBED_API_KEY },
    lsp: 'headless',
    hints: CLI_HINTS,
  };
}

export function params(opts: GenerationCliOptions): GenerationParams {
  return generationParams(generationSettings(opts));
}

export function providerFrom(opts: GenerationCliOptions, concurrency?: number): Provider {
  return providerFromSettings(generationSettings(opts, concurrency));
}

/**
 * Builds the prompt for a task in the chosen mode, gathering what the mode needs; LSP context from
 * headless language servers, started on first use and closed with `close()`.
 */
export function promptBuilder(opts: GenerationCliOptions, signal?: AbortSignal): { promptFor(task: LoadedTask, repoDir?: string): Promise<Prompt>; close(): Promise<void> } {
  const prompts = promptSource(generationSettings(opts));
  return {
    promptFor: (t, repoDir) => prompts.promptFor(t.task, t.language, repoDir, signal),
    close: () => prompts.close(),
  };
}
