import type { Provider } from '../types';
import { AnthropicProvider, ANTHROPIC_KEY_ENV } from './anthropic';
import { withCache } from './cache';
import { ProviderError, redact, registerSecret } from './errors';
import { openAIProvider, OPENAI_KEY_ENV, type TokenLimitField } from './openai';
import { openAICompatibleProvider, OPENAI_COMPATIBLE_KEY_ENV } from './openai-compatible';
import { priceTable, type PriceTable } from './pricing';
import { ReplayProvider } from './replay';
import { withResilience, type RetryInfo } from './resilience';
import type { Log, SamplingPolicy } from './sampling';

export { redact, ProviderError } from './errors';
export { requestHash, ResponseCache } from './cache';
export { costUsd, DEFAULT_PRICES, type PriceTable } from './pricing';
export type { RetryInfo } from './resilience';
export type { SamplingPolicy } from './sampling';
export type { TokenLimitField } from './openai';

export type ProviderName = 'anthropic' | 'openai' | 'openai-compatible' | 'replay';
export const PROVIDER_NAMES: readonly ProviderName[] = ['anthropic', 'openai', 'openai-compatible', 'replay'];

export interface ProviderSpec {
  provider: ProviderName;
  model: string;
  /** Else ANTHROPIC_BASE_URL / OPENAI_BASE_URL, else the service's own; required for openai-compatible. */
  baseUrl?: string;
  /** Else ANTHROPIC_API_KEY / OPENAI_API_KEY / OPENAI_COMPATIBLE_API_KEY. */
  apiKey?: string;
  /** For `replay`: GenerationRecords, or the release's prompts_responses.jsonl / processed.jsonl. */
  replayFile?: string;
  /** Response cache folder; no cache when unset. */
  cacheDir?: string;
  /** Calls in flight at once (default 8). */
  concurrency?: number;
  /** Retries after the first attempt (default 3, as the release). */
  maxRetries?: number;
  /** Longest one attempt may take (default 300 s). */
  timeoutMs?: number;
  /** First backoff step (default 1 s). */
  baseDelayMs?: number;
  /** Whether temperature/top_p are sent (default `auto`: left out where the API refuses them). */
  sampling?: SamplingPolicy;
  /** anthropic: the `anthropic-version` header (`2023-06-01` brings temperature/top_p back). */
  apiVersion?: string;
  /** openai / openai-compatible: which field carries the output-token limit. */
  tokenLimitField?: TokenLimitField;
  /** Prices (USD per million tokens) on top of the built-in table, and/or a JSON file of them. */
  prices?: PriceTable;
  priceFile?: string;
  /** Notes for the user (sampling left out, retries); stderr when unset. */
  log?: Log;
  onRetry?: (info: RetryInfo) => void;
  /** Read instead of process.env (tests, the editor's secret storage). */
  env?: NodeJS.ProcessEnv;
}

const KEY_ENV: Record<Exclude<ProviderName, 'replay'>, string> = {
  anthropic: ANTHROPIC_KEY_ENV,
  openai: OPENAI_KEY_ENV,
  'openai-compatible': OPENAI_COMPATIBLE_KEY_ENV,
};

function requireKey(spec: ProviderSpec, env: NodeJS.ProcessEnv, name: 'anthropic' | 'openai'): string {
  const key = spec.apiKey ?? env[KEY_ENV[name]];
  if (!key) {
    throw new ProviderError(
      `${name}: no API key. Set ${KEY_ENV[name]} (or pass apiKey). To run without a key, use --provider replay with recorded replies, or the offline baseline.`,
      'config',
      false,
    );
  }
  return key;
}

/**
 * A ready provider: the API client (or the replay file), wrapped in retries, per-call timeout and a
 * concurrency limit, and — when `cacheDir` is set — the response cache in front of it all, so a
 * cached reply neither waits for a slot nor counts against any limit.
 */
export function createProvider(spec: ProviderSpec): Provider {
  const env = spec.env ?? process.env;
  if (!spec.model && spec.provider !== 'replay') throw new ProviderError(`${spec.provider}: no model given`, 'config', false);
  let inner: Provider;
  try {
    inner = buildInner(spec, env);
  } catch (e) {
    throw e instanceof ProviderError ? e : new ProviderError(redact((e as Error).message), 'config', false);
  }
  // Replies read from a file need no retries or slots; they would only slow a replay down.
  let provider =
    spec.provider === 'replay'
      ? inner
      : withResilience(inner, {
          maxRetries: spec.maxRetries,
          timeoutMs: spec.timeoutMs,
          concurrency: spec.concurrency,
          baseDelayMs: spec.baseDelayMs,
          onRetry: spec.onRetry,
        });
  if (spec.cacheDir && spec.provider !== 'replay') provider = withCache(provider, spec.cacheDir);
  return provider;
}

function buildInner(spec: ProviderSpec, env: NodeJS.ProcessEnv): Provider {
  const prices = priceTable({ prices: spec.prices, priceFile: spec.priceFile });
  // The SDK's own timeout is a backstop only: ours (per attempt, in withResilience) decides.
  const sdkTimeoutMs = (spec.timeoutMs ?? 300_000) + 5_000;
  switch (spec.provider) {
    case 'anthropic':
      return new AnthropicProvider({
        apiKey: requireKey(spec, env, 'anthropic'),
        baseUrl: spec.baseUrl ?? env.ANTHROPIC_BASE_URL,
        apiVersion: spec.apiVersion,
        timeoutMs: sdkTimeoutMs,
        sampling: spec.sampling,
        prices,
        log: spec.log,
      });
    case 'openai':
      return openAIProvider({
        apiKey: requireKey(spec, env, 'openai'),
        baseUrl: spec.baseUrl ?? env.OPENAI_BASE_URL,
        timeoutMs: sdkTimeoutMs,
        sampling: spec.sampling,
        tokenLimitField: spec.tokenLimitField,
        prices,
        log: spec.log,
      });
    case 'openai-compatible': {
      const baseUrl = spec.baseUrl ?? env.OPENAI_COMPATIBLE_BASE_URL;
      if (!baseUrl) {
        throw new ProviderError(
          'openai-compatible: no base URL. Pass --base-url (or set OPENAI_COMPATIBLE_BASE_URL), e.g. http://127.0.0.1:11434/v1 for Ollama, http://127.0.0.1:8000/v1 for vLLM.',
          'config',
          false,
        );
      }
      const apiKey = spec.apiKey ?? env[OPENAI_COMPATIBLE_KEY_ENV];
      registerSecret(apiKey);
      return openAICompatibleProvider({
        baseUrl,
        apiKey: apiKey || undefined,
        timeoutMs: sdkTimeoutMs,
        sampling: spec.sampling,
        tokenLimitField: spec.tokenLimitField,
        // Local servers cost nothing we can know; explicit prices (a paid endpoint behind LiteLLM) count.
        prices: spec.prices || spec.priceFile ? priceTable({ prices: spec.prices, priceFile: spec.priceFile, includeDefaults: false }) : undefined,
        log: spec.log,
      });
    }
    case 'replay':
      if (!spec.replayFile) throw new ProviderError('replay: no replay file given (a generations.jsonl, or the release\'s prompts_responses.jsonl)', 'config', false);
      return new ReplayProvider(spec.replayFile);
    default:
      throw new ProviderError(`unknown provider "${String(spec.provider)}"; expected one of ${PROVIDER_NAMES.join(', ')}`, 'config', false);
  }
}
