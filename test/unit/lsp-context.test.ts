import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { enclosingDefinition, SourceCache } from '../../src/engine/context/lsp/enclosing';
import { toLocations } from '../../src/engine/context/lsp/headless-resolver';
import { publishedLspContext } from '../../src/engine/context/lsp/lsp-context';
import type { Location } from '../../src/engine/context/types';
import type { TaskRecord } from '../../src/engine/tasks/record';
import { fixture } from '../helpers/paths';

/** The range of the `nth` occurrence of `needle` in a file, as a server would name it. */
function rangeOf(file: string, needle: string, nth = 0): Location['range'] {
  const text = fs.readFileSync(file, 'utf8');
  let at = -1;
  for (let i = 0; i <= nth; i++) at = text.indexOf(needle, at + 1);
  assert.ok(at >= 0, `${needle} not in ${file}`);
  const pos = (offset: number) => {
    const before = text.slice(0, offset);
    return { line: before.split('\n').length - 1, character: offset - before.lastIndexOf('\n') - 1 };
  };
  return { start: pos(at), end: pos(at + needle.length) };
}

describe('LSP context: mapping answers to enclosing definitions', () => {
  const cache = new SourceCache();
  after(() => cache.dispose());

  it('widens a Go field name (gopls answers a name range) to the whole type declaration with its doc comment', async () => {
    const file = path.join(fixture('inventory-go'), 'inventory.go');
    const def = await enclosingDefinition(cache, { file, range: rangeOf(file, 'Expires  int') });
    assert.ok(def, 'no definition');
    assert.match(def.text, /^\/\/ Item is one stock-keeping unit\.\ntype Item struct \{/);
    assert.match(def.text, /\}$/);
  });

  it('maps a Rust enum variant and a whole declaration range (rust-analyzer targetRange) to the same enum, outer docs and attributes kept', async () => {
    const file = path.join(fixture('geometry-rs'), 'src', 'triangle.rs');
    const variant = await enclosingDefinition(cache, { file, range: rangeOf(file, 'Invalid,') });
    const text = fs.readFileSync(file, 'utf8');
    const declStart = rangeOf(file, '/// The kind of triangle').start;
    const declEnd = rangeOf(file, 'Scalene,\n}').end;
    const whole = await enclosingDefinition(cache, { file, range: { start: declStart, end: { line: declEnd.line, character: 1 } } });
    assert.ok(variant && whole);
    assert.equal(variant.text, whole.text);
    assert.match(variant.text, /^\/\/\/ The kind of triangle three side lengths form\.\n#\[derive\([^)]*\)\]\npub enum TriangleKind \{/);
    assert.ok(!variant.text.includes('//!'), 'the module doc comment is not the enum’s');
    assert.ok(text.includes(variant.text));
  });

  it('maps a PHP property and a method name to their own declarations, not the whole class', async () => {
    const file = path.join(fixture('textkit-php'), 'src', 'Slugger.php');
    const prop = await enclosingDefinition(cache, { file, range: rangeOf(file, '$maxLength;') });
    const method = await enclosingDefinition(cache, { file, range: rangeOf(file, 'transliterate(string') });
    assert.equal(prop?.text, 'private int $maxLength;');
    assert.match(method?.text ?? '', /^private function transliterate\(string \$text\): string\n\s+\{[\s\S]*return \$result;\n\s+\}$/);
  });

  it('maps a Ruby whole-method range (TypeProf) to the method, and a local assignment to nothing smaller than its method', async () => {
    const file = path.join(fixture('bookshelf-rb'), 'lib', 'bookshelf', 'catalog.rb');
    const start = rangeOf(file, 'def tokens(text)').start;
    const def = await enclosingDefinition(cache, { file, range: { start, end: { line: start.line + 2, character: 7 } } });
    assert.equal(def?.text.split('\n')[0], 'def tokens(text)');
    assert.match(def?.text ?? '', /\bend$/);
    const local = await enclosingDefinition(cache, { file, range: rangeOf(file, 'words = tokens(query)') });
    assert.match(local?.text ?? '', /def search\(query/);
  });

  it('gives nothing for a range outside any definition, or a file of no known language', async () => {
    const file = path.join(fixture('inventory-go'), 'item.go');
    assert.equal(await enclosingDefinition(cache, { file, range: rangeOf(file, 'import "strings"') }), null);
    assert.equal(await enclosingDefinition(cache, { file: path.join(fixture('inventory-go'), 'go.mod'), range: rangeOf(path.join(fixture('inventory-go'), 'go.mod'), 'module') }), null);
  });

  it('reads Location, LocationLink (by its name range) and a single Location, normalising paths like spec/../lib', () => {
    const r = { start: { line: 1, character: 2 }, end: { line: 1, character: 5 } };
    const whole = { start: { line: 0, character: 0 }, end: { line: 9, character: 1 } };
    assert.deepEqual(toLocations([{ uri: 'file:///w/spec/../lib/x.rb', range: r }]), [{ file: '/w/lib/x.rb', range: r }]);
    assert.deepEqual(toLocations({ uri: 'file:///w/a.go', range: r }), [{ file: '/w/a.go', range: r }]);
    assert.deepEqual(toLocations([{ targetUri: 'file:///w/a.rs', targetRange: whole, targetSelectionRange: r }]), [{ file: '/w/a.rs', range: r }]);
    assert.deepEqual(toLocations(null), []);
  });
});

describe('LSP context: the release’s enriched fields', () => {
  const base = {
    task_id: 3, function_name: 'f', file_path: 'r/a.go', focal_code: 'func f() {}', file_content: '', language: 'go',
    metadata: { package: 'p', class_name: '', class_signature: '' },
  };

  it('turns argument_definitions_lsp and focal_method_analysis into the three kinds, deduplicated', () => {
    const task: TaskRecord = {
      ...base,
      function_component: {
        name: 'f', signature: 'func f()', start_line: 1, end_line: 1,
        argument_definitions_lsp: [{ definitions: [{ definition: 'type A struct{}' }, { definition: 'type A struct{}' }] }, { definitions: [] }],
        focal_method_analysis: {
          tokens: [
            { need_definition: true, definition: { code: 'func g() int' }, need_references: true, references: [{ code: 'x := g()' }, { code: '' }] },
            { need_definition: false, definition: { code: 'ignored' }, need_references: false, references: [{ code: 'ignored too' }] },
          ],
          summary: { total_tokens: 2 },
        },
      },
    };
    assert.deepEqual(publishedLspContext(task), {
      argumentDefinitions: ['type A struct{}'],
      calleeDefinitions: ['func g() int'],
      conditionReferences: ['x := g()'],
    });
  });

  it('is null for a base record and for a skipped repository’s empty fields', () => {
    assert.equal(publishedLspContext({ ...base, function_component: { name: 'f', signature: '', start_line: 1, end_line: 1 } }), null);
    const skipped = { name: 'f', signature: '', start_line: 1, end_line: 1, argument_definitions_lsp: [], focal_method_analysis: { tokens: [], summary: { total_tokens: 0 } } };
    assert.equal(publishedLspContext({ ...base, function_component: skipped }), null);
  });
});
