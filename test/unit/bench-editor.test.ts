import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { reportHtml } from '../../src/engine/report/html';
import { buildReport } from '../../src/engine/report/report';
import type { ResultRecord } from '../../src/engine/store/results';
import { reportWebviewHtml } from '../../src/extension/report-webview-html';
import { BenchArgsError, exampleDataset, newRunFolder, runFolderName, validateBenchArgs } from '../../src/shared/bench-options';
import { REPO_ROOT } from '../helpers/paths';

describe('bench from the editor: options and run folders', () => {
  it('accepts the options object and fills nothing it was not given', () => {
    const args = validateBenchArgs({ dataset: 'example', provider: 'baseline', executor: 'local', lang: 'go,rust', limit: 2, runDir: '/tmp/run', open: false });
    assert.deepEqual(args, {
      dataset: 'example',
      provider: 'baseline',
      model: undefined,
      mode: undefined,
      executor: 'local',
      limit: 2,
      lang: 'go,rust',
      runDir: '/tmp/run',
      concurrency: undefined,
      open: false,
    });
    assert.deepEqual(validateBenchArgs({ dataset: { tasks: '/d/tasks.jsonl', repos: '/d/repos' } }).dataset, { tasks: '/d/tasks.jsonl', manifest: undefined, repos: '/d/repos' });
  });

  it('refuses what it cannot use, saying what to pass instead', () => {
    const refused: Array<[unknown, RegExp]> = [
      [undefined, /pass an options object/],
      [{ dataset: 'nope' }, /dataset: use "example", "workspace"/],
      [{ dataset: 'example', provider: 'gpt' }, /provider "gpt": use one of baseline, anthropic/],
      [{ dataset: 'example', mode: 'rag' }, /mode "rag": use one of standard, file, lsp, bm25, dense/],
      [{ dataset: 'example', limit: 0 }, /limit 0: use a whole number, 1 or more/],
      [{ dataset: 'example', limit: 1.5 }, /limit 1.5/],
      [{ dataset: 'example', runDir: 'runs/a' }, /runDir runs\/a: use an absolute path/],
      [{ dataset: 'example', lang: 'go,cobol' }, /lang "cobol": use one of rust, go/],
      [{ dataset: 'example', limt: 2 }, /unknown option\(s\) limt/],
      [{ dataset: { tasks: 'tasks.jsonl' } }, /dataset.tasks tasks.jsonl: use an absolute path/],
      [{ dataset: { tasks: '/t.jsonl', manifest: '/m.json', repos: '/r' } }, /a manifest or a repos folder, not both/],
      [{ dataset: 'example', open: 'yes' }, /open: use true or false/],
    ];
    for (const [value, message] of refused) assert.throws(() => validateBenchArgs(value), (e: Error) => e instanceof BenchArgsError && message.test(e.message), JSON.stringify(value));
  });

  it('names a run folder by local time, provider and mode, and never reuses one', () => {
    const name = runFolderName(new Date(2025, 0, 31, 14, 2, 9), 'openai-compatible', 'bm25');
    assert.equal(name, '2025-01-31-140209-openai-compatible-bm25');
    assert.equal(runFolderName(new Date(2025, 11, 1, 0, 0, 0), 'a/b c', 'standard'), '2025-12-01-000000-a_b_c-standard');
    const taken = new Set(['/runs/x', '/runs/x-2']);
    assert.equal(newRunFolder('/runs', 'x', (p) => taken.has(p)), '/runs/x-3');
    assert.equal(newRunFolder('/runs', 'y', (p) => taken.has(p)), '/runs/y');
  });

  it('finds the packaged example dataset first, the repository\'s otherwise', () => {
    const packaged = new Set(['/ext/dist/example/tasks.jsonl', '/ext/dist/example/manifest.json', '/ext/examples/fixtures/tasks.jsonl', '/ext/examples/fixtures/manifest.json']);
    assert.deepEqual(exampleDataset('/ext', (p) => packaged.has(p)), { tasks: '/ext/dist/example/tasks.jsonl', manifest: '/ext/dist/example/manifest.json' });
    const dev = new Set(['/ext/examples/fixtures/tasks.jsonl', '/ext/examples/fixtures/manifest.json']);
    assert.deepEqual(exampleDataset('/ext', (p) => dev.has(p)), { tasks: '/ext/examples/fixtures/tasks.jsonl', manifest: '/ext/examples/fixtures/manifest.json' });
    assert.equal(exampleDataset('/ext', () => false), undefined);
  });
});

describe('bench from the editor: the report panel\'s content', () => {
  const results = fs
    .readFileSync(path.join(REPO_ROOT, 'test', 'data', 'reports', 'fixture-results.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as ResultRecord);
  const html = reportHtml(buildReport(results, { label: 'fixtures' }));

  it('needs no script and no style attribute: one style element is all the policy must allow', () => {
    assert.doesNotMatch(html, /<script/i);
    assert.doesNotMatch(html, /\sstyle\s*=/i);
    assert.doesNotMatch(html, /\son[a-z]+\s*=/i, 'no inline event handlers');
    assert.doesNotMatch(html, /\s(src|href)\s*=\s*"(?!#)/i, 'nothing fetched');
    assert.equal((html.match(/<style[\s>]/g) ?? []).length, 1);
  });

  it('allows that style element by nonce and nothing else', () => {
    const nonce = 'abcdefghijklmnopqrstuvwx';
    const page = reportWebviewHtml(html, nonce);
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(page)?.[1];
    assert.ok(csp, 'a policy');
    assert.equal(csp, `default-src 'none'; style-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'`);
    assert.doesNotMatch(csp, /unsafe/);
    assert.ok(page.indexOf(csp) < page.indexOf('<style'), 'the policy comes before the style');
    assert.equal((page.match(/<style nonce="abcdefghijklmnopqrstuvwx">/g) ?? []).length, 1);
    assert.throws(() => reportWebviewHtml(html, 'short'), /nonce/);
  });
});
