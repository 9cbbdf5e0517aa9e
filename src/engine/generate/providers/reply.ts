import { redact } from '../../util/redact';
import { ProviderError } from './errors';

/**
 * A provider's reply is input from the network, not a promise kept: a gateway can answer 200 with an
 * HTML page, a misconfigured server with some other JSON, a hostile one with gigabytes. What comes
 * back is checked here before anything uses, caches or stores it.
 */

/**
 * Most reply text accepted (UTF-8 bytes). A test the paper's 4,096 output tokens allow is ~16 KiB;
 * a longer reply is refused as an error (not truncated: a cut test would not compile anyway, and an
 * error is not cached, so a rerun asks again).
 */
export const MAX_REPLY_TEXT_BYTES = 1024 * 1024;

/** Most bytes read of a response body: the text's cap plus room for JSON escaping and metadata. */
export const MAX_REPLY_BODY_BYTES = 8 * 1024 * 1024;

const mib = (n: number): string => `${(n / (1024 * 1024)).toFixed(n % (1024 * 1024) ? 1 : 0)} MiB`;

/** What a refused reply looked like, in a few characters a user can recognise (`<!DOCTYPE html>…`). */
function glimpse(value: unknown): string {
  let s: string;
  if (typeof value === 'string') s = value;
  else {
    try {
      s = JSON.stringify(value) ?? String(value);
    } catch {
      s = String(value);
    }
  }
  s = s.replace(/\s+/g, ' ').trim();
  return s.length > 120 ? `${s.slice(0, 120)}…` : s || '(empty)';
}

export function malformedReply(provider: string, model: string, what: string, body: unknown): ProviderError {
  return new ProviderError(`${provider} (model ${model}): the reply is not a usable completion: ${what}. It began: ${glimpse(body)}`, 'reply', false);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The reply text, refused when over the cap or empty, then redacted (it is stored and shown). */
export function checkedText(provider: string, model: string, text: string, body: unknown): string {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_REPLY_TEXT_BYTES) {
    throw new ProviderError(`${provider} (model ${model}): the reply is ${mib(bytes)} of text, over the ${mib(MAX_REPLY_TEXT_BYTES)} limit; refused`, 'reply', false);
  }
  if (!text.trim()) throw malformedReply(provider, model, 'its text is empty', body);
  return redact(text);
}

/** The assistant text of a Chat Completions reply, or a ProviderError saying what is wrong with it. */
export function chatCompletionText(provider: string, model: string, body: unknown): string {
  if (!isObject(body)) throw malformedReply(provider, model, typeof body === 'string' ? 'not JSON (an HTML page or plain text?)' : 'not a JSON object', body);
  if (!Array.isArray(body.choices)) throw malformedReply(provider, model, 'no "choices" list (not a chat completion)', body);
  const first: unknown = body.choices[0];
  if (!isObject(first)) throw malformedReply(provider, model, body.choices.length ? 'choices[0] is not an object' : '"choices" is empty', body);
  const message = first.message;
  if (!isObject(message)) throw malformedReply(provider, model, 'choices[0] has no "message"', body);
  if (typeof message.refusal === 'string' && message.refusal && typeof message.content !== 'string') {
    throw malformedReply(provider, model, 'the model refused', message.refusal);
  }
  if (typeof message.content !== 'string') throw malformedReply(provider, model, `choices[0].message.content is ${message.content === null ? 'null' : typeof message.content}, not text`, body);
  return checkedText(provider, model, message.content, body);
}

/** The joined text blocks of an Anthropic Messages reply, or a ProviderError saying what is wrong. */
export function anthropicMessageText(provider: string, model: string, body: unknown): string {
  if (!isObject(body)) throw malformedReply(provider, model, typeof body === 'string' ? 'not JSON (an HTML page or plain text?)' : 'not a JSON object', body);
  if (!Array.isArray(body.content)) throw malformedReply(provider, model, 'no "content" list (not a Messages API message)', body);
  const texts: string[] = [];
  for (const block of body.content) {
    if (!isObject(block)) throw malformedReply(provider, model, 'a content block is not an object', body);
    if (block.type !== 'text') continue;
    if (typeof block.text !== 'string') throw malformedReply(provider, model, `a text block's "text" is ${typeof block.text}, not text`, body);
    texts.push(block.text);
  }
  if (!texts.length) throw malformedReply(provider, model, 'no text block in "content"', body);
  return checkedText(provider, model, texts.join(''), body);
}

/** A count from a usage object, or 0 where the server left it out or sent something else. */
export function tokenCount(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0;
}

type Fetch = typeof fetch;

/**
 * `fetch` whose response bodies stop at `maxBytes`: a declared larger Content-Length is refused
 * before reading, an undeclared one as soon as the count passes the cap, so a hostile server cannot
 * make the engine buffer gigabytes.
 */
export function cappedFetch(provider: string, maxBytes = MAX_REPLY_BODY_BYTES, inner: Fetch = fetch): Fetch {
  const tooBig = (n: string): ProviderError => new ProviderError(`${provider}: the response body is ${n}, over the ${mib(maxBytes)} limit; refused`, 'reply', false);
  return async (input, init) => {
    const response = await inner(input, init);
    const declared = Number(response.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      // Failing the body, not the fetch: the SDKs report a failed fetch as "connection error".
      const error = tooBig(mib(declared));
      const refused = new ReadableStream<Uint8Array>({ start: (c) => c.error(error) });
      return new Response(refused, { status: response.status, statusText: response.statusText, headers: response.headers });
    }
    if (!response.body) return response;
    let seen = 0;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > maxBytes) controller.error(tooBig(`more than ${mib(maxBytes)}`));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
