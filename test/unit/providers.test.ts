import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { createProvider, requestHash, type ProviderSpec } from '../../src/engine/generate/providers';
import { ProviderError, redact, registerSecret, retryAfterFrom } from '../../src/engine/generate/providers/errors';
import { isOpenAIReasoningModel } from '../../src/engine/generate/providers/openai';
import { costUsd, DEFAULT_PRICES, loadPriceFile, priceOf } from '../../src/engine/generate/providers/pricing';
import { backoffDelay } from '../../src/engine/generate/providers/resilience';
import type { ChatMessage, CompletionRequest, Provider } from '../../src/engine/generate/types';
import type { TaskRecord } from '../../src/engine/tasks/record';

/*
 * Every provider is exercised through its real SDK against a server on 127.0.0.1 that speaks the
 * API's wire format; the server counts requests (and how many are in flight) so retry and
 * concurrency behaviour is observed from the outside, as the real service would see it.
 */

const ANTHROPIC_KEY = 'sk-ant-api03-TESTKEY-must-never-leak-0123456789';
const OPENAI_KEY = 'sk-proj-TESTKEY-must-never-leak-9876543210';

interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** What the server does with one request: a status, headers and a JSON body, after an optional delay. */
interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
  /** Never answer (the client must time out). */
  hang?: boolean;
}

class FakeApi {
  readonly requests: SeenRequest[] = [];
  inFlight = 0;
  maxInFlight = 0;
  private readonly script: Reply[] = [];
  private readonly server: http.Server;
  private readonly hung: http.ServerResponse[] = [];

  constructor(private readonly fallback: (req: SeenRequest) => Reply) {
    this.server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
      req.on('end', () => {
        const seen: SeenRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: raw ? (JSON.parse(raw) as Record<string, unknown>) : {} };
        this.requests.push(seen);
        this.inFlight++;
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
        const reply = this.script.shift() ?? this.fallback(seen);
        const finish = () => {
          this.inFlight--;
          res.writeHead(reply.status, { 'content-type': 'application/json', ...(reply.headers ?? {}) });
          res.end(JSON.stringify(reply.body));
        };
        if (reply.hang) {
          this.hung.push(res);
          res.on('close', () => this.inFlight--);
          return;
        }
        if (reply.delayMs) setTimeout(finish, reply.delayMs);
        else finish();
      });
    });
  }

  /** The next requests get these replies, in order; after them, the fallback. */
  then(...replies: Reply[]): this {
    this.script.push(...replies);
    return this;
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const r of this.hung) r.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const USAGE_IN = 1843;
const USAGE_OUT = 612;
const RUST_REPLY = '```rust\n#[cfg(test)]\nmod tests {\n    use super::*;\n    #[test]\n    fn area_of_unit_square() { assert_eq!(area(1.0, 1.0), 1.0); }\n}\n```';

function anthropicMessage(model: string, text = RUST_REPLY): Reply {
  return {
    status: 200,
    headers: { 'request-id': 'req_011CTestRequest' },
    body: {
      id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
      type: 'message',
      role: 'assistant',
      model,
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: USAGE_IN, output_tokens: USAGE_OUT, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, service_tier: 'standard' },
    },
  };
}

function openaiCompletion(model: string, text = RUST_REPLY): Reply {
  return {
    status: 200,
    headers: { 'x-request-id': 'req_abc123' },
    body: {
      id: 'chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG',
      object: 'chat.completion',
      created: 1741570283,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null, annotations: [] }, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: USAGE_IN, completion_tokens: USAGE_OUT, total_tokens: USAGE_IN + USAGE_OUT },
      service_tier: 'default',
      system_fingerprint: 'fp_test',
    },
  };
}

const anthropicError = (status: number, type: string, message: string, headers?: Record<string, string>): Reply => ({
  status,
  headers,
  body: { type: 'error', error: { type, message }, request_id: 'req_011CErr' },
});

const openaiError = (status: number, type: string, message: string, headers?: Record<string, string>): Reply => ({
  status,
  headers,
  body: { error: { message, type, param: null, code: null } },
});

const TASK: TaskRecord = {
  task_id: 7,
  id: 'a1b2c3d4e5f60718',
  function_name: 'area',
  file_path: 'geometry-rs/src/shapes.rs',
  focal_code: 'pub fn area(w: f64, h: f64) -> f64 { w * h }',
  file_content: '',
  language: 'rust',
  function_component: { name: 'area', signature: 'pub fn area(w: f64, h: f64) -> f64', start_line: 3, end_line: 3 },
  metadata: { class_name: '', class_signature: '' },
};

const SYSTEM = 'You are an expert Rust developer specializing in test-driven development (TDD) and writing high-quality unit tests.';

function request(over: Partial<CompletionRequest> & { model?: string; temperature?: number; topP?: number; maxTokens?: number } = {}): CompletionRequest {
  const { model = 'claude-sonnet-4-6', temperature = 0, topP = 1, maxTokens = 4096, ...rest } = over;
  return {
    system: SYSTEM,
    messages: [{ role: 'user', content: 'Generate unit tests for this Rust function from geometry-rs/src/shapes.rs:' }],
    params: { model, temperature, topP, maxTokens },
    task: TASK,
    language: 'rust',
    sample: 0,
    round: 0,
    ...rest,
  };
}

const silent = () => undefined;

describe('providers', function () {
  const servers: FakeApi[] = [];
  const tmpDirs: string[] = [];
  async function serve(fallback: (req: SeenRequest) => Reply): Promise<{ api: FakeApi; url: string }> {
    const api = new FakeApi(fallback);
    servers.push(api);
    return { api, url: await api.start() };
  }
  function tmpDir(): string {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-providers-'));
    tmpDirs.push(d);
    return d;
  }
  function make(spec: Partial<ProviderSpec> & Pick<ProviderSpec, 'provider'>): Provider {
    return createProvider({ model: 'unused', env: {}, baseDelayMs: 5, log: silent, ...spec });
  }
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.stop()));
    for (const d of tmpDirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  describe('anthropic (Messages API)', () => {
    it('sends model, system, messages and max_tokens, authenticates, and reads text, usage and cost', async () => {
      const { api, url } = await serve((r) => anthropicMessage(String(r.body.model)));
      const p = make({ provider: 'anthropic', baseUrl: url, apiKey: ANTHROPIC_KEY });
      const conversation: ChatMessage[] = [
        { role: 'user', content: 'Generate unit tests for this Rust function' },
        { role: 'assistant', content: '```rust\nfn broken() {}\n```' },
        { role: 'user', content: 'You previously generated a test for this function, but it failed.' },
      ];
      const r = await p.complete(request({ model: 'claude-haiku-4-5-20251001', messages: conversation, maxTokens: 2048 }));

      assert.equal(api.requests.length, 1);
      const seen = api.requests[0]!;
      assert.equal(seen.method, 'POST');
      assert.equal(seen.url, '/v1/messages');
      assert.equal(seen.body.model, 'claude-haiku-4-5-20251001');
      assert.equal(seen.body.system, SYSTEM);
      assert.deepEqual(seen.body.messages, conversation);
      assert.equal(seen.body.max_tokens, 2048);
      // The SDK's API version (2026-10-21) rejects sampling fields at any value, so they stay out.
      assert.equal(seen.headers['anthropic-version'], '2026-10-21');
      assert.ok(!('temperature' in seen.body) && !('top_p' in seen.body), JSON.stringify(seen.body));
      const auth = String(seen.headers.authorization ?? seen.headers['x-api-key'] ?? '');
      assert.ok(auth.includes(ANTHROPIC_KEY), 'the key is sent in an auth header');

      assert.equal(r.text, RUST_REPLY);
      assert.deepEqual(r.usage, { inputTokens: USAGE_IN, outputTokens: USAGE_OUT });
      const price = DEFAULT_PRICES['claude-haiku-4-5']!;
      assert.ok(r.costUsd !== null && Math.abs(r.costUsd - (USAGE_IN * price.input + USAGE_OUT * price.output) / 1e6) < 1e-12);
      assert.equal(r.cached, false);
    });

    it('sends temperature (and top_p when it is not the default 1) on API version 2023-06-01', async () => {
      const { api, url } = await serve((r) => anthropicMessage(String(r.body.model)));
      const p = make({ provider: 'anthropic', baseUrl: url, apiKey: ANTHROPIC_KEY, apiVersion: '2023-06-01' });
      await p.complete(request({ temperature: 0, topP: 1 }));
      await p.complete(request({ temperature: 0.2, topP: 0.9 }));
      const [a, b] = api.requests;
      assert.equal(a!.headers['anthropic-version'], '2023-06-01');
      assert.equal(a!.body.temperature, 0);
      assert.ok(!('top_p' in a!.body));
      assert.equal(b!.body.temperature, 0.2);
      assert.equal(b!.body.top_p, 0.9);
    });

    it('takes the key and base URL from the environment, and names the variable when the key is missing', async () => {
      const { api, url } = await serve((r) => anthropicMessage(String(r.body.model)));
      const p = createProvider({ provider: 'anthropic', model: 'x', env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY, ANTHROPIC_BASE_URL: url }, log: silent });
      await p.complete(request());
      assert.equal(api.requests.length, 1);
      assert.throws(() => createProvider({ provider: 'anthropic', model: 'x', env: {} }), /ANTHROPIC_API_KEY/);
      assert.throws(() => createProvider({ provider: 'openai', model: 'x', env: {} }), /OPENAI_API_KEY/);
    });
  });

  describe('openai (Chat Completions)', () => {
    it('sends the system message first, then the conversation, with model, temperature, top_p and max_tokens', async () => {
      const { api, url } = await serve((r) => openaiCompletion(String(r.body.model)));
      const p = make({ provider: 'openai', baseUrl: `${url}/v1`, apiKey: OPENAI_KEY });
      const r = await p.complete(request({ model: 'gpt-4.1-2025-04-14', temperature: 0, topP: 1, maxTokens: 4096 }));

      assert.equal(api.requests.length, 1);
      const seen = api.requests[0]!;
      assert.equal(seen.url, '/v1/chat/completions');
      assert.equal(seen.body.model, 'gpt-4.1-2025-04-14');
      assert.deepEqual(seen.body.messages, [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: 'Generate unit tests for this Rust function from geometry-rs/src/shapes.rs:' },
      ]);
      assert.equal(seen.body.temperature, 0);
      assert.equal(seen.body.top_p, 1);
      assert.equal(seen.body.max_tokens, 4096);
      assert.ok(!('max_completion_tokens' in seen.body));
      assert.equal(seen.headers.authorization, `Bearer ${OPENAI_KEY}`);

      assert.equal(r.text, RUST_REPLY);
      assert.deepEqual(r.usage, { inputTokens: USAGE_IN, outputTokens: USAGE_OUT });
      assert.equal(r.costUsd, costUsd('gpt-4.1', r.usage));
      assert.ok(r.costUsd !== null && r.costUsd > 0);
    });

    it('uses max_completion_tokens and leaves sampling out for reasoning models, unless told otherwise', async () => {
      const { api, url } = await serve((r) => openaiCompletion(String(r.body.model)));
      await make({ provider: 'openai', baseUrl: url, apiKey: OPENAI_KEY }).complete(request({ model: 'gpt-5-mini', maxTokens: 1000 }));
      await make({ provider: 'openai', baseUrl: url, apiKey: OPENAI_KEY, tokenLimitField: 'max_tokens', sampling: 'send' }).complete(request({ model: 'o3', maxTokens: 1000 }));
      const [auto, forced] = api.requests;
      assert.equal(auto!.body.max_completion_tokens, 1000);
      assert.ok(!('max_tokens' in auto!.body) && !('temperature' in auto!.body) && !('top_p' in auto!.body));
      assert.equal(forced!.body.max_tokens, 1000);
      assert.equal(forced!.body.temperature, 0);
    });
  });

  describe('openai-compatible', () => {
    it('talks to any base URL, sends no Authorization header without a key, and reports no cost', async () => {
      const { api, url } = await serve((r) => openaiCompletion(String(r.body.model)));
      const p = make({ provider: 'openai-compatible', model: 'qwen2.5-coder:7b', baseUrl: `${url}/engines/v1` });
      const r = await p.complete(request({ model: 'qwen2.5-coder:7b', temperature: 0, maxTokens: 512 }));
      const seen = api.requests[0]!;
      assert.equal(seen.url, '/engines/v1/chat/completions');
      assert.equal(seen.body.model, 'qwen2.5-coder:7b');
      assert.equal(seen.body.max_tokens, 512);
      assert.equal(seen.body.temperature, 0);
      assert.equal(seen.headers.authorization, undefined);
      assert.equal(r.costUsd, null);
      assert.equal(r.text, RUST_REPLY);
    });

    it('sends a key when one is set, and needs a base URL', async () => {
      const { api, url } = await serve((r) => openaiCompletion(String(r.body.model)));
      const p = createProvider({ provider: 'openai-compatible', model: 'm', baseUrl: url, env: { OPENAI_COMPATIBLE_API_KEY: 'litellm-key-0123456789' }, log: silent });
      await p.complete(request({ model: 'm' }));
      assert.equal(api.requests[0]!.headers.authorization, 'Bearer litellm-key-0123456789');
      assert.throws(() => createProvider({ provider: 'openai-compatible', model: 'm', env: {} }), /base URL/);
    });
  });

  describe('retries', () => {
    it('retries a 429 exactly once when the next answer succeeds, honouring retry-after-ms', async () => {
      const { api, url } = await serve((r) => anthropicMessage(String(r.body.model)));
      api.then(anthropicError(429, 'rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit', { 'retry-after-ms': '20', 'retry-after': '1' }));
      const retries: number[] = [];
      const p = make({ provider: 'anthropic', baseUrl: url, apiKey: ANTHROPIC_KEY, onRetry: (i) => retries.push(i.delayMs) });
      const r = await p.complete(request());
      assert.equal(api.requests.length, 2);
      assert.deepEqual(retries, [20]);
      assert.equal(r.text, RUST_REPLY);
    });

    it('retries a 500 twice when the third answer succeeds', async () => {
      const { api, url } = await serve((r) => openaiCompletion(String(r.body.model)));
      api.then(openaiError(500, 'server_error', 'The server had an error while processing your request.'), openaiError(500, 'server_error', 'again'));
      const p = make({ provider: 'openai', baseUrl: url, apiKey: OPENAI_KEY });
      const r = await p.complete(request({ model: 'gpt-4o' }));
      assert.equal(api.requests.length, 3);
      assert.equal(r.text, RUST_REPLY);
    });

    it('gives up after maxRetries and says so', async () => {
      const { api, url } = await serve(() => anthropicError(529, 'overloaded_error', 'Overloaded'));
      const p = make({ provider: 'anthropic', baseUrl: url, apiKey: ANTHROPIC_KEY, maxRetries: 2 });
      await assert.rejects(p.complete(request()), (e: Error) => /529/.test(e.message) && /3 attempts/.test(e.message));
      assert.equal(api.requests.length, 3);
    });

    for (const [name, provider, key, env, reply] of [
      ['anthropic', 'anthropic', ANTHROPIC_KEY, 'ANTHROPIC_API_KEY', anthropicError(401, 'authentication_error', `invalid x-api-key: ${ANTHROPIC_KEY}`)],
      ['openai', 'openai', OPENAI_KEY, 'OPENAI_API_KEY', openaiError(401, 'invalid_request_error', `Incorrect API key provided: ${OPENAI_KEY}.`)],
    ] as const) {
      it(`${name}: a 401 fails at once, names ${env} and never shows the key (even when the server echoes it)`, async () => {
        const { api, url } = await serve(() => reply);
        const p = make({ provider, baseUrl: url, apiKey: key });
        await assert.rejects(p.complete(request()), (e: Error) => {
          assert.ok(e instanceof ProviderError, String(e));
          assert.equal(e.status, 401);
          assert.match(e.message, new RegExp(env));
          assert.ok(!e.message.includes(key), e.message);
          assert.ok(!(e.stack ?? '').includes(key));
          return true;
        });
        assert.equal(api.requests.length, 1);
      });
    }

    it('does not retry a 400 or a 404', async () => {
      const { api, url } = await serve(() => openaiError(400, 'invalid_request_error', "Unsupported parameter: 'max_tokens'"));
      api.then(openaiError(404, 'invalid_request_error', 'The model `gpt-9` does not exist'));
      const p = make({ provider: 'openai', baseUrl: url, apiKey: OPENAI_KEY });
      await assert.rejects(p.complete(request({ model: 'gpt-9' })), /404.*model name/);
      await assert.rejects(p.complete(request({ model: 'gpt-4o' })), /400.*Unsupported parameter/);
      assert.equal(api.requests.length, 2);
    });

    it('abandons an attempt that takes longer than the timeout and retries it', async () => {
      const { api, url } = await serve((r) => openaiCompletion(String(r.body.model)));
      api.then({ status: 200, body: {}, hang: true });
      const kinds: string[] = [];
      const p = make({ provider: 'openai', baseUrl: url, apiKey: OPENAI_KEY, timeoutMs: 300, onRetry: (i) => kinds.push(i.error.kind) });
      const r = await p.complete(request({ model: 'gpt-4o' }));
      assert.equal(api.requests.length, 2);
      assert.deepEqual(kinds, ['timeout']);
      assert.equal(r.text, RUST_REPLY);
    });

    it('retries when the server cannot be reached, then fails with the address', async () => {
      const { url } = await serve(() => anthropicMessage('x'));
      await Promise.all(servers.splice(0).map((s) => s.stop()));
      const kinds: string[] = [];
      const p = make({ provider: 'anthropic', baseUrl: url, apiKey: ANTHROPIC_KEY, maxRetries: 1, onRetry: (i) => kinds.push(i.error.kind) });
      await assert.rejects(p.complete(request()), (e: Error) => e.message.includes(url) && !e.message.includes(ANTHROPIC_KEY));
      assert.deepEqual(kinds, ['network']);
    });

    it('never has more requests in flight than the concurrency limit', async () => {
      const { api, url } = await serve((r) => ({ ...openaiCompletion(String(r.body.model)), delayMs: 60 }));
      const p = make({ provider: 'openai', baseUrl: url, apiKey: OPENAI_KEY, concurrency: 3 });
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => p.complete(request({ model: 'gpt-4o', sample: i }))));
      assert.equal(results.length, 12);
      assert.equal(api.requests.length, 12);
      assert.ok(api.maxInFlight <= 3, `max in flight ${api.maxInFlight}`);
      assert.ok(api.maxInFlight >= 2, `the limit is used, not serialised: ${api.maxInFlight}`);
    });

    it('computes backoff from retry-after when given, else exponentially with jitter, capped', () => {
      const opts = { baseDelayMs: 100, maxDelayMs: 1000, random: () => 0.5 };
      const plain = new ProviderError('x', 'http', true, 503);
      assert.equal(backoffDelay(1, plain, opts), 75);
      assert.equal(backoffDelay(3, plain, opts), 300);
      assert.equal(backoffDelay(10, plain, opts), 750);
      assert.equal(backoffDelay(1, new ProviderError('x', 'http', true, 429, 250), opts), 250);
      assert.equal(backoffDelay(1, new ProviderError('x', 'http', true, 429, 99_000), opts), 1000);
      const h = (o: Record<string, string>) => ({ get: (k: string) => o[k] ?? null });
      assert.equal(retryAfterFrom(h({ 'retry-after-ms': '1500', 'retry-after': '9' })), 1500);
      assert.equal(retryAfterFrom(h({ 'retry-after': '2' })), 2000);
      assert.equal(retryAfterFrom(h({ 'retry-after': new Date(10_000).toUTCString() }), 4_000), 6_000);
      assert.equal(retryAfterFrom(h({})), undefined);
    });
  });

  describe('response cache', () => {
    it('answers a repeated request from disk: no request reaches the server, no cost, cached: true', async () => {
      const { api, url } = await serve((r) => anthropicMessage(String(r.body.model)));
      const cacheDir = tmpDir();
      const first = await make({ provider: 'anthropic', baseUrl: url, apiKey: ANTHROPIC_KEY, cacheDir }).complete(request());
      // A new provider on the same folder: a rerun in another process.
      const again = make({ provider: 'anthropic', baseUrl: url, apiKey: ANTHROPIC_KEY, cacheDir });
      assert.equal(again.id, 'anthropic', 'records name the real provider through the wrappers');
      const second = await again.complete(request());
      assert.equal(api.requests.length, 1);
      assert.equal(first.cached, false);
      assert.ok(first.costUsd !== null && first.costUsd > 0);
      assert.equal(second.cached, true);
      assert.equal(second.costUsd, 0);
      assert.equal(second.text, first.text);
      assert.deepEqual(second.usage, first.usage);
      await again.complete(request({ temperature: 0.7 }));
      assert.equal(api.requests.length, 2, 'other parameters are another request');
    });

    it('stores one file per entry, named by the request hash, with no temporary files left behind', async () => {
      const { api, url } = await serve((r) => openaiCompletion(String(r.body.model)));
      const cacheDir = tmpDir();
      const p = make({ provider: 'openai', baseUrl: url, apiKey: OPENAI_KEY, cacheDir });
      const reqs = Array.from({ length: 6 }, (_, i) => request({ model: 'gpt-4o', messages: [{ role: 'user', content: `prompt ${i}` }] }));
      await Promise.all([...reqs, ...reqs].map((r) => p.complete(r)));
      const files = fs.readdirSync(cacheDir, { recursive: true }).map(String).filter((f) => f.endsWith('.json'));
      const expected = reqs.map((r) => requestHash('openai', r.params, r.system, r.messages, url));
      assert.deepEqual(files.map((f) => path.basename(f, '.json')).sort(), [...new Set(expected)].sort());
      assert.deepEqual(fs.readdirSync(cacheDir, { recursive: true }).map(String).filter((f) => f.endsWith('.tmp')), []);
      assert.ok(api.requests.length >= 6 && api.requests.length <= 12);
      for (const f of files) assert.ok(!fs.readFileSync(path.join(cacheDir, f), 'utf8').includes(OPENAI_KEY));
    });

    it('does not cache failures', async () => {
      const { api, url } = await serve((r) => anthropicMessage(String(r.body.model)));
      api.then(anthropicError(400, 'invalid_request_error', 'temperature: Extra inputs are not permitted'));
      const p = make({ provider: 'anthropic', baseUrl: url, apiKey: ANTHROPIC_KEY, cacheDir: tmpDir() });
      await assert.rejects(p.complete(request()), /400/);
      const r = await p.complete(request());
      assert.equal(r.cached, false);
      assert.equal(api.requests.length, 2);
    });

    it('hashes what changes the reply and nothing else', () => {
      const params = { model: 'm', temperature: 0, maxTokens: 4096, topP: 1 };
      const msgs: ChatMessage[] = [{ role: 'user', content: 'u' }];
      const h = requestHash('openai', params, 's', msgs);
      assert.match(h, /^[0-9a-f]{64}$/);
      assert.equal(requestHash('openai', { topP: 1, maxTokens: 4096, temperature: 0, model: 'm' }, 's', msgs), h);
      for (const other of [
        requestHash('anthropic', params, 's', msgs),
        requestHash('openai', { ...params, model: 'n' }, 's', msgs),
        requestHash('openai', { ...params, maxTokens: 100 }, 's', msgs),
        requestHash('openai', params, 't', msgs),
        requestHash('openai', params, 's', [{ role: 'user', content: 'v' }]),
        requestHash('openai', params, 's', msgs, 'http://127.0.0.1:8000/v1'),
      ])
        assert.notEqual(other, h);
      // One server however its URL is spelled (trailing slash, host case, credentials in the URL).
      const at = requestHash('openai', params, 's', msgs, 'http://127.0.0.1:8000/v1');
      assert.equal(requestHash('openai', params, 's', msgs, 'http://user:pw@127.0.0.1:8000/v1/'), at);
      assert.notEqual(requestHash('openai', params, 's', msgs, 'http://127.0.0.1:8001/v1'), at);
    });
  });

  describe('replay', () => {
    function replayFile(lines: unknown[]): string {
      const f = path.join(tmpDir(), 'replay.jsonl');
      fs.writeFileSync(f, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
      return f;
    }

    it('returns recorded generation records by stable id, or language and task_id, per sample and round', async () => {
      const f = replayFile([
        { id: TASK.id, task_id: 7, language: 'rust', sample: 0, round: 0, raw_response: 'first', test_code: 'x', usage: { inputTokens: 10, outputTokens: 5 } },
        { id: TASK.id, task_id: 7, language: 'rust', sample: 0, round: 1, raw_response: 'repaired', test_code: 'y' },
        { task_id: 8, language: 'rust', sample: 1, round: 0, raw_response: 'by task id', test_code: 'z' },
        { task_id: 8, language: 'go', sample: 1, round: 0, raw_response: 'another language', test_code: 'w' },
      ]);
      const p = make({ provider: 'replay', replayFile: f });
      const r0 = await p.complete(request());
      assert.equal(r0.text, 'first');
      assert.deepEqual(r0.usage, { inputTokens: 10, outputTokens: 5 });
      assert.equal(r0.costUsd, null);
      assert.equal((await p.complete(request({ round: 1 }))).text, 'repaired');
      const other = { ...TASK, id: undefined, task_id: 8 };
      assert.equal((await p.complete(request({ task: other, sample: 1 }))).text, 'by task id');
      assert.equal((await p.complete(request({ task: other, sample: 1, language: 'go' }))).text, 'another language');
    });

    it("reads the release's prompts_responses.jsonl and processed.jsonl", async () => {
      const pr = make({ provider: 'replay', replayFile: replayFile([{ task_id: 7, prompt: 'p', response: RUST_REPLY, status: 'success' }, { task_id: 9, prompt: 'p', response: '', status: 'error', error: 'rate limited' }]) });
      assert.equal((await pr.complete(request())).text, RUST_REPLY);
      await assert.rejects(pr.complete(request({ task: { ...TASK, id: undefined, task_id: 9 } })), /task 9.*failed.*rate limited/);
      const processed = make({ provider: 'replay', replayFile: replayFile([{ task_id: 7, response: ['test one', 'test two'], status: 'success' }]) });
      assert.equal((await processed.complete(request({ sample: 1 }))).text, 'test two');
    });

    it('fails clearly, naming the task, when nothing was recorded for it', async () => {
      const p = make({ provider: 'replay', replayFile: replayFile([{ task_id: 7, language: 'rust', sample: 0, round: 0, raw_response: 'r', test_code: 'r' }]) });
      await assert.rejects(p.complete(request({ sample: 3 })), (e: Error) => {
        assert.match(e.message, /no recorded response/);
        assert.match(e.message, /task 7/);
        assert.match(e.message, /area/);
        assert.match(e.message, /sample 3/);
        return true;
      });
      assert.throws(() => make({ provider: 'replay', replayFile: '/nonexistent/replay.jsonl' }), /no such file/);
    });
  });

  describe('pricing and redaction', () => {
    it('prices dated snapshots like their alias, leaves unknown models at null, and takes overrides from a file', () => {
      assert.deepEqual(priceOf('claude-haiku-4-5-20251001'), DEFAULT_PRICES['claude-haiku-4-5']);
      assert.deepEqual(priceOf('gpt-4o-2024-11-20'), DEFAULT_PRICES['gpt-4o']);
      assert.equal(priceOf('gpt-4o-pro'), null);
      assert.equal(costUsd('llama3.1:8b', { inputTokens: 1000, outputTokens: 1000 }), null);
      const f = path.join(tmpDir(), 'prices.json');
      fs.writeFileSync(f, JSON.stringify({ 'my-model': { input: 2, output: 4 } }));
      assert.equal(costUsd('my-model', { inputTokens: 500_000, outputTokens: 250_000 }, loadPriceFile(f)), 2);
      fs.writeFileSync(f, JSON.stringify({ 'my-model': { input: 'two' } }));
      assert.throws(() => loadPriceFile(f), /my-model/);
    });

    it('recognises reasoning models by name', () => {
      for (const m of ['o3', 'o4-mini', 'gpt-5', 'gpt-5.4-mini']) assert.ok(isOpenAIReasoningModel(m), m);
      for (const m of ['gpt-4o', 'gpt-4.1', 'gpt-5-chat-latest']) assert.ok(!isOpenAIReasoningModel(m), m);
    });

    it('redacts registered keys and anything shaped like a key or an auth header', () => {
      registerSecret('custom-secret-value-42');
      const text = redact('key custom-secret-value-42; sk-ant-api03-abcdefghijkl; Authorization: Bearer abcdefghijklmnop; x-api-key: zyxwvutsrqpo');
      for (const s of ['custom-secret-value-42', 'sk-ant-api03-abcdefghijkl', 'abcdefghijklmnop', 'zyxwvutsrqpo']) assert.ok(!text.includes(s), text);
      assert.equal(redact('no secrets here: HTTP 429'), 'no secrets here: HTTP 429');
    });
  });
});
