import Anthropic from '@anthropic-ai/sdk';
import type { CompletionRequest, CompletionResult, Provider } from '../types';
import { fromSdkError, registerSecret } from './errors';
import { costUsd, type PriceTable } from './pricing';
import { anthropicMessageText, cappedFetch, tokenCount } from './reply';
import { onceLog, stderrLog, type Log, type SamplingPolicy } from './sampling';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
export const ANTHROPIC_KEY_ENV = 'ANTHROPIC_API_KEY';
/** The last API version that accepts temperature and top_p. */
export const ANTHROPIC_SAMPLING_API_VERSION = '2023-06-01';

export interface AnthropicOptions {
  apiKey: string;
  baseUrl?: string;
  /** `anthropic-version` header; the SDK's own (2026-10-21) when unset. */
  apiVersion?: string;
  /** Longest an HTTP request may take inside the SDK; our per-call timeout is usually shorter. */
  timeoutMs?: number;
  sampling?: SamplingPolicy;
  prices?: PriceTable;
  log?: Log;
}

/** One call to the Messages API per `complete`; no retries here (the resilience wrapper does them). */
export class AnthropicProvider implements Provider {
  readonly id = 'anthropic';
  readonly endpoint: string;
  private readonly client: Anthropic;
  private readonly baseUrl: string;
  private readonly log: Log;

  constructor(private readonly opts: AnthropicOptions) {
    registerSecret(opts.apiKey);
    this.baseUrl = opts.baseUrl ?? process.env.ANTHROPIC_BASE_URL ?? ANTHROPIC_DEFAULT_BASE_URL;
    this.endpoint = this.baseUrl;
    this.log = onceLog(opts.log ?? stderrLog);
    this.client = new Anthropic({
      apiKey: opts.apiKey,
      baseURL: this.baseUrl,
      maxRetries: 0,
      fetch: cappedFetch(this.id),
      ...(opts.timeoutMs ? { timeout: opts.timeoutMs } : {}),
      ...(opts.apiVersion ? { defaultHeaders: { 'anthropic-version': opts.apiVersion } } : {}),
    });
  }

  private sendsSampling(): boolean {
    const policy = this.opts.sampling ?? 'auto';
    if (policy !== 'auto') return policy === 'send';
    return this.opts.apiVersion === ANTHROPIC_SAMPLING_API_VERSION;
  }

  /** The Messages API body, with the sampling rule applied. */
  body(request: CompletionRequest): Record<string, unknown> {
    const { params } = request;
    const body: Record<string, unknown> = {
      model: params.model,
      max_tokens: params.maxTokens,
      system: request.system,
      messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
    };
    if (this.sendsSampling()) {
      body.temperature = params.temperature;
      // Several Claude models refuse temperature and top_p together; top_p 1 is the no-op default,
      // so under `auto` it is only sent when it changes something.
      if (this.opts.sampling === 'send' || params.topP !== 1) body.top_p = params.topP;
    } else {
      this.log(
        `anthropic: temperature ${params.temperature} and top_p ${params.topP} are not sent: API version ` +
          `${this.opts.apiVersion ?? '2026-10-21'} rejects them. To send them, use apiVersion ${ANTHROPIC_SAMPLING_API_VERSION} ` +
          '(older models only) — see docs/providers.md.',
      );
    }
    return body;
  }

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    const started = Date.now();
    let message: unknown;
    try {
      // The SDK's params type no longer lists temperature/top_p; the body goes out as built.
      const body = this.body(request) as unknown as Anthropic.MessageCreateParamsNonStreaming;
      message = await this.client.messages.create(body, { signal: request.signal });
    } catch (e) {
      throw fromSdkError(e, { provider: this.id, model: request.params.model, keyEnv: ANTHROPIC_KEY_ENV, baseUrl: this.baseUrl }, Anthropic.APIConnectionError);
    }
    // Whatever the server sent, typed or not: checked before anything reads it.
    const text = anthropicMessageText(this.id, request.params.model, message);
    const u = ((message as { usage?: unknown }).usage ?? {}) as Record<string, unknown>;
    // Cache writes and reads are input too, billed (at other rates) on top of input_tokens.
    const usage = {
      inputTokens: tokenCount(u.input_tokens) + tokenCount(u.cache_creation_input_tokens) + tokenCount(u.cache_read_input_tokens),
      outputTokens: tokenCount(u.output_tokens),
    };
    return {
      text,
      usage,
      costUsd: costUsd(request.params.model, usage, this.opts.prices),
      cached: false,
      latencyMs: Date.now() - started,
    };
  }
}
