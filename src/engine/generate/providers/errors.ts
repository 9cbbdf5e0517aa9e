/**
 * Errors a provider call can end with, in one shape whatever the SDK, so the retry policy and the
 * messages users see do not depend on which client library raised them. Every message passes
 * through `redact`, because SDK and server messages can quote request headers back, and loses its
 * control characters, because a server's text ends up on terminals and in editor notifications.
 */
import { redact } from '../../util/redact';
import { forTerminal } from '../../util/terminal';

export { redact, registerSecret } from '../../util/redact';

/** `reply`: the server answered, but not with a usable completion (wrong shape, too big). */
export type FailureKind = 'http' | 'network' | 'timeout' | 'aborted' | 'config' | 'replay' | 'reply';

export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  constructor(
    message: string,
    readonly kind: FailureKind,
    readonly retryable: boolean,
    readonly status?: number,
    /** What the server asked us to wait before trying again (`retry-after-ms` / `retry-after`). */
    readonly retryAfterMs?: number,
  ) {
    super(forTerminal(redact(message)));
  }
}

/** Milliseconds to wait from `retry-after-ms` (ms) or `retry-after` (seconds, or an HTTP date). */
export function retryAfterFrom(headers: { get(name: string): string | null } | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.get('retry-after-ms') !== null && Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers.get('retry-after');
  if (raw === null) return undefined;
  const seconds = Number(raw);
  if (raw.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** 408, 409 (a conflicting request still in progress), 429 and 5xx are worth another try; the rest are our fault. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** What a provider tells `fromSdkError` about itself, to make the message actionable. */
export interface ErrorContext {
  provider: string;
  model: string;
  /** The environment variable that holds the key, named in 401/403 messages. */
  keyEnv?: string;
  baseUrl: string;
}

interface SdkLikeError {
  status?: unknown;
  headers?: { get(name: string): string | null };
  message?: unknown;
}

/**
 * Turns whatever the SDK threw into a ProviderError. `connectionError` is the SDK's class for
 * network failures (the only non-HTTP error worth retrying); an HTTP error is recognised by its status.
 */
export function fromSdkError(err: unknown, ctx: ErrorContext, connectionError: abstract new (...args: never[]) => Error): ProviderError {
  if (err instanceof ProviderError) return err;
  const e = (err ?? {}) as SdkLikeError;
  const detail = typeof e.message === 'string' ? e.message : String(err);
  if (typeof e.status === 'number') {
    const status = e.status;
    const where = `${ctx.provider} (model ${ctx.model}, ${ctx.baseUrl})`;
    if (status === 401 || status === 403) {
      const fix = ctx.keyEnv ? `Set ${ctx.keyEnv} to a valid key (or pass apiKey)` : 'Check the key the server expects';
      const what = status === 401 ? 'rejected the API key' : 'refused access with this key';
      return new ProviderError(`${where} ${what} (HTTP ${status}). ${fix}. Server said: ${detail}`, 'http', false, status);
    }
    if (status === 404) {
      return new ProviderError(`${where}: not found (HTTP 404); check the model name and the base URL. Server said: ${detail}`, 'http', false, status);
    }
    if (status === 400) {
      return new ProviderError(`${where} rejected the request (HTTP 400). Server said: ${detail}`, 'http', false, status);
    }
    return new ProviderError(`${where}: HTTP ${status}. Server said: ${detail}`, 'http', isRetryableStatus(status), status, retryAfterFrom(e.headers));
  }
  if (err instanceof connectionError) {
    return new ProviderError(`${ctx.provider}: cannot reach ${ctx.baseUrl}: ${detail}`, 'network', true);
  }
  // Anything else is a bug or a malformed reply: retrying would only repeat it.
  return new ProviderError(`${ctx.provider}: ${detail}`, 'network', false);
}
