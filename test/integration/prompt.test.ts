import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { rankBm25 } from '../../src/engine/context/bm25';
import { openAiCompatibleEmbedder, rankDense } from '../../src/engine/context/dense';
import { fileContext } from '../../src/engine/context/file';
import { buildWindows } from '../../src/engine/context/windows';
import { extractRepository } from '../../src/engine/extract/extract';
import type { ContextMode } from '../../src/engine/generate/types';
import { phpunitMajorFor } from '../../src/engine/languages/php/runners';
import type { LanguageId } from '../../src/engine/parse/grammars';
import { gatherContext } from '../../src/engine/prompt/context';
import { buildPrompt } from '../../src/engine/prompt/templates';
import type { TaskRecord } from '../../src/engine/tasks/record';
import { fixture, REPO_ROOT } from '../helpers/paths';
import { CASES, LSP } from '../helpers/prompt-fixtures';
import { hashedBagOfWords, listenOnLoopback } from '../helpers/embedding-server';

/**
 * Golden prompts: test/data/golden/prompts/<lang>-<mode>.txt hold `system + "\n---\n" + user` for one
 * fixture task per language. After a deliberate change to the prompts, rewrite them with
 *   UPDATE_GOLDEN=1 npx mocha --no-config --timeout 120000 out/test/unit/prompt.test.js
 * and read the diff before committing it.
 */
const GOLDEN_DIR = path.join(REPO_ROOT, 'test', 'data', 'golden', 'prompts');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

/** An OpenAI-compatible /v1/embeddings server on 127.0.0.1: hashed bag of words, 64 dimensions. */
async function startEmbeddingServer(): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  const embed = (text: string): number[] => hashedBagOfWords(text, 64);
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const { input } = JSON.parse(body) as { input: string[] };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ object: 'list', data: input.map((t, index) => ({ object: 'embedding', index, embedding: embed(t) })) }));
    });
  });
  return listenOnLoopback(server);
}

async function fixtureTask(lang: LanguageId, dir: string, fn: string): Promise<TaskRecord> {
  const { tasks } = await extractRepository(fixture(dir), { languages: [lang], repository: { name: dir, url: 'fixture', commit: null } });
  const task = tasks.find((t) => t.function_name === fn);
  assert.ok(task, `${fn} is a kept task of ${dir}`);
  return task;
}

function checkGolden(name: string, actual: string): void {
  const file = path.join(GOLDEN_DIR, `${name}.txt`);
  if (UPDATE) {
    fs.mkdirSync(GOLDEN_DIR, { recursive: true });
    fs.writeFileSync(file, actual);
    return;
  }
  assert.ok(fs.existsSync(file), `${file} is missing: run with UPDATE_GOLDEN=1 once`);
  assert.equal(actual, fs.readFileSync(file, 'utf8'), `${name} differs from its golden file`);
}

describe('prompts (golden files)', () => {
  let server: Awaited<ReturnType<typeof startEmbeddingServer>>;
  before(async () => {
    server = await startEmbeddingServer();
  });
  after(async () => {
    await server.close();
  });

  for (const { lang, dir, fn } of CASES) {
    describe(`${lang}: ${fn} (${dir})`, () => {
      let task: TaskRecord;
      before(async () => {
        task = await fixtureTask(lang, dir, fn);
      });

      const contextFor = async (mode: ContextMode) => {
        switch (mode) {
          case 'standard':
            return {};
          case 'file':
            return { file: await fileContext(task, lang) };
          case 'lsp':
            return { lsp: LSP[lang] };
          case 'bm25':
            return { windows: rankBm25(task.focal_code, await buildWindows(fixture(dir), task, lang)) };
          case 'dense': {
            const embedder = openAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'hashed-bow' });
            return { windows: await rankDense(task.focal_code, await buildWindows(fixture(dir), task, lang), embedder, 10) };
          }
        }
      };

      for (const mode of ['standard', 'file', 'bm25', 'lsp', 'dense'] as const) {
        it(`${mode} matches ${lang}-${mode}.txt`, async () => {
          const prompt = buildPrompt(task, lang, mode, await contextFor(mode));
          assert.equal(prompt.mode, mode);
          assert.equal(prompt.language, lang);
          checkGolden(`${lang}-${mode}`, `${prompt.system}\n---\n${prompt.user}`);
        });
      }

      it('gatherContext gives the same prompts as the pieces used above', async () => {
        const embedder = openAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'hashed-bow' });
        const request = { task, language: lang, repoDir: fixture(dir) };
        for (const mode of ['standard', 'file', 'bm25', 'dense'] as const) {
          const gathered = buildPrompt(task, lang, mode, await gatherContext(request, mode, { embedder }));
          // PHP: gatherContext also names the runner's major version for the checkout (php-runner.test.ts).
          const runner = lang === 'php' ? { phpunitMajor: phpunitMajorFor(fixture(dir), task.file_path) ?? undefined } : {};
          const direct = buildPrompt(task, lang, mode, { ...(await contextFor(mode)), ...runner });
          assert.equal(gathered.user, direct.user, mode);
        }
        const lsp = await gatherContext(request, 'lsp', { lsp: async () => LSP[lang] });
        const runner = lang === 'php' ? { phpunitMajor: phpunitMajorFor(fixture(dir), task.file_path) ?? undefined } : {};
        assert.equal(buildPrompt(task, lang, 'lsp', lsp).user, buildPrompt(task, lang, 'lsp', { lsp: LSP[lang], ...runner }).user);
      });
    });
  }
});
