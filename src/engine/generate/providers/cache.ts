import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { redact } from '../../util/redact';
import type { ChatMessage, CompletionRequest, CompletionResult, GenerationParams, Provider, Usage } from '../types';

/**
 * The cache key and GenerationRecord's `request_hash`: sha256 of (provider id, endpoint, params —
 * model included —, system prompt, messages). Anything that can change the reply is in it — the
 * endpoint too, since two servers can give one model name to different models; the task and sample
 * are not, so identical prompts share a reply exactly as the same API call would.
 */
export function requestHash(providerId: string, params: GenerationParams, system: string, messages: ChatMessage[], endpoint?: string): string {
  // Fixed field order, so the hash does not depend on how the caller built the objects.
  const p = { model: params.model, temperature: params.temperature, maxTokens: params.maxTokens, topP: params.topP };
  const m = messages.map((x) => ({ role: x.role, content: x.content }));
  // Providers without a server (replay, baseline) hash as they always did.
  const key = endpoint === undefined ? [providerId, p, system, m] : [providerId, normalEndpoint(endpoint), p, system, m];
  return createHash('sha256').update(JSON.stringify(key)).digest('hex');
}

/** `http://H:1/v1/` and `http://h:1/v1` are one server; the path stays (it can select the model). */
function normalEndpoint(endpoint: string): string {
  try {
    const u = new URL(endpoint);
    u.username = '';
    u.password = '';
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}${u.search}`;
  } catch {
    return endpoint.replace(/\/+$/, '');
  }
}

interface CacheEntry {
  version: 1;
  provider: string;
  model: string;
  text: string;
  usage: Usage;
  /** What the call cost when it was made; a hit costs nothing. */
  costUsd: number | null;
  createdAt: string;
}

/** Replies on disk, one file per request hash, so concurrent writers never share a file. */
export class ResponseCache {
  constructor(readonly dir: string) {}

  private fileOf(hash: string): string {
    return path.join(this.dir, hash.slice(0, 2), `${hash}.json`);
  }

  get(hash: string): CacheEntry | undefined {
    let raw: string;
    try {
      raw = fs.readFileSync(this.fileOf(hash), 'utf8');
    } catch {
      return undefined;
    }
    try {
      const e = JSON.parse(raw) as CacheEntry;
      // An entry older than the reply checks may hold an empty or unredacted reply: it is a miss.
      return e.version === 1 && typeof e.text === 'string' && e.text.trim() !== '' ? { ...e, text: redact(e.text) } : undefined;
    } catch {
      // A torn or foreign file is a miss; the next successful call overwrites it.
      return undefined;
    }
  }

  /**
   * Written to a private temporary file and renamed into place: rename is atomic on one file system,
   * so a reader sees the old entry, no entry or the whole new one, and two writers of the same
   * hash (same request, same reply shape) simply replace each other.
   */
  put(hash: string, entry: CacheEntry): void {
    const file = this.fileOf(hash);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      fs.writeFileSync(tmp, JSON.stringify(entry));
      fs.renameSync(tmp, file);
    } catch (e) {
      fs.rmSync(tmp, { force: true });
      throw e;
    }
  }
}

/**
 * A provider that answers repeated requests from disk: no call, no cost, `cached: true`. Only
 * successful replies are stored; an error is never cached, so a rerun tries again.
 */
export function withCache(inner: Provider, cacheDir: string): Provider {
  const cache = new ResponseCache(cacheDir);
  const complete = async (request: CompletionRequest): Promise<CompletionResult> => {
    const hash = requestHash(inner.id, request.params, request.system, request.messages, inner.endpoint);
    const started = Date.now();
    const hit = cache.get(hash);
    if (hit) return { text: hit.text, usage: hit.usage, costUsd: 0, cached: true, latencyMs: Date.now() - started };
    const result = await inner.complete(request);
    if (!result.cached) {
      cache.put(hash, {
        version: 1,
        provider: inner.id,
        model: request.params.model,
        // Providers redact their replies already; this also covers any other provider put behind a cache.
        text: redact(result.text),
        usage: result.usage,
        costUsd: result.costUsd,
        createdAt: new Date().toISOString(),
      });
    }
    return result;
  };
  return { id: inner.id, ...(inner.isBaseline ? { isBaseline: true } : {}), ...(inner.endpoint ? { endpoint: inner.endpoint } : {}), complete };
}
