import { Command, InvalidArgumentError } from 'commander';
import * as os from 'node:os';
import * as path from 'node:path';
import { CONTEXT_MODES, parseContextMode } from '../engine/context/modes';
import { generationParams, providerFromSettings, PROVIDER_KINDS, type GenerationSettings } from '../engine/generate/options';
import { PAPER_PARAMS, type ContextMode, type GenerationParams, type Prompt, type Provider } from '../engine/generate/types';
import { promptSource } from '../engine/prompt/context';
import type { LoadedTask } from '../engine/tasks/load';

/** The options `prompt`, `generate` and `bench` share: provider, model, decoding, context mode. */
export interface GenerationCliOptions {
  provider?: string;
  model?: string;
  baseUrl?: string;
  replay?: string;
  mode: string;
  temperature: number;
  maxTokens: number;
  topP: number;
  cacheDir?: string;
  cache: boolean;
  /** Seconds one provider request may take before it is abandoned (and retried). */
  requestTimeout?: number;
  /** Retries of a failed or timed-out provider request, after the first attempt. */
  retries?: number;
  embedUrl?: string;
  embedModel?: string;
  publishedContext?: boolean;
  k: number;
}

function number(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n)) throw new InvalidArgumentError('expected a number');
  return n;
}

/** A day at most: longer is no limit at all, and timers past ~24.8 days would fire at once. */
export const MAX_REQUEST_TIMEOUT_SECONDS = 86_400;

function positiveSeconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > MAX_REQUEST_TIMEOUT_SECONDS) throw new InvalidArgumentError(`expected a number of seconds above 0, at most ${MAX_REQUEST_TIMEOUT_SECONDS}`);
  return n;
}

function retryCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 20) throw new InvalidArgumentError('expected a whole number from 0 to 20');
  return n;
}

export function addContextOptions(cmd: Command): Command {
  return cmd
    .option('--mode <mode>', `context: ${CONTEXT_MODES.join(', ')}`, 'standard')
    .option('--k <n>', 'bm25 / dense: windows in the prompt (the paper: 10)', number, 10)
    .option('--embed-url <url>', 'dense: an OpenAI-compatible embeddings endpoint (Ollama, llama.cpp, vLLM, OpenAI), e.g. http://127.0.0.1:11434/v1')
    .option('--embed-model <name>', 'dense: the embedding model at --embed-url')
    .option('--published-context', "lsp / bm25 / dense: use the context an enriched release record carries instead of computing it");
}

export function addGenerationOptions(cmd: Command): Command {
  addContextOptions(cmd)
    .option('--provider <name>', `${PROVIDER_KINDS.join(', ')} (default: baseline, the offline lower bound)`)
    .option('--model <name>', 'the model (anthropic, openai, openai-compatible)')
    .option('--base-url <url>', 'the API base URL (openai-compatible: required; others: a proxy or gateway)')
    .option('--replay <file>', 'replay: recorded responses (generations.jsonl, or the release\'s prompts_responses.jsonl / processed.jsonl)')
    .option('--temperature <t>', 'sampling temperature (the paper: 0)', number, PAPER_PARAMS.temperature)
    .option('--max-tokens <n>', 'most output tokens (the paper: 4096)', number, PAPER_PARAMS.maxTokens)
    .option('--top-p <p>', 'nucleus sampling (the paper: 1)', number, PAPER_PARAMS.topP)
    .option('--cache-dir <dir>', 'response cache (a rerun costs nothing)', path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'xrepotest', 'responses'))
    .option('--no-cache', 'call the API even when the same request was answered before');
  return addRequestOptions(cmd);
}

/** How long one provider request may take and how often it is retried (an endpoint can hang). */
export function addRequestOptions(cmd: Command): Command {
  return cmd
    .option('--request-timeout <seconds>', 'abandon a provider request with no reply after this long (default 300)', positiveSeconds)
    .option('--retries <n>', 'retry a failed or timed-out provider request this many times (default 3)', retryCount);
}

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
