import { strict as assert } from 'node:assert';
import { fileContext } from '../../src/engine/context/file';
import { extractRepository } from '../../src/engine/extract/extract';
import type { LanguageId } from '../../src/engine/parse/grammars';
import { PHP_AUTOLOAD_LINE } from '../../src/engine/languages/php/prompt';
import { buildPrompt, MissingContextError, renderLspBlock, systemPromptFor, userPromptFor } from '../../src/engine/prompt/templates';
import type { TaskRecord } from '../../src/engine/tasks/record';
import { fixture } from '../helpers/paths';
import { CASES, LSP } from '../helpers/prompt-fixtures';

describe('prompt structure', () => {
  let tasks: Map<string, TaskRecord>;
  before(async () => {
    tasks = new Map();
    for (const { lang, dir } of CASES) {
      const { tasks: all } = await extractRepository(fixture(dir), { languages: [lang], repository: { name: dir, url: 'fixture', commit: null } });
      for (const t of all) tasks.set(`${lang}:${t.function_name}`, t);
    }
  });
  const get = (key: string): TaskRecord => {
    const t = tasks.get(key);
    assert.ok(t, key);
    return t;
  };

  it('every system prompt has the persona, "Cover normal cases…", the fence rule, an example in its fence, and the closing line', () => {
    const fences: Record<LanguageId, string> = { rust: 'rust', go: 'go', php: 'php', ruby: 'ruby', julia: 'julia' };
    const names: Record<LanguageId, string> = { rust: 'Rust', go: 'Go', php: 'PHP', ruby: 'Ruby', julia: 'Julia' };
    for (const lang of Object.keys(fences) as LanguageId[]) {
      const s = systemPromptFor(lang);
      assert.ok(s.startsWith(`You are an expert ${names[lang]} developer specializing in test-driven development (TDD) and writing high-quality unit tests.`), lang);
      assert.ok(s.includes('Cover normal cases, edge cases, and error cases'), lang);
      assert.ok(s.includes('Always wrap your test code in triple backticks with the language identifier'), lang);
      assert.ok(s.includes('```' + fences[lang] + '\n'), `${lang}: example fenced as ${fences[lang]}`);
      assert.ok(s.endsWith('Generate comprehensive tests tailored to the specific code provided.'), lang);
    }
  });

  it('wraps a method in its class signature, dedented then indented by four spaces', () => {
    const task = get('rust:relation');
    const user = userPromptFor(task, 'rust');
    const firstLine = task.focal_code.split('\n')[0].trim();
    assert.ok(user.includes('```rust\n' + `${task.metadata.class_signature} {\n    ${firstLine}\n`), user);
    assert.ok(user.includes('\n}\n```\n'), 'the wrapper closes before the fence');
    const php = userPromptFor(get('php:slugify'), 'php');
    assert.ok(php.includes('```php\nfinal class Slugger extends AbstractTransformer implements Transformer {\n    public function slugify('), php);
  });

  it('does not wrap functions without a class, nor Go methods (the receiver is in the header)', () => {
    const fn = get('rust:classify_triangle');
    assert.ok(userPromptFor(fn, 'rust').includes('```rust\n' + fn.focal_code + '\n```'));
    const method = get('go:Restock');
    assert.notEqual(method.metadata.class_signature, '');
    assert.ok(userPromptFor(method, 'go').includes('```go\n' + method.focal_code + '\n```'));
  });

  it('names the Go package and the test function with an upper-cased first letter', () => {
    const task = { ...get('go:Restock'), function_name: 'restock' };
    const user = userPromptFor(task, 'go');
    assert.ok(user.includes(`- Package name: ${task.metadata.package}\n`));
    assert.ok(user.includes('- Test function name: `func TestRestock(t *testing.T)`'));
  });

  it('gives PHP one autoload path, in the system and the user prompt alike', () => {
    const user = userPromptFor(get('php:slugify'), 'php');
    assert.ok(user.includes(`- Namespace: ${get('php:slugify').metadata.namespace}\n`));
    for (const text of [systemPromptFor('php'), user]) {
      const paths = text.match(/require_once[^;\n]*autoload\.php'?;/g) ?? [];
      assert.ok(paths.length > 0);
      assert.deepEqual([...new Set(paths)], [PHP_AUTOLOAD_LINE]);
    }
  });

  it('puts the file block in front of the user prompt, with the Rust test module stripped', async () => {
    const task = get('rust:classify_triangle');
    assert.ok(task.file_content.includes('#[cfg(test)]'), 'the fixture file has a test module');
    const prompt = buildPrompt(task, 'rust', 'file', { file: await fileContext(task, 'rust') });
    assert.ok(prompt.user.startsWith(`\n#CURRENT FILE: ${task.file_path}\n`));
    assert.ok(prompt.user.includes('\n#ENDFILE\nGenerate unit tests for this Rust function from'));
    assert.ok(!prompt.user.includes('#[cfg(test)]'));
    assert.ok(!prompt.user.includes('fn classifies_every_kind'));
    assert.ok(prompt.user.includes('pub fn triangle_perimeter'), 'the code after the focal function stays');
  });

  it('renders no LSP block for an empty context, and each snippet once', () => {
    assert.equal(renderLspBlock({ argumentDefinitions: [], calleeDefinitions: [], conditionReferences: [] }), '');
    const block = renderLspBlock(LSP.go);
    assert.equal(block.split('type Inventory struct').length - 1, 1);
    assert.ok(block.startsWith('#LSP_CONTEXT\n#ARGUMENT_DEFINITIONS\n'));
    assert.ok(block.endsWith('#END_CONDITION_REFERENCES\n#END_LSP_CONTEXT\n'));
    const order = ['#ARGUMENT_DEFINITIONS', '#END_OF_DEFINITIONS', '#CALLEE_DEFINITIONS', '#END_CALLEE_DEFINITIONS', '#CONDITION_REFERENCES', '#END_CONDITION_REFERENCES'];
    const at = order.map((m) => block.indexOf(`${m}\n`));
    assert.deepEqual([...at].sort((a, b) => a - b), at, 'markers in order');
    assert.ok(at.every((i) => i >= 0));
  });

  it('refuses a mode whose context is missing, naming it', () => {
    const task = get('ruby:search');
    assert.throws(() => buildPrompt(task, 'ruby', 'file', {}), MissingContextError);
    assert.throws(() => buildPrompt(task, 'ruby', 'bm25', {}), /needs retrieved windows/);
    assert.throws(() => buildPrompt(task, 'ruby', 'lsp', {}), /needs an LSP context/);
  });
});
