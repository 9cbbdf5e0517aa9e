import OpenAI from 'openai';
import type { CompletionRequest, CompletionResult, Provider } from '../types';
import { fromSdkError, registerSecret } from './errors';
import { costUsd, DEFAULT_PRICES, type PriceTable } from './pricing';
import { cappedFetch, chatCompletionText, tokenCount } from './reply';
import { onceLog, stderrLog, type Log, type SamplingPolicy } from './sampling';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
export const OPENAI_KEY_ENV = 'OPENAI_API_KEY';

/** Which field carries the output limit: `auto` picks `max_completion_tokens` for reasoning models. */
export type TokenLimitField = 'auto' | 'max_tokens' | 'max_completion_tokens';

export interface OpenAIChatOptions {
  /** `openai` or `openai-compatible`. */
  id: string;
  /** Absent for local servers that take no key: then no Authorization header is sent. */
  apiKey?: string;
  keyEnv: string;
  baseUrl: string;
  timeoutMs?: number;
  sampling?: SamplingPolicy;
  tokenLimitField?: TokenLimitField;
  /** null: never priced (local servers, unless a table is given). */
  prices: PriceTable | null;
  /** Whether `auto` recognises OpenAI's reasoning models; a local server's model names mean nothing here. */
  knowsOpenAIModels: boolean;
  log?: Log;
}

/**
 * OpenAI's reasoning models (o1, o3, o4-mini, the gpt-5 family except its chat variants) refuse
 * `max_tokens` and accept only the default temperature and top_p.
 */
export function isOpenAIReasoningModel(model: string): boolean {
  const m = model.replace(/^openai\//, '');
  if (/^o\d/.test(m)) return true;
  return /^gpt-5/.test(m) && !/-chat/.test(m);
}

/** One call to the Chat Completions API per `complete`; retries belong to the resilience wrapper. */
export class OpenAIChatProvider implements Provider {
  readonly id: string;
  readonly endpoint: string;
  private readonly client: OpenAI;
  private readonly log: Log;

  constructor(private readonly opts: OpenAIChatOptions) {
    this.id = opts.id;
    this.endpoint = opts.baseUrl;
    registerSecret(opts.apiKey);
    this.log = onceLog(opts.log ?? stderrLog);
    this.client = new OpenAI({
      // The SDK refuses to start without a key; a keyless server gets a placeholder that the null
      // Authorization header below keeps off the wire.
      apiKey: opts.apiKey ?? 'no-key',
      baseURL: opts.baseUrl,
      maxRetries: 0,
      fetch: cappedFetch(opts.id),
      ...(opts.timeoutMs ? { timeout: opts.timeoutMs } : {}),
      ...(opts.apiKey ? {} : { defaultHeaders: { Authorization: null } }),
    });
  }

  private reasoning(model: string): boolean {
    return this.opts.knowsOpenAIModels && isOpenAIReasoningModel(model);
  }

  body(request: CompletionRequest): Record<string, unknown> {
    const { params } = request;
    const body: Record<string, unknown> = {
      model: params.model,
      messages: [{ role: 'system', content: request.system }, ...request.messages.map((m) => ({ role: m.role, content: m.content }))],
    };
    const policy = this.opts.sampling ?? 'auto';
    const sendSampling = policy === 'auto' ? !this.reasoning(params.model) : policy === 'send';
    if (sendSampling) {
      body.temperature = params.temperature;
      body.top_p = params.topP;
    } else {
      this.log(`${this.id}: temperature and top_p are not sent to ${params.model} (it accepts only the defaults); set sampling to "send" to force them.`);
    }
    const field = this.opts.tokenLimitField ?? 'auto';
    const limitField = field === 'auto' ? (this.reasoning(params.model) ? 'max_completion_tokens' : 'max_tokens') : field;
    body[limitField] = params.maxTokens;
    return body;
  }

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    const started = Date.now();
    let completion: unknown;
    try {
      const body = this.body(request) as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming;
      completion = await this.client.chat.completions.create(body, { signal: request.signal });
    } catch (e) {
      throw fromSdkError(e, { provider: this.id, model: request.params.model, keyEnv: this.opts.keyEnv, baseUrl: this.opts.baseUrl }, OpenAI.APIConnectionError);
    }
    // Whatever the server sent, typed or not: checked before anything reads it.
    const text = chatCompletionText(this.id, request.params.model, completion);
    const u = ((completion as { usage?: unknown }).usage ?? {}) as Record<string, unknown>;
    // Some local servers leave usage out; zero is what we know, and they are not priced anyway.
    const usage = { inputTokens: tokenCount(u.prompt_tokens), outputTokens: tokenCount(u.completion_tokens) };
    return {
      text,
      usage,
      costUsd: this.opts.prices ? costUsd(request.params.model, usage, this.opts.prices) : null,
      cached: false,
      latencyMs: Date.now() - started,
    };
  }
}

export interface OpenAIOptions {
  apiKey: string;
  baseUrl?: string;
  timeoutMs?: number;
  sampling?: SamplingPolicy;
  tokenLimitField?: TokenLimitField;
  prices?: PriceTable;
  log?: Log;
}

/** The hosted OpenAI API (or a proxy in front of it, through `baseUrl` / OPENAI_BASE_URL). */
export function openAIProvider(opts: OpenAIOptions): OpenAIChatProvider {
  return new OpenAIChatProvider({
    id: 'openai',
    apiKey: opts.apiKey,
    keyEnv: OPENAI_KEY_ENV,
    baseUrl: opts.baseUrl ?? process.env.OPENAI_BASE_URL ?? OPENAI_DEFAULT_BASE_URL,
    timeoutMs: opts.timeoutMs,
    sampling: opts.sampling,
    tokenLimitField: opts.tokenLimitField,
    prices: opts.prices ?? DEFAULT_PRICES,
    knowsOpenAIModels: true,
    log: opts.log,
  });
}
