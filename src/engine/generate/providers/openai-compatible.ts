import { OpenAIChatProvider, type TokenLimitField } from './openai';
import type { PriceTable } from './pricing';
import type { Log, SamplingPolicy } from './sampling';

export const OPENAI_COMPATIBLE_KEY_ENV = 'OPENAI_COMPATIBLE_API_KEY';

export interface OpenAICompatibleOptions {
  /** Required: there is no default server. vLLM `http://127.0.0.1:8000/v1`, Ollama `http://127.0.0.1:11434/v1`, … */
  baseUrl: string;
  /** Most local servers take none. */
  apiKey?: string;
  timeoutMs?: number;
  sampling?: SamplingPolicy;
  tokenLimitField?: TokenLimitField;
  /** Only for hosted endpoints that bill (LiteLLM in front of a paid API); local servers cost null. */
  prices?: PriceTable;
  log?: Log;
}

/** Any server speaking OpenAI's Chat Completions: vLLM, Ollama, llama.cpp server, LiteLLM. */
export function openAICompatibleProvider(opts: OpenAICompatibleOptions): OpenAIChatProvider {
  return new OpenAIChatProvider({
    id: 'openai-compatible',
    apiKey: opts.apiKey,
    keyEnv: OPENAI_COMPATIBLE_KEY_ENV,
    baseUrl: opts.baseUrl,
    timeoutMs: opts.timeoutMs,
    sampling: opts.sampling,
    // `max_tokens` is what vLLM, Ollama and llama.cpp all read.
    tokenLimitField: opts.tokenLimitField ?? 'max_tokens',
    prices: opts.prices ?? null,
    knowsOpenAIModels: false,
    log: opts.log,
  });
}
