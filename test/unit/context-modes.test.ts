import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { openAiCompatibleEmbedder, NoEmbedderError, rankDense } from '../../src/engine/context/dense';
import { checkNeeds, CONTEXT_MODE_SPECS, CONTEXT_MODES, contextModeSpec, MissingContextError, parseContextMode } from '../../src/engine/context/modes';
import type { LspContext } from '../../src/engine/context/types';
import { buildWindows } from '../../src/engine/context/windows';
import { extractRepository } from '../../src/engine/extract/extract';
import { generationOptions, GenerationSettingsError, type GenerationSettings } from '../../src/engine/generate/options';
import { buildPrompt } from '../../src/engine/prompt/templates';
import type { TaskRecord } from '../../src/engine/tasks/record';
import { promptBuilder, providerFrom, type GenerationCliOptions } from '../../src/cli/generation-options';
import { generationOptionsFor, paramsFor, promptFor, providerFor, SettingsError } from '../../src/server/generation';
import { BenchArgsError, validateBenchArgs } from '../../src/shared/bench-options';
import { DEFAULT_ENGINE_SETTINGS, type EngineSettings } from '../../src/shared/protocol';
import { fixture, REPO_ROOT } from '../helpers/paths';
import { hashedBagOfWords, listenOnLoopback } from '../helpers/embedding-server';

const LSP: LspContext = { argumentDefinitions: ['struct P { x: i32 }'], calleeDefinitions: ['fn f() {}'], conditionReferences: [] };

/** An OpenAI-compatible /v1/embeddings server on 127.0.0.1 (hashed bag of words) that wants a key and records what it was asked. */
async function embeddingServer(requiredKey?: string) {
  const calls: Array<{ model: string; inputs: number; auth?: string }> = [];
  const embed = (text: string): number[] => hashedBagOfWords(text, 32);
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const { model, input } = JSON.parse(body) as { model: string; input: string[] };
      calls.push({ model, inputs: input.length, auth: req.headers.authorization });
      if (req.method !== 'POST' || req.url !== '/v1/embeddings' || (requiredKey && req.headers.authorization !== `Bearer ${requiredKey}`)) {
        res.statusCode = requiredKey ? 401 : 404;
        res.end('{"error":{"message":"no"}}');
        return;
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ object: 'list', data: input.map((t, index) => ({ object: 'embedding', index, embedding: embed(t) })) }));
    });
  });
  return { ...(await listenOnLoopback(server)), calls };
}

async function fixtureTask(): Promise<TaskRecord> {
  const { tasks } = await extractRepository(fixture('inventory-go'), { languages: ['go'], repository: { name: 'inventory-go', url: 'fixture', commit: null } });
  const task = tasks.find((t) => t.function_name === 'Restock');
  assert.ok(task, 'Restock is a kept task of inventory-go');
  return task;
}

function editorSettings(overrides: Partial<EngineSettings>): EngineSettings {
  return { ...DEFAULT_ENGINE_SETTINGS, ...overrides };
}

describe('context modes: one registry', () => {
  it('lists each mode once, in the order flags and settings show them, with a label', () => {
    assert.deepEqual(CONTEXT_MODES, ['standard', 'file', 'lsp', 'bm25', 'dense']);
    assert.equal(new Set(CONTEXT_MODE_SPECS.map((m) => m.id)).size, CONTEXT_MODE_SPECS.length);
    for (const id of CONTEXT_MODES) {
      assert.equal(contextModeSpec(id).id, id);
      assert.ok(contextModeSpec(id).label.length > 0, id);
    }
  });

  it('the lists outside the engine offer exactly the registered modes (package.json, the editor\'s bench options)', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
    assert.deepEqual(pkg.contributes.configuration.properties['xrepotest.mode'].enum, [...CONTEXT_MODES]);
    assert.throws(() => validateBenchArgs({ dataset: 'example', mode: 'rag' }), (e: Error) => e instanceof BenchArgsError && e.message.includes(CONTEXT_MODES.join(', ')));
    for (const mode of CONTEXT_MODES) assert.equal(validateBenchArgs({ dataset: 'example', mode }).mode, mode);
  });

  it('refuses an unknown mode, naming the flag or setting it came from', () => {
    assert.throws(() => parseContextMode('rag', '--mode'), /^Error: --mode rag: use one of standard, file, lsp, bm25, dense$/);
    assert.equal(parseContextMode('bm25', '--mode'), 'bm25');
  });

  it('checks what a mode needs before any task, and says how to provide it', () => {
    for (const mode of ['standard', 'file', 'bm25'] as const) assert.doesNotThrow(() => checkNeeds(mode, {}));
    assert.throws(
      () => checkNeeds('dense', { howToProvide: { embedder: 'set the thing' } }),
      (e: Error) => e instanceof NoEmbedderError && /No embedding model is configured/.test(e.message) && e.message.endsWith('\nset the thing'),
    );
    assert.throws(() => checkNeeds('lsp', { howToProvide: { lsp: 'start the servers' } }), (e: Error) => e instanceof MissingContextError && /mode lsp needs an LSP context builder.*: start the servers$/.test(e.message));
    // Published context needs neither: the record carries it.
    assert.doesNotThrow(() => checkNeeds('dense', { published: true }));
    assert.doesNotThrow(() => checkNeeds('lsp', { published: true }));
    assert.doesNotThrow(() => checkNeeds('dense', { embedder: openAiCompatibleEmbedder({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }) }));
  });

  it('each mode renders its own part, and says which part is missing', async () => {
    const task = await fixtureTask();
    assert.equal(contextModeSpec('standard').render({}, task), '');
    assert.match(contextModeSpec('file').render({ file: 'package x' }, task), /^\n#CURRENT FILE: .*\npackage x\n#ENDFILE\n$/);
    assert.match(contextModeSpec('lsp').render({ lsp: LSP }, task), /^#LSP_CONTEXT\n#ARGUMENT_DEFINITIONS\nstruct P/);
    assert.match(contextModeSpec('bm25').render({ windows: [{ file: 'a.go', startLine: 1, endLine: 2, text: 'w', score: 1 }] }, task), /^#RELEVANT CONTEXT\nExample 1:\nw\n#END_OF_CONTEXT/);
    const missing: Array<[string, RegExp]> = [
      ['file', /mode file needs the focal file/],
      ['lsp', /mode lsp needs an LSP context/],
      ['bm25', /mode bm25 needs retrieved windows/],
      ['dense', /mode dense needs retrieved windows/],
    ];
    for (const [mode, message] of missing) assert.throws(() => contextModeSpec(mode as 'file').render({}, task), (e: Error) => e instanceof MissingContextError && message.test(e.message), mode);
  });

  it('published modes read the record, and name the release file when it carries nothing', async () => {
    const task = await fixtureTask();
    const request = { task, language: 'go' as const };
    await assert.rejects(contextModeSpec('bm25').gather(request, { published: true }), /has no published retrieved_contexts_bm25: load the release's RAG file for bm25/);
    await assert.rejects(contextModeSpec('dense').gather(request, { published: true }), /has no published retrieved_contexts_unixcoder/);
    await assert.rejects(contextModeSpec('lsp').gather(request, { published: true }), /carries no published LSP context: load the release's lsp file/);
    const enriched = { ...task, retrieved_contexts_bm25: [{ context: 'func Other() {}', metadata: [{ fpath_tuple: ['x', 'a.go'], start_line_no: 0, end_line_no: 3 }], bm25_score: 2 }] } as TaskRecord;
    assert.deepEqual((await contextModeSpec('bm25').gather({ task: enriched, language: 'go' }, { published: true, k: 5 })).windows, [
      { file: 'x/a.go', startLine: 1, endLine: 3, text: 'func Other() {}', score: 2 },
    ]);
  });
});

describe('generation options from plain settings (CLI and editor alike)', () => {
  const plain = (overrides: Partial<GenerationSettings>): GenerationSettings => ({
    provider: 'baseline',
    credentials: { from: 'settings' },
    mode: 'standard',
    hints: { provider: '<provider>', model: 'give a model', mode: '<mode>', embedding: 'give an endpoint', checkout: 'give a checkout', apiKey: 'give a key', baseUrl: 'give a url', replayFile: 'give a file' },
    ...overrides,
  });

  it('builds provider, decoding, mode and what it needs in one object', () => {
    const options = generationOptions(plain({ mode: 'dense', k: 3, embedding: { baseUrl: 'http://127.0.0.1:9/v1', model: 'e' } }));
    assert.equal(options.provider.id, 'baseline');
    assert.deepEqual(options.params, { model: 'baseline', temperature: 0, maxTokens: 4096, topP: 1 });
    assert.equal(options.mode, 'dense');
    assert.equal(options.prompts.mode, 'dense');
    assert.equal(options.context.k, 3);
    assert.equal(options.context.embedder?.id, 'e @ http://127.0.0.1:9/v1/embeddings');
  });

  it('says, in the caller\'s words, what is missing', () => {
    assert.throws(() => generationOptions(plain({ provider: 'gpt' })), (e: Error) => e instanceof GenerationSettingsError && /^<provider> gpt: use one of anthropic, openai, openai-compatible, replay, baseline$/.test(e.message));
    assert.throws(() => generationOptions(plain({ provider: 'openai' })), /the openai provider needs a model: give a model/);
    assert.throws(() => generationOptions(plain({ provider: 'openai', model: 'm' })), /no openai API key: give a key/);
    assert.throws(() => generationOptions(plain({ provider: 'openai-compatible', model: 'm' })), /needs the server's address: give a url/);
    assert.throws(() => generationOptions(plain({ provider: 'replay' })), /needs recorded generations: give a file/);
    assert.throws(() => generationOptions(plain({ mode: 'rag' })), /<mode> rag: use one of/);
    assert.throws(() => generationOptions(plain({ mode: 'dense' })), (e: Error) => e instanceof NoEmbedderError && e.message.endsWith('\ngive an endpoint'));
    assert.throws(() => generationOptions(plain({ mode: 'lsp' })), (e: Error) => e instanceof MissingContextError);
    assert.doesNotThrow(() => generationOptions(plain({ mode: 'lsp', lsp: 'headless' })).prompts.close());
  });

  it('the CLI checks dense up front and names its flags', () => {
    const opts = { mode: 'dense', k: 10, temperature: 0, maxTokens: 4096, topP: 1, cache: false } as GenerationCliOptions;
    assert.throws(() => promptBuilder(opts), (e: Error) => e instanceof NoEmbedderError && /--embed-url URL and --embed-model NAME/.test(e.message) && /XREPOTEST_EMBED_API_KEY/.test(e.message));
    assert.throws(() => providerFrom({ ...opts, provider: 'gpt' }), /^Error: --provider gpt: use one of anthropic, openai, openai-compatible, replay, baseline$/);
  });
});

describe('dense in the editor (through the server\'s generation path)', () => {
  let task: TaskRecord;
  before(async () => {
    task = await fixtureTask();
  });

  it('without an embedding endpoint, says which settings to set', async () => {
    const settings = editorSettings({ mode: 'dense' });
    await assert.rejects(
      promptFor(task, 'go', fixture('inventory-go'), settings, undefined),
      (e: Error) => e instanceof NoEmbedderError && e.message.includes('"xrepotest.embedding.baseUrl"') && e.message.includes('"xrepotest.embedding.model"') && e.message.includes('Set an API key'),
    );
    assert.throws(() => generationOptionsFor(settings, undefined), NoEmbedderError);
  });

  it('mode lsp without the editor bridge says so', async () => {
    await assert.rejects(promptFor(task, 'go', fixture('inventory-go'), editorSettings({ mode: 'lsp' }), undefined), (e: Error) => e instanceof MissingContextError && /editor bridge/.test(e.message));
    const lsp = async () => LSP;
    const prompt = await promptFor(task, 'go', fixture('inventory-go'), editorSettings({ mode: 'lsp' }), lsp);
    assert.ok(prompt.user.startsWith('#LSP_CONTEXT\n'));
  });

  it('with an endpoint and its key from secret storage, ranks the repository windows by embedding', async () => {
    const server = await embeddingServer('emb-key-1');
    try {
      const settings = editorSettings({ mode: 'dense', embeddingBaseUrl: server.baseUrl, embeddingModel: 'hashed-bow' });
      const prompt = await promptFor(task, 'go', fixture('inventory-go'), settings, undefined, undefined, { embeddingApiKey: 'emb-key-1' });
      assert.equal(prompt.mode, 'dense');
      assert.ok(prompt.user.startsWith('#RELEVANT CONTEXT\nExample 1:\n'), prompt.user.slice(0, 200));
      assert.ok(server.calls.length > 0 && server.calls.every((c) => c.model === 'hashed-bow' && c.auth === 'Bearer emb-key-1'));
      // The same prompt as the engine's pieces give directly.
      const embedder = openAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'hashed-bow', apiKey: 'emb-key-1' });
      const windows = await rankDense(task.focal_code, await buildWindows(fixture('inventory-go'), task, 'go'), embedder, 10);
      assert.equal(prompt.user, buildPrompt(task, 'go', 'dense', { windows }).user);
      // Without the key the endpoint refuses, and the error names it.
      await assert.rejects(promptFor(task, 'go', fixture('inventory-go'), settings, undefined), /HTTP 401/);
    } finally {
      await server.close();
    }
  });

  it('keeps the editor\'s provider messages and decoding', () => {
    assert.throws(() => providerFor(editorSettings({ provider: 'anthropic', model: 'm' }), undefined), (e: Error) => e instanceof SettingsError && /no anthropic API key: run "XRepoTest: Set an API key"/.test(e.message));
    assert.throws(() => providerFor(editorSettings({ provider: 'openai' }), undefined), /the openai provider needs a model: set "xrepotest.model" in the settings/);
    assert.deepEqual(paramsFor(editorSettings({ provider: 'replay', replayFile: '/x' })), { model: 'replay', temperature: 0, maxTokens: 4096, topP: 1 });
    assert.equal(paramsFor(editorSettings({})).model, 'baseline');
  });
});
