import { type Command, InvalidArgumentError } from 'commander';
import * as os from 'node:os';
import * as path from 'node:path';
import { PAPER_PARAMS } from '../engine/generate/types';

/**
 * The generation flags' declarations, loaded with every verb's flags (main.ts), so they name the
 * engine's registries without loading them: the context modes and the providers are listed here, and
 * test/unit/cli-start.test.ts checks these lists against the registries (context/modes/index.ts,
 * generate/options.ts). What the flags mean at run time is generation-options.ts.
 */
export const CONTEXT_MODE_NAMES = ['standard', 'file', 'lsp', 'bm25', 'dense'] as const;
export const PROVIDER_KIND_NAMES = ['anthropic', 'openai', 'openai-compatible', 'replay', 'baseline'] as const;

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
    .option('--mode <mode>', `context: ${CONTEXT_MODE_NAMES.join(', ')}`, 'standard')
    .option('--k <n>', 'bm25 / dense: windows in the prompt (the paper: 10)', number, 10)
    .option('--embed-url <url>', 'dense: an OpenAI-compatible embeddings endpoint (Ollama, llama.cpp, vLLM, OpenAI), e.g. http://127.0.0.1:11434/v1')
    .option('--embed-model <name>', 'dense: the embedding model at --embed-url')
    .option('--published-context', "lsp / bm25 / dense: use the context an enriched release record carries instead of computing it");
}

export function addGenerationOptions(cmd: Command): Command {
  addContextOptions(cmd)
    .option('--provider <name>', `${PROVIDER_KIND_NAMES.join(', ')} (default: baseline, the offline lower bound)`)
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
