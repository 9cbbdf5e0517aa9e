import type { CompletionRequest, CompletionResult, Provider } from '../types';
import { ProviderError, redact } from './errors';
import { Semaphore } from './semaphore';

export interface ResilienceOptions {
  /** Retries after the first attempt (the release: 3). */
  maxRetries?: number;
  /** Longest one attempt may take before it is abandoned and retried. */
  timeoutMs?: number;
  /** Calls in flight at once across everything that shares this wrapper. */
  concurrency?: number;
  /** First backoff step; it doubles every retry. */
  baseDelayMs?: number;
  /** No wait is longer than this, whatever the server's retry-after says. */
  maxDelayMs?: number;
  /** Told about every retry (messages are already redacted). */
  onRetry?: (info: RetryInfo) => void;
  /** For tests: a random number in [0, 1). */
  random?: () => number;
}

export interface RetryInfo {
  attempt: number;
  delayMs: number;
  error: ProviderError;
}

export const DEFAULT_RESILIENCE = { maxRetries: 3, timeoutMs: 300_000, concurrency: 8, baseDelayMs: 1_000, maxDelayMs: 60_000 };

/**
 * The wait before retry number `attempt` (1-based): the server's retry-after when it gave one,
 * else exponential backoff with "equal jitter" (half fixed, half random) so that many clients
 * throttled together do not all come back at the same instant.
 */
export function backoffDelay(attempt: number, error: ProviderError, opts: { baseDelayMs: number; maxDelayMs: number; random: () => number }): number {
  if (error.retryAfterMs !== undefined) return Math.min(error.retryAfterMs, opts.maxDelayMs);
  const step = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** (attempt - 1));
  return step / 2 + (step / 2) * opts.random();
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

const seconds = (ms: number): string => `${Number((ms / 1000).toFixed(3))} s`;

/** One attempt with its own deadline, whose expiry is told apart from the caller cancelling. */
async function attemptWithTimeout(inner: Provider, request: CompletionRequest, timeoutMs: number): Promise<CompletionResult> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error('timeout')), timeoutMs);
  const signal = request.signal ? AbortSignal.any([request.signal, deadline.signal]) : deadline.signal;
  try {
    return await inner.complete({ ...request, signal });
  } catch (e) {
    if (request.signal?.aborted) throw new ProviderError(`${inner.id}: cancelled`, 'aborted', false);
    if (deadline.signal.aborted) {
      throw new ProviderError(`${inner.id}: timed out: no reply within ${seconds(timeoutMs)} (model ${request.params.model}; the limit is --request-timeout / xrepotest.requests.timeoutSeconds)`, 'timeout', true);
    }
    if (e instanceof ProviderError) throw e;
    throw new ProviderError(`${inner.id}: ${redact((e as Error)?.message ?? String(e))}`, 'network', false);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A provider that retries 429s, 5xx, network errors and timeouts (honouring retry-after), gives up
 * at once on anything else, bounds each attempt in time and bounds how many calls run at once.
 * A call holds its concurrency slot through its retries, so a throttled server sees fewer requests.
 */
export function withResilience(inner: Provider, options: ResilienceOptions = {}): Provider {
  const o = { ...DEFAULT_RESILIENCE, random: Math.random, ...stripUndefined(options) };
  const slots = new Semaphore(o.concurrency);
  const complete = async (request: CompletionRequest): Promise<CompletionResult> =>
    slots.run(async () => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await attemptWithTimeout(inner, request, o.timeoutMs);
        } catch (e) {
          const error = e as ProviderError;
          if (!error.retryable || attempt >= o.maxRetries) {
            if (attempt > 0 && error.retryable) {
              throw new ProviderError(`${error.message} (gave up after ${attempt + 1} attempts)`, error.kind, false, error.status);
            }
            throw error;
          }
          const delayMs = backoffDelay(attempt + 1, error, o);
          o.onRetry?.({ attempt: attempt + 1, delayMs, error });
          await sleep(delayMs, request.signal);
        }
      }
    }, request.signal);
  return { id: inner.id, ...(inner.isBaseline ? { isBaseline: true } : {}), ...(inner.endpoint ? { endpoint: inner.endpoint } : {}), complete };
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
