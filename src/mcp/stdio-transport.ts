/**
 * MCP over standard input and output (one JSON-RPC message a line, as the stdio transport is
 * defined), with a bound on one message's size that refuses instead of hanging up.
 *
 * The SDK's StdioServerTransport, past its buffer limit, clears the buffer and closes itself: stdin is
 * paused, the server closed, and with nothing left to wait for the process exits 0 without a word
 * (issue 31: one 40 MB message ended the server). Here a line over the limit is never held: it is read
 * to its end keeping only its first and last few KiB (to find its id), answered with a JSON-RPC error
 * for that id, reported through `onerror`, and the next line is read as if nothing happened. A line
 * that is not JSON, or not a JSON-RPC message, gets the error JSON-RPC prescribes for it too, where
 * the SDK's transport drops it and leaves the client waiting.
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from './limits';


/** How much of an oversized message's start and end is kept: an id is among its first or last members. */
const EDGE_BYTES = 4096;

type RequestId = string | number | null;

/**
 * The id of a message known only by its two ends: its first member (after `jsonrpc`), or its last
 * one, where the SDK's client puts it, after the params. Inside a JSON string a quote is escaped, so
 * `"id":` matches only a member; a last member is the top level's only when one brace closes it.
 */
export function idFromEnds(head: string, tail: string): RequestId {
  const value = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
  const first = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${value}`).exec(head);
  const last = new RegExp(String.raw`[{,]\s*"id"\s*:\s*${value}\s*\}\s*$`).exec(tail);
  const raw = first?.[1] ?? last?.[1];
  if (raw === undefined) return null;
  try {
    const id: unknown = JSON.parse(raw);
    return typeof id === 'number' || typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

/** The id of a parsed message that is not a valid one, when it has a usable one. */
function idOf(value: unknown): RequestId {
  const id = value && typeof value === 'object' && !Array.isArray(value) ? (value as { id?: unknown }).id : undefined;
  return typeof id === 'number' || typeof id === 'string' ? id : null;
}

/** A response (to a request of the server's) gets no answer, even a broken one: only requests and unknowns do. */
function looksLikeResponse(value: unknown): boolean {
  return !!value && typeof value === 'object' && ('result' in value || 'error' in value) && !('method' in value);
}

export interface LimitedStdioOptions {
  maxMessageBytes?: number;
  /** How the user raises the limit, said in the refusal (`--max-message-mb 10`). */
  limitHint?: string;
  stdin?: Readable;
  stdout?: Writable;
}

/** A line over the limit, as far as it has come: its size so far and its two ends. */
interface Skipped {
  bytes: number;
  head: Buffer;
  tail: Buffer;
}

export class LimitedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly maxBytes: number;
  private readonly hint: string;
  private readonly stdin: Readable;
  private readonly stdout: Writable;
  private line: Buffer[] = [];
  private lineBytes = 0;
  private skipped: Skipped | null = null;
  private started = false;

  constructor(opts: LimitedStdioOptions = {}) {
    this.maxBytes = opts.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.hint = opts.limitHint ? ` (${opts.limitHint})` : '';
    this.stdin = opts.stdin ?? process.stdin;
    this.stdout = opts.stdout ?? process.stdout;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('LimitedStdioTransport already started');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStreamError);
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStreamError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.line = [];
    this.lineBytes = 0;
    this.skipped = null;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(message);
  }

  private write(message: unknown): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(JSON.stringify(message) + '\n')) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  private readonly onStreamError = (error: Error): void => this.onerror?.(error);

  private readonly onData = (chunk: Buffer): void => {
    let rest = chunk;
    for (let nl = rest.indexOf(0x0a); nl >= 0; nl = rest.indexOf(0x0a)) {
      this.take(rest.subarray(0, nl));
      this.endLine();
      rest = rest.subarray(nl + 1);
    }
    this.take(rest);
  };

  /** Part of the current line: kept while the line is within the limit, else only its two ends. */
  private take(part: Buffer): void {
    if (!part.length) return;
    if (!this.skipped && this.lineBytes + part.length <= this.maxBytes) {
      this.line.push(part);
      this.lineBytes += part.length;
      return;
    }
    if (!this.skipped) {
      this.skipped = { bytes: 0, head: Buffer.alloc(0), tail: Buffer.alloc(0) };
      for (const held of this.line) this.skip(held);
      this.line = [];
      this.lineBytes = 0;
    }
    this.skip(part);
  }

  private skip(part: Buffer): void {
    const s = this.skipped!;
    s.bytes += part.length;
    if (s.head.length < EDGE_BYTES) s.head = Buffer.concat([s.head, part.subarray(0, EDGE_BYTES - s.head.length)]);
    // Copies, so no chunk of the message is kept alive by a view into it.
    s.tail = Buffer.from(part.length >= EDGE_BYTES ? part.subarray(part.length - EDGE_BYTES) : Buffer.concat([s.tail, part]).subarray(-EDGE_BYTES));
  }

  private endLine(): void {
    const skipped = this.skipped;
    this.skipped = null;
    if (skipped) return this.refuse(skipped);
    const text = Buffer.concat(this.line).toString('utf8').replace(/\r$/, '');
    this.line = [];
    this.lineBytes = 0;
    if (text.trim()) this.deliver(text);
  }

  private refuse(s: Skipped): void {
    const id = idFromEnds(s.head.toString('utf8'), s.tail.toString('utf8').replace(/\r$/, ''));
    const size = `message of ${s.bytes} bytes`;
    const limit = `the limit of ${this.maxBytes} bytes${this.hint}`;
    this.answerError(id, ErrorCode.InvalidRequest, `${size} is over ${limit}; nothing of it was read`);
    this.onerror?.(new Error(`refused a ${size}, over ${limit}${id === null ? '' : `, request ${JSON.stringify(id)}`}`));
  }

  private deliver(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      this.answerError(null, ErrorCode.ParseError, `not JSON: ${(e as Error).message}`);
      this.onerror?.(new Error(`a line that is not JSON (${text.length} characters): ${(e as Error).message}`));
      return;
    }
    const checked = JSONRPCMessageSchema.safeParse(value);
    if (!checked.success) {
      if (!looksLikeResponse(value)) this.answerError(idOf(value), ErrorCode.InvalidRequest, 'not a JSON-RPC 2.0 request or notification');
      this.onerror?.(new Error(`a message that is not JSON-RPC 2.0: ${checked.error.message.slice(0, 500)}`));
      return;
    }
    this.onmessage?.(checked.data);
  }

  private answerError(id: RequestId, code: number, message: string): void {
    void this.write({ jsonrpc: '2.0', id, error: { code, message } });
  }
}
