import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Evaluation } from '../../src/engine/execute/evaluate';
import { feedbackOf } from '../../src/engine/execute/feedback';
import { generateOne, repairPrompt } from '../../src/engine/generate/generate';
import { createProvider, type ProviderSpec } from '../../src/engine/generate/providers';
import type { Provider } from '../../src/engine/generate/types';
import { toResultRecord } from '../../src/engine/store/results';
import { redact, REDACTED, registerSecret } from '../../src/engine/util/redact';
import { request, serversAndDirs, TASK, type RawReply } from '../helpers/hostile-providers';

/*
 * A provider is a server on the network: it can answer 200 with anything, echo our key, send
 * gigabytes, or accept the connection and never answer. Every attack below is a real HTTP server on
 * 127.0.0.1 speaking (or pretending to speak) the provider's wire format, driven through the real SDKs.
 */

const KEY = 'sk-proj-HOSTILE-provider-key-0123456789abcdef';
const ANTHROPIC_KEY = 'sk-ant-api03-HOSTILE-provider-key-9876543210';
const RUST = '```rust\n#[test]\nfn t() { assert_eq!(area(1.0, 1.0), 1.0); }\n```';

const json = (v: unknown): RawReply => ({ body: JSON.stringify(v) });
const chat = (text: unknown, model = 'm'): RawReply =>
  json({ id: 'c', object: 'chat.completion', created: 1, model, choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 4 } });
const message = (content: unknown): RawReply =>
  json({ id: 'msg', type: 'message', role: 'assistant', model: 'claude', content, stop_reason: 'end_turn', usage: { input_tokens: 3, output_tokens: 4 } });

const cacheFiles = (dir: string): string[] =>
  fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith('.json')) : [];

describe('hostile providers', function () {
  this.timeout(60_000);
  const { serve, tmp } = serversAndDirs();
  const make = (spec: Partial<ProviderSpec> & Pick<ProviderSpec, 'provider'>): Provider =>
    createProvider({ model: 'm', env: {}, baseDelayMs: 5, maxRetries: 0, log: () => undefined, ...spec });

  describe('a reply without a completion shape is an error, never an empty test, never cached', () => {
    const openaiShapes: Array<[string, RawReply, RegExp]> = [
      ['an HTML page with status 200', { contentType: 'text/html', body: '<!DOCTYPE html><html><body>Sign in to the Wi-Fi</body></html>' }, /not JSON.*<!DOCTYPE html>/],
      ['a JSON body that is no chat completion', json({ hello: 'world', model: 'm' }), /no "choices"/],
      ['empty choices', json({ id: 'c', object: 'chat.completion', choices: [], usage: {} }), /"choices" is empty/],
      ['a number as content', chat(42), /content is number/],
      ['a list as content', chat([{ type: 'text', text: 'x' }]), /content is object/],
      ['null content', chat(null), /content is null/],
      ['empty text', chat('   '), /text is empty/],
      ['a JSON array', json([1, 2, 3]), /not a JSON object/],
    ];
    for (const [what, reply, why] of openaiShapes) {
      it(`openai-compatible: ${what}`, async () => {
        const s = await serve(() => reply);
        const cacheDir = tmp();
        const p = make({ provider: 'openai-compatible', baseUrl: `${s.url}/v1`, cacheDir });
        await assert.rejects(p.complete(request()), (e: Error) => {
          assert.match(e.message, /not a usable completion/);
          assert.match(e.message, why);
          return true;
        });
        assert.deepEqual(cacheFiles(cacheDir), [], 'nothing cached');
        const record = await generateOne({ provider: p, params: request().params, prompt: { system: 's', user: 'u', mode: 'standard', language: 'rust' }, messages: [{ role: 'user', content: 'u' }], task: TASK, language: 'rust', sample: 0, round: 0 });
        assert.match(record.error ?? '', /not a usable completion/, 'the generation records the error');
        assert.equal(record.test_code, '');
      });
    }

    const anthropicShapes: Array<[string, RawReply, RegExp]> = [
      ['an HTML page with status 200', { contentType: 'text/html', body: '<html><h1>502 Bad Gateway</h1></html>' }, /not JSON/],
      ['a chat completion sent to the Messages API', chat(RUST), /no "content" list/],
      ['content as a string', message('hello'), /no "content" list/],
      ['no text block', message([{ type: 'tool_use', id: 't', name: 'x', input: {} }]), /no text block/],
      ['a text block whose text is a number', message([{ type: 'text', text: 7 }]), /"text" is number/],
    ];
    for (const [what, reply, why] of anthropicShapes) {
      it(`anthropic: ${what}`, async () => {
        const s = await serve(() => reply);
        const cacheDir = tmp();
        const p = make({ provider: 'anthropic', baseUrl: s.url, apiKey: ANTHROPIC_KEY, cacheDir });
        await assert.rejects(p.complete(request('claude-x')), (e: Error) => /not a usable completion/.test(e.message) && why.test(e.message));
        assert.deepEqual(cacheFiles(cacheDir), []);
      });
    }

    it('a good reply after a bad one is answered (and then cached): the error was not', async () => {
      let n = 0;
      const s = await serve(() => (n++ === 0 ? json({ nope: true }) : chat(RUST)));
      const cacheDir = tmp();
      const p = make({ provider: 'openai-compatible', baseUrl: s.url, cacheDir });
      await assert.rejects(p.complete(request()), /not a usable completion/);
      assert.equal((await p.complete(request())).text, RUST);
      assert.equal((await p.complete(request())).cached, true);
      assert.equal(s.requests.length, 2);
    });
  });

  it('the cache key includes the endpoint: two servers naming their model alike do not share answers', async () => {
    const a = await serve(() => chat('```rust\n// from server A\n```', 'llama'));
    const b = await serve(() => chat('```rust\n// from server B\n```', 'llama'));
    const cacheDir = tmp();
    const fromA = await make({ provider: 'openai-compatible', baseUrl: `${a.url}/v1`, cacheDir }).complete(request('llama'));
    const fromB = await make({ provider: 'openai-compatible', baseUrl: `${b.url}/v1`, cacheDir }).complete(request('llama'));
    assert.match(fromA.text, /server A/);
    assert.match(fromB.text, /server B/);
    assert.equal(fromB.cached, false);
    assert.equal(b.requests.length, 1, 'server B was asked');
    // The same server with a trailing slash is the same endpoint: answered from the cache.
    const again = await make({ provider: 'openai-compatible', baseUrl: `${a.url}/v1/`, cacheDir }).complete(request('llama'));
    assert.equal(again.cached, true);
    assert.match(again.text, /server A/);
  });

  describe('size cap', () => {
    it('a reply of more than 1 MiB of text is refused, not cached', async () => {
      const s = await serve(() => chat('```rust\n' + '// padding\n'.repeat(110_000) + '```'));
      const cacheDir = tmp();
      const p = make({ provider: 'openai-compatible', baseUrl: s.url, cacheDir });
      await assert.rejects(p.complete(request()), /over the 1 MiB limit/);
      assert.deepEqual(cacheFiles(cacheDir), []);
    });

    it('a response body past the body cap is cut off while reading (declared or not)', async () => {
      // 12 MiB of JSON whose text would be tiny once parsed: the body cap stops it, not the text cap.
      const pad = ' '.repeat(12 * 1024 * 1024);
      const s = await serve(() => ({ body: `{"choices":[{"message":{"content":"x"}}],"pad":"${pad}"}` }));
      const p = make({ provider: 'openai-compatible', baseUrl: s.url });
      await assert.rejects(p.complete(request()), /response body is .*over the 8 MiB limit/);
      const anthropic = make({ provider: 'anthropic', baseUrl: s.url, apiKey: ANTHROPIC_KEY });
      await assert.rejects(anthropic.complete(request('claude-x')), /over the 8 MiB limit/);
      assert.equal(s.requests.length, 2, 'refused, not retried');
    });

    it('a declared Content-Length over the body cap is refused before reading', async () => {
      const body = JSON.stringify({ choices: [{ message: { content: 'x'.repeat(9 * 1024 * 1024) } }] });
      const s = await serve(() => ({ body, headers: { 'content-length': String(Buffer.byteLength(body)) } }));
      await assert.rejects(make({ provider: 'openai-compatible', baseUrl: s.url }).complete(request()), /response body is 9\.0 MiB, over the 8 MiB limit/);
    });
  });

  describe('redaction before storing', () => {
    const ENV_NAME = 'XRT_HOSTILE_DEPLOY_TOKEN';
    const ENV_SECRET = 'env-secret-value-4711-abcdef';
    beforeEach(() => (process.env[ENV_NAME] = ENV_SECRET));
    afterEach(() => delete process.env[ENV_NAME]);

    it('a reply echoing the API key (and a secret from the environment) is stored as «redacted»: reply, cache, generation', async () => {
      const s = await serve(() => chat(`\`\`\`rust\n// key ${KEY}\n// env ${ENV_SECRET}\n#[test]\nfn t() {}\n\`\`\``));
      const cacheDir = tmp();
      const p = make({ provider: 'openai', baseUrl: s.url, apiKey: KEY, cacheDir });
      const record = await generateOne({ provider: p, params: request().params, prompt: { system: 's', user: 'u', mode: 'standard', language: 'rust' }, messages: [{ role: 'user', content: 'u' }], task: TASK, language: 'rust', sample: 0, round: 0 });
      for (const text of [record.raw_response, record.test_code, ...cacheFiles(cacheDir).map((f) => fs.readFileSync(path.join(cacheDir, f), 'utf8'))]) {
        assert.ok(!text.includes(KEY) && !text.includes(ENV_SECRET), text);
        assert.ok(text.includes(REDACTED), text);
      }
      assert.match(record.test_code, /fn t\(\) \{\}/, 'the rest of the test is kept');
      const cached = await make({ provider: 'openai', baseUrl: s.url, apiKey: KEY, cacheDir }).complete(request('m', 'u'));
      assert.equal(cached.cached, true);
      assert.ok(!cached.text.includes(KEY));
    });

    it('the repair prompt does not carry what the test printed of a secret', () => {
      const printed = `--- FAIL: TestArea\n  cat ~/.aws/credentials: aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n  token ${ENV_SECRET}\n  ghp_abcdefghijklmnopqrstuvwxyz0123456789\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----\nFAIL`;
      const e = evaluation(printed);
      const feedback = feedbackOf(e);
      const prompt = repairPrompt('go', 'func TestArea(t *testing.T) {}', feedback);
      for (const text of [feedback, prompt]) {
        for (const secret of ['AKIAIOSFODNN7EXAMPLE', ENV_SECRET, 'ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ']) {
          assert.ok(!text.includes(secret), `${secret} in ${text}`);
        }
        assert.match(text, /--- FAIL: TestArea/, 'the useful part stays');
      }
      // A prompt built from a log that was stored unredacted (an older run being resumed) is redacted too.
      assert.ok(!repairPrompt('go', 'x', `leak ${ENV_SECRET}`).includes(ENV_SECRET));
    });

    it('stored results carry no secret in logs, reason or feedback', () => {
      const e = evaluation(`panic: ${ENV_SECRET} ${KEY}`);
      registerSecret(KEY);
      const r = toResultRecord(TASK, 'func TestArea(t *testing.T) {}', 0, e);
      const stored = JSON.stringify(r);
      assert.ok(!stored.includes(ENV_SECRET) && !stored.includes(KEY), stored);
      assert.ok(r.logs[0]!.includes(REDACTED));
      assert.equal(r.checks[0]!.tests, false, 'the score is untouched');
    });
  });

  describe('redact()', () => {
    it('replaces configured keys, extra secrets, secret-looking environment values and token shapes', () => {
      registerSecret('configured-key-abcdefgh');
      process.env.XRT_HOSTILE_DB_PASSWORD = 'hunter2-but-longer';
      process.env.XRT_HOSTILE_KEYBOARD = 'us-international';
      process.env.XRT_HOSTILE_SHORT_TOKEN = 'abc';
      try {
        const text = [
          'configured-key-abcdefgh',
          'extra-secret-given-here',
          'hunter2-but-longer',
          'sk-ant-api03-abcdefghijklmnop',
          'sk-proj-abcdefghijklmnop',
          'ghp_0123456789abcdefghijABCDEFGHIJ',
          'github_pat_11ABCDEFG0123456789_abcdefghijklmnop',
          'AKIAIOSFODNN7EXAMPLE',
          '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----',
          'Authorization: Bearer abcdefghijklmnop',
        ].join('\n');
        const out = redact(text, ['extra-secret-given-here']);
        for (const line of text.split('\n')) assert.ok(!out.includes(line) || line.startsWith('-----') || line.startsWith('Authorization'), `${line} survived: ${out}`);
        assert.ok(!out.includes('MIIEpAIBAAKCAQEA'));
        assert.ok(!out.includes('abcdefghijklmnop'));
        assert.match(out, /Authorization: Bearer «redacted»/);
        assert.equal(redact(out, ['extra-secret-given-here']), out, 'idempotent');
        const ordinary = 'us-international layout; abc; task-abcdefghijkl; risk-assessment-v2; HTTP 429; --- FAIL: TestArea (0.00s)';
        assert.equal(redact(ordinary), ordinary, 'ordinary text, short values and non-secret names are kept');
      } finally {
        delete process.env.XRT_HOSTILE_DB_PASSWORD;
        delete process.env.XRT_HOSTILE_KEYBOARD;
        delete process.env.XRT_HOSTILE_SHORT_TOKEN;
      }
    });
  });

});

/** A failed Go run whose test phase printed `printed`. */
function evaluation(printed: string): Evaluation {
  return {
    language: 'go',
    executor: 'local',
    placement: {},
    testHash: 'h',
    phases: [{ phase: 'test', argv: ['go', 'test'], exitCode: 1, signal: null, timedOut: false, outputTruncated: false, durationMs: 5, output: printed }],
    testReport: { ran: 1, passed: 0, failed: 1, errored: 0, skipped: 0, outsideErrors: 0, cases: [{ name: 'TestArea', status: 'failed', message: printed }] },
    score: {
      compiled: true,
      passed: false,
      reason: `the test failed: ${printed.split('\n')[1] ?? ''}`,
      coverage: { covered: [], executable: [1] },
      coverageRatio: 0,
      invocation: { invoked: false, strict: false },
      failure: { category: 'logic-assertion', rule: 'r', evidence: printed },
    },
  } as unknown as Evaluation;
}
