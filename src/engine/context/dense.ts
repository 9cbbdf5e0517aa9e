import { rankWindows, type CodeWindow, type RankedWindow } from './windows';

/** Turns texts into vectors, one per text, in order. */
export interface Embedder {
  /** For messages and cache keys: `<model> @ <url>`. */
  readonly id: string;
  embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]>;
}

export interface OpenAiCompatibleEmbedderOptions {
  /** Up to and including the API version, e.g. `http://127.0.0.1:11434/v1` or `https://api.openai.com/v1`. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Inputs per request; servers cap the batch (OpenAI at 2,048, llama.cpp by its context). Default 64. */
  batchSize?: number;
  /** Per request; default 120 s (a local CPU model embedding 64 windows is slow). */
  timeoutMs?: number;
}

export class EmbeddingError extends Error {}

/** How dense retrieval can be set up; the caller may add how its own flags or settings spell it. */
export const EMBEDDER_SETUP_HINT = [
  'Dense retrieval needs an embedding model behind an OpenAI-compatible /embeddings endpoint (base URL + model name):',
  '  - Ollama:    `ollama pull nomic-embed-text`, base URL http://127.0.0.1:11434/v1, model nomic-embed-text',
  '  - llama.cpp: `llama-server -m <embedding model>.gguf --embeddings --port 8080`, base URL http://127.0.0.1:8080/v1',
  '  - vLLM:      `vllm serve <embedding model> --task embed`, base URL http://127.0.0.1:8000/v1',
  '  - OpenAI:    base URL https://api.openai.com/v1, model text-embedding-3-small, key in OPENAI_API_KEY',
].join('\n');

/** The error for `dense` mode with no embedder configured. */
export class NoEmbedderError extends Error {
  constructor(howToConfigure?: string) {
    super(`No embedding model is configured for dense retrieval.\n${EMBEDDER_SETUP_HINT}${howToConfigure ? `\n${howToConfigure}` : ''}`);
  }
}

export function requireEmbedder(embedder: Embedder | undefined | null, howToConfigure?: string): Embedder {
  if (!embedder) throw new NoEmbedderError(howToConfigure);
  return embedder;
}

interface EmbeddingsResponse {
  data?: Array<{ embedding?: unknown; index?: unknown }>;
}

/** An embedder that calls `POST {baseUrl}/embeddings` with the OpenAI wire format, in batches. */
export function openAiCompatibleEmbedder(options: OpenAiCompatibleEmbedderOptions): Embedder {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/embeddings`;
  const batchSize = Math.max(1, options.batchSize ?? 64);
  const timeoutMs = options.timeoutMs ?? 120_000;
  const fail = (why: string): never => {
    throw new EmbeddingError(`Embedding request to ${url} (model ${options.model}) failed: ${why}`);
  };

  async function embedBatch(input: readonly string[], signal?: AbortSignal): Promise<number[][]> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    const timeout = AbortSignal.timeout(timeoutMs);
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: options.model, input }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (e) {
      signal?.throwIfAborted();
      const cause = (e as { cause?: { message?: string } }).cause?.message;
      return fail(timeout.aborted ? `no answer within ${timeoutMs} ms` : `${(e as Error).message}${cause ? ` (${cause})` : ''}`);
    }
    const body = await res.text();
    if (!res.ok) return fail(`HTTP ${res.status}: ${body.slice(0, 500)}`);
    let parsed: EmbeddingsResponse;
    try {
      parsed = JSON.parse(body) as EmbeddingsResponse;
    } catch {
      return fail(`the answer is not JSON: ${body.slice(0, 200)}`);
    }
    const data = parsed.data;
    if (!Array.isArray(data) || data.length !== input.length) {
      return fail(`expected ${input.length} embeddings in "data", got ${Array.isArray(data) ? data.length : 'none'}`);
    }
    const out: number[][] = new Array(input.length);
    data.forEach((d, pos) => {
      // `index` says which input a vector belongs to; servers that omit it answer in order.
      const i = typeof d.index === 'number' ? d.index : pos;
      if (!Array.isArray(d.embedding) || i < 0 || i >= input.length) fail(`malformed item ${pos} in "data"`);
      out[i] = d.embedding as number[];
    });
    if (out.some((v) => v === undefined)) fail('"data" does not cover every input');
    return out;
  }

  return {
    id: `${options.model} @ ${url}`,
    async embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]> {
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += batchSize) out.push(...(await embedBatch(texts.slice(i, i + batchSize), signal)));
      return out;
    },
  };
}

/** Cosine similarity; 0 when either vector is all zeros. */
export function cosine(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw new EmbeddingError(`embeddings of different lengths (${a.length} and ${b.length})`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : dot / (Math.sqrt(na) * Math.sqrt(nb));
}

/** The k windows whose embeddings are closest (cosine) to the query's; ties by file path then line. */
export async function rankDense(query: string, windows: readonly CodeWindow[], embedder: Embedder | undefined | null, k = 10, signal?: AbortSignal): Promise<RankedWindow[]> {
  const model = requireEmbedder(embedder);
  if (windows.length === 0) return [];
  const [q, ...vectors] = await model.embed([query, ...windows.map((w) => w.text)], signal);
  return rankWindows(windows, vectors.map((v) => cosine(q, v)), k);
}
