import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { Bm25Okapi, rankBm25, whitespaceTokens } from '../../src/engine/context/bm25';
import { cosine, EmbeddingError, NoEmbedderError, openAiCompatibleEmbedder, rankDense } from '../../src/engine/context/dense';
import { fileContext, stripTestItems } from '../../src/engine/context/file';
import { isTestGate } from '../../src/engine/languages/rust/test-items';
import {
  buildWindows,
  mergeIdentical,
  publishedWindows,
  rankWindows,
  slideWindows,
  type CodeWindow,
} from '../../src/engine/context/windows';
import { extractRepository } from '../../src/engine/extract/extract';
import type { LanguageId } from '../../src/engine/parse/grammars';
import { renderRetrievalBlock } from '../../src/engine/prompt/blocks';
import type { TaskRecord } from '../../src/engine/tasks/record';
import { fixture, REPO_ROOT } from '../helpers/paths';
import { hashedBagOfWords, listenOnLoopback } from '../helpers/embedding-server';

const BM25_DATA = path.join(REPO_ROOT, 'test', 'data', 'bm25');

interface Bm25Expected {
  settings: Array<{
    params: { k1?: number; b?: number; epsilon?: number };
    avgdl: number;
    average_idf: number;
    /** [word, idf] in rank_bm25's dict order. */
    idf: Array<[string, number]>;
    scores: number[][];
  }>;
}

/** Equal to within a few units in the last place: Python's libm log and V8's may differ by one ulp. */
function close(actual: number, expected: number, what: string): void {
  assert.ok(Math.abs(actual - expected) <= 1e-12 * Math.max(1, Math.abs(expected)), `${what}: ${actual} vs ${expected}`);
}

describe('BM25Okapi', () => {
  it('matches the real rank_bm25 0.2.2 on a hand-made corpus (IDF, floor, scores), for two settings', () => {
    const corpus = JSON.parse(fs.readFileSync(path.join(BM25_DATA, 'corpus.json'), 'utf8')) as { documents: string[]; queries: string[] };
    const expected = JSON.parse(fs.readFileSync(path.join(BM25_DATA, 'expected.json'), 'utf8')) as Bm25Expected;
    assert.equal(expected.settings.length, 2);
    for (const setting of expected.settings) {
      const bm25 = new Bm25Okapi(corpus.documents.map(whitespaceTokens), setting.params);
      close(bm25.avgdl, setting.avgdl, 'avgdl');
      close(bm25.averageIdf, setting.average_idf, 'average idf');
      assert.deepEqual([...bm25.idf.keys()], setting.idf.map(([w]) => w), 'vocabulary in first-seen order');
      for (const [word, idf] of setting.idf) close(bm25.idf.get(word)!, idf, `idf(${word})`);
      assert.ok(setting.idf.some(([, idf]) => idf === 0) && [...bm25.idf.values()].some((v) => v === bm25.averageIdf * bm25.params.epsilon), 'the corpus exercises IDF 0 and the floor');
      corpus.queries.forEach((q, i) => {
        const got = bm25.scores(whitespaceTokens(q));
        assert.equal(got.length, corpus.documents.length);
        got.forEach((s, d) => close(s, setting.scores[i][d], `${JSON.stringify(q)} on document ${d}`));
      });
    }
  });

  it('computes a 3-document example as worked out by hand', () => {
    // Documents "a b c", "a a d", "b e": N = 3, avgdl = 8/3.
    // n(a) = n(b) = 2: IDF = ln(3 − 2 + 0.5) − ln(2 + 0.5) = ln(0.6) < 0, so floored below.
    // n(c) = n(d) = n(e) = 1: IDF = ln(2.5) − ln(1.5) = ln(5/3) ≈ 0.5108.
    // Mean IDF before the floor = (2 ln 0.6 + 3 ln(5/3)) / 5 = ln(5/3) / 5 (ln 0.6 = −ln(5/3));
    // floor = 0.25 × ln(5/3) / 5 = ln(5/3) / 20 ≈ 0.02554 for a and b.
    // Length factor for a 3-token document: 1.5 × (1 − 0.75 + 0.75 × 3 / (8/3)) = 1.640625.
    // Query "a c":
    //   doc 0 (a once, c once): (ln(5/3)/20 + ln(5/3)) × (1 × 2.5) / (1 + 1.640625) ≈ 0.507803
    //   doc 1 (a twice):        (ln(5/3)/20) × (2 × 2.5) / (2 + 1.640625)          ≈ 0.035078
    //   doc 2 (neither):        0
    const bm25 = new Bm25Okapi([['a', 'b', 'c'], ['a', 'a', 'd'], ['b', 'e']]);
    const L = Math.log(5 / 3);
    close(bm25.idf.get('a')!, L / 20, 'floored idf(a)');
    close(bm25.idf.get('c')!, L, 'idf(c)');
    const [d0, d1, d2] = bm25.scores(['a', 'c']);
    close(d0, ((L / 20 + L) * 2.5) / 2.640625, 'doc 0');
    close(d1, ((L / 20) * 5) / 3.640625, 'doc 1');
    assert.equal(d2, 0);
    assert.ok(Math.abs(d0 - 0.507803) < 1e-6 && Math.abs(d1 - 0.035078) < 1e-6, `${d0} ${d1}`);
    // A repeated query token counts twice; an unknown one adds nothing.
    close(bm25.scores(['c', 'c', 'zzz'])[0], (2 * L * 2.5) / 2.640625, 'repeated token');
  });

  it('takes k1, b and epsilon as given', () => {
    const docs = [['x', 'y'], ['x'], ['x', 'z', 'z']];
    const a = new Bm25Okapi(docs).scores(['x', 'z']);
    const b = new Bm25Okapi(docs, { k1: 0.9, b: 0.3, epsilon: 0.5 }).scores(['x', 'z']);
    assert.notDeepEqual(a, b);
    // b = 0 removes length normalisation: documents with the same term counts score the same.
    const flat = new Bm25Okapi([['x', 'y', 'y', 'y'], ['x'], ['q'], ['r']], { b: 0 }).scores(['x']);
    close(flat[0], flat[1], 'b = 0');
  });
});

const win = (text: string, file: string, startLine: number): CodeWindow => ({ text, locations: [{ file, startLine, endLine: startLine + 1 }] });

describe('windows', () => {
  it('centres a window on every stride-th line, clipped to the file, and skips blank ones', () => {
    const lines = Array.from({ length: 23 }, (_, i) => (i >= 10 && i < 20 ? '' : `line ${i + 1}`));
    const ws = slideWindows(lines.join('\n') + '\n', 'f.rs', 8, 3);
    // Centres 0, 3, …, 21 with 4 lines before and 4 after (end exclusive), clipped.
    const spans = ws.map((w) => [w.locations[0].startLine, w.locations[0].endLine]);
    const expectedSpans: Array<[number, number]> = [];
    for (let c = 0; c < 23; c += 3) {
      const s = Math.max(0, c - 4);
      const e = Math.min(23, c + 4);
      if (lines.slice(s, e).join('').trim() !== '') expectedSpans.push([s + 1, e]);
    }
    assert.deepEqual(spans, expectedSpans);
    assert.ok(expectedSpans.length < Math.ceil(23 / 3), 'the all-blank window (lines 11–18) is gone');
    for (const w of ws) {
      const { startLine, endLine } = w.locations[0];
      assert.equal(w.text, lines.slice(startLine - 1, endLine).join('\n'));
      assert.ok(endLine - startLine + 1 <= 8);
    }
  });

  it('merges identical windows, keeping every location in path order', () => {
    const merged = mergeIdentical([win('same', 'b.go', 1), win('other', 'a.go', 1), win('same', 'a.go', 6)]);
    assert.equal(merged.length, 2);
    assert.deepEqual(merged[0].locations.map((l) => `${l.file}:${l.startLine}`), ['a.go:6', 'b.go:1']);
  });

  it('ranks by score, ties by path then start line, and keeps k', () => {
    const ws = [win('t1', 'b.rs', 1), win('t2', 'a.rs', 9), win('t3', 'a.rs', 3), win('t4', 'c.rs', 1)];
    const ranked = rankWindows(ws, [1, 1, 1, 2], 3);
    assert.deepEqual(ranked.map((r) => r.text), ['t4', 't3', 't2']);
    assert.deepEqual(ranked.map((r) => r.score), [2, 1, 1]);
  });

  describe('on the fixtures', () => {
    const tasksOf = new Map<string, TaskRecord[]>();
    const taskNamed = async (lang: LanguageId, dir: string, name: string): Promise<TaskRecord> => {
      if (!tasksOf.has(dir)) tasksOf.set(dir, (await extractRepository(fixture(dir), { languages: [lang], repository: { name: dir, url: 'fixture', commit: null } })).tasks);
      const t = tasksOf.get(dir)!.find((x) => x.function_name === name);
      assert.ok(t, name);
      return t;
    };

    it('drops the windows that overlap the focal function in its file, and only those there', async () => {
      const task = await taskNamed('go', 'inventory-go', 'Restock');
      const { start_line: s, end_line: e } = task.function_component;
      const ws = await buildWindows(fixture('inventory-go'), task, 'go');
      const inFocalFile = ws.flatMap((w) => w.locations).filter((l) => l.file === 'inventory.go');
      assert.ok(inFocalFile.length > 0, 'other parts of the focal file remain');
      assert.ok(inFocalFile.every((l) => l.endLine < s || l.startLine > e));
      assert.ok(ws.every((w) => !w.text.includes('func (inv *Inventory) Restock(')));
    });

    it('leaves out the test files that call the focal function, unless told not to', async () => {
      const task = await taskNamed('go', 'inventory-go', 'Restock');
      const files = (ws: CodeWindow[]) => new Set(ws.flatMap((w) => w.locations.map((l) => l.file)));
      const guarded = files(await buildWindows(fixture('inventory-go'), task, 'go'));
      const open = files(await buildWindows(fixture('inventory-go'), task, 'go', { excludeLeakage: false }));
      assert.ok(!guarded.has('inventory_test.go'));
      assert.ok(open.has('inventory_test.go'));
      // A test file that does not mention Restock stays.
      assert.equal(guarded.has('pricing/pricing_test.go'), !fs.readFileSync(fixture('inventory-go/pricing/pricing_test.go'), 'utf8').includes('Restock'));
    });

    it('leaves out a Rust #[cfg(test)] module that reaches the focal function, even through a helper', async () => {
      const task = await taskNamed('rust', 'geometry-rs', 'classify_triangle');
      const guarded = await buildWindows(fixture('geometry-rs'), task, 'rust');
      const open = await buildWindows(fixture('geometry-rs'), task, 'rust', { excludeLeakage: false });
      const leaks = (ws: CodeWindow[]) => ws.some((w) => w.text.includes('fn classifies_every_kind'));
      assert.ok(leaks(open));
      assert.ok(!leaks(guarded));
    });

    it('ranks the fixture windows with BM25, best first, at most k', async () => {
      const task = await taskNamed('ruby', 'bookshelf-rb', 'search');
      const ws = await buildWindows(fixture('bookshelf-rb'), task, 'ruby');
      const ranked = rankBm25(task.focal_code, ws, { k: 4 });
      assert.equal(ranked.length, 4);
      for (let i = 1; i < ranked.length; i++) assert.ok(ranked[i - 1].score >= ranked[i].score);
      const all = new Bm25Okapi(ws.map((w) => whitespaceTokens(w.text))).scores(whitespaceTokens(task.focal_code));
      close(ranked[0].score, Math.max(...all), 'top score');
    });
  });
});

describe('file context', () => {
  it('strips every #[cfg(test)]-gated item, at any depth, with its attributes and doc comments', async () => {
    const source = [
      'pub fn keep() -> i32 { 1 }',
      '',
      '/// Test helpers.',
      '#[cfg(test)]',
      '#[allow(dead_code)]',
      'fn helper() {}',
      '',
      'pub mod inner {',
      '    pub fn also_kept() {}',
      '',
      '    #[cfg(all(test, feature = "slow"))]',
      '    mod slow_tests {',
      '        #[test]',
      '        fn slow() {}',
      '    }',
      '',
      '    #[cfg(not(test))]',
      '    pub fn only_outside_tests() {}',
      '}',
      '',
      'impl S {',
      '    #[cfg(test)]',
      '    fn test_only_method(&self) {}',
      '    pub fn method(&self) {}',
      '}',
      '',
      '#[cfg(test)]',
      'mod tests {',
      '    use super::*;',
      '    #[test]',
      '    fn t() { assert_eq!(keep(), 1); }',
      '}',
      '',
    ].join('\n');
    const out = await stripTestItems(source, 'rust');
    for (const gone of ['helper', 'Test helpers', 'slow_tests', 'test_only_method', 'mod tests', 'assert_eq!', 'allow(dead_code)']) assert.ok(!out.includes(gone), `${gone} removed:\n${out}`);
    for (const kept of ['pub fn keep', 'pub fn also_kept', 'cfg(not(test))', 'pub fn only_outside_tests', 'pub fn method(&self)', 'impl S {']) assert.ok(out.includes(kept), `${kept} kept:\n${out}`);
    assert.ok(out.endsWith('}\n') && !out.endsWith('\n\n'), 'no blank lines left at the end');
    assert.ok(!/^[ \t]+$/m.test(out), 'no lines of stray indentation');
  });

  it('knows which cfg attributes gate to tests only', () => {
    assert.ok(isTestGate('#[cfg(test)]'));
    assert.ok(isTestGate('#[cfg( test )]'));
    assert.ok(isTestGate('#[cfg(all(test, feature = "x"))]'));
    assert.ok(!isTestGate('#[cfg(any(test, feature = "x"))]'));
    assert.ok(!isTestGate('#[cfg(not(test))]'));
    assert.ok(!isTestGate('#[cfg(all(unix, not(test)))]'));
    assert.ok(!isTestGate('#[test]'));
  });

  it('returns the file as recorded for other languages and for Rust files without tests', async () => {
    const base = { task_id: 0, function_name: 'f', file_path: 'r/x', focal_code: '', language: '', function_component: { name: 'f', signature: '', start_line: 1, end_line: 1 }, metadata: { class_name: '', class_signature: '' } };
    const php = '<?php\n/** #[cfg(test)] is not PHP */\nfunction f() { return 1; }\n';
    assert.equal(await fileContext({ ...base, file_content: php }, 'php'), php);
    const rust = 'pub fn f() -> i32 {\n    1\n}\n';
    assert.equal(await fileContext({ ...base, file_content: rust }, 'rust'), rust);
  });
});

/** An OpenAI-compatible /v1/embeddings server on 127.0.0.1: hashed bag of words; records the batches. */
async function embeddingServer(options: { status?: number } = {}) {
  const batches: Array<{ model: string; input: string[]; auth?: string }> = [];
  const embed = (text: string): number[] => hashedBagOfWords(text, 32);
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
        res.statusCode = 404;
        res.end('not found');
        return;
      }
      const parsed = JSON.parse(body) as { model: string; input: string[] };
      batches.push({ ...parsed, auth: req.headers.authorization });
      if (options.status) {
        res.statusCode = options.status;
        res.end('{"error":{"message":"model not loaded"}}');
        return;
      }
      // Answer out of order: `index` says which input each vector belongs to.
      const data = parsed.input.map((t, index) => ({ object: 'embedding', index, embedding: embed(t) })).reverse();
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ object: 'list', data, model: parsed.model }));
    });
  });
  return { ...(await listenOnLoopback(server)), batches, embed };
}

describe('dense retrieval', () => {
  it('embeds the query and the windows in batches over the OpenAI wire format and ranks by cosine', async () => {
    const server = await embeddingServer();
    try {
      const ws = Array.from({ length: 7 }, (_, i) => win(`alpha beta ${'gamma '.repeat(i)}delta${i}`, `f${i}.go`, 1));
      const embedder = openAiCompatibleEmbedder({ baseUrl: `${server.baseUrl}/`, model: 'tiny', apiKey: 'k-123', batchSize: 3 });
      const query = 'gamma gamma gamma alpha';
      const ranked = await rankDense(query, ws, embedder, 4);
      assert.deepEqual(server.batches.map((b) => b.input.length), [3, 3, 2], 'query + 7 windows in batches of 3');
      assert.ok(server.batches.every((b) => b.model === 'tiny' && b.auth === 'Bearer k-123'));
      assert.deepEqual(server.batches.flatMap((b) => b.input), [query, ...ws.map((w) => w.text)]);
      const expected = ws
        .map((w, i) => ({ i, s: cosine(server.embed(query), server.embed(w.text)) }))
        .sort((a, b) => b.s - a.s || a.i - b.i)
        .slice(0, 4);
      assert.deepEqual(ranked.map((r) => r.text), expected.map((e) => ws[e.i].text));
      ranked.forEach((r, j) => close(r.score, expected[j].s, `score ${j}`));
    } finally {
      await server.close();
    }
  });

  it('names the URL when the server answers with an error or cannot be reached', async () => {
    const server = await embeddingServer({ status: 500 });
    const embedder = openAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'tiny' });
    await assert.rejects(embedder.embed(['x']), (e: Error) => e instanceof EmbeddingError && e.message.includes(`${server.baseUrl}/embeddings`) && /HTTP 500/.test(e.message) && e.message.includes('model not loaded'));
    await server.close();
    // The port is closed now: nothing listens there.
    await assert.rejects(embedder.embed(['x']), (e: Error) => e instanceof EmbeddingError && e.message.includes(`${server.baseUrl}/embeddings`));
  });

  it('without an embedder, says how to configure one', async () => {
    await assert.rejects(rankDense('q', [win('t', 'a', 1)], undefined), (e: Error) => e instanceof NoEmbedderError && /Ollama/.test(e.message) && /llama\.cpp/.test(e.message) && /vLLM/.test(e.message) && /OpenAI/.test(e.message));
  });
});

describe('published retrieval and the retrieval block', () => {
  const base: TaskRecord = {
    task_id: 3, function_name: 'f', file_path: 'repo/a.go', focal_code: 'func f() {}', file_content: '', language: 'go',
    function_component: { name: 'f', signature: 'func f()', start_line: 1, end_line: 1 }, metadata: { class_name: '', class_signature: '' },
  };

  it('reads retrieved_contexts_bm25 / _unixcoder into windows, in the published order', () => {
    const task: TaskRecord = {
      ...base,
      retrieved_contexts_bm25: [
        { context: 'first', metadata: [{ fpath_tuple: ['repo', 'x.go'], start_line_no: 10, end_line_no: 60 }], bm25_score: 9.5 },
        { context: 'second', metadata: [{ fpath_tuple: ['repo', 'y.go'], start_line_no: 0, end_line_no: 25 }], bm25_score: 3 },
      ],
      retrieved_contexts_unixcoder: [{ context: 'dense one', metadata: [{ fpath_tuple: ['repo', 'z.go'], start_line_no: 5, end_line_no: 55 }], unixcoder_score: 0.8 }],
    };
    assert.deepEqual(publishedWindows(task, 'bm25'), [
      { file: 'repo/x.go', startLine: 11, endLine: 60, text: 'first', score: 9.5 },
      { file: 'repo/y.go', startLine: 1, endLine: 25, text: 'second', score: 3 },
    ]);
    assert.equal(publishedWindows(task, 'bm25', 1)!.length, 1);
    assert.deepEqual(publishedWindows(task, 'dense')!.map((w) => [w.text, w.score]), [['dense one', 0.8]]);
    assert.equal(publishedWindows(base, 'bm25'), null);
  });

  it('renders windows as numbered examples between the markers, within a budget', () => {
    const ws = [
      { file: 'a', startLine: 1, endLine: 3, text: 'one\ntwo\nthree', score: 2 },
      { file: 'b', startLine: 1, endLine: 2, text: 'four\nfive', score: 1 },
    ];
    assert.equal(renderRetrievalBlock(ws), '#RELEVANT CONTEXT\nExample 1:\none\ntwo\nthree\n\nExample 2:\nfour\nfive\n#END_OF_CONTEXT\n\n');
    assert.equal(renderRetrievalBlock(ws, { maxChars: 17 }), '#RELEVANT CONTEXT\nExample 1:\none\ntwo\nthree\n\nExample 2:\nfour\n#END_OF_CONTEXT\n\n');
    assert.equal(renderRetrievalBlock(ws, { maxCharsPerWindow: 8 }), '#RELEVANT CONTEXT\nExample 1:\none\ntwo\n\nExample 2:\nfour\n#END_OF_CONTEXT\n\n');
    assert.equal(renderRetrievalBlock([]), '');
  });

  it('uses a window corpus of a temporary repository the same way (no fixtures touched)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-windows-'));
    try {
      fs.writeFileSync(path.join(dir, 'a.go'), 'package a\n\nfunc f() int {\n\treturn 1\n}\n');
      fs.writeFileSync(path.join(dir, 'b.go'), 'package a\n\nfunc g() int {\n\treturn f() + 1\n}\n');
      const task = { ...base, file_path: `${path.basename(dir)}/a.go`, function_component: { ...base.function_component, start_line: 3, end_line: 5 } };
      const ws = await buildWindows(dir, task, 'go', { windowLines: 4, stride: 2 });
      assert.ok(ws.length > 0);
      assert.ok(ws.every((w) => w.locations.every((l) => l.file === 'b.go' || l.endLine < 3)), JSON.stringify(ws));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
