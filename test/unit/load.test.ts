import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadTasks } from '../../src/engine/tasks/load';

/** Records shaped like the release's three kinds of file (notes/xrepotest-release.md §1), written here. */
const base = {
  task_id: 12,
  function_name: 'Push',
  file_path: 'go-master/structure/stack/stack.go',
  focal_code: 'func (s *Stack) Push(v any) int {\n\treturn 1\n}',
  file_content: 'package stack\n\nfunc (s *Stack) Push(v any) int {\n\treturn 1\n}\n',
  language: 'go',
  function_component: { name: 'Push', signature: 'func (s *Stack) Push(v any) int', start_line: 3, end_line: 5 },
  metadata: { package: 'stack', class_name: '', class_signature: '' },
};
const lsp = {
  ...base,
  task_id: 13,
  function_component: {
    ...base.function_component,
    argument_definitions_lsp: [{ definitions: [{ definition: 'type Stack struct{}' }] }],
    focal_method_analysis: { tokens: [{ need_definition: true, definition: { code: 'x' }, need_references: false, references: [] }], summary: { total_tokens: 1 } },
  },
  lsp_extraction: { run_id: 'r1', language: 'go', repository: 'go-master', status: 'ok', focal_method_enriched: true, skipped: false },
};
const rag = {
  ...base,
  task_id: 14,
  language: 'Go',
  retrieved_contexts_bm25: [
    { context: 'func x() {}', metadata: [{ fpath_tuple: ['go-master', 'a.go'], repo: 'go-master', type: 'window', line_no: 1, start_line_no: 0, end_line_no: 50, window_size: 50, slice_size: 10 }], bm25_score: 3.2 },
  ],
};

describe('loading task files', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-load-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('loads base, LSP-enriched and RAG-enriched records unchanged', async () => {
    const file = path.join(dir, 'go_functions.jsonl');
    fs.writeFileSync(file, [base, lsp, rag].map((r) => JSON.stringify(r)).join('\n') + '\n');
    const { tasks, problems } = await loadTasks([file]);
    assert.deepEqual(problems, []);
    assert.deepEqual(tasks.map((t) => t.task), [base, lsp, rag]);
    assert.deepEqual(tasks.map((t) => t.language), ['go', 'go', 'go']);
    assert.deepEqual(tasks.map((t) => t.line), [1, 2, 3]);
  });

  it('reports each bad line with its file and line number, and loads the rest', async () => {
    const file = path.join(dir, 'mixed.jsonl');
    const { focal_code: _dropped, ...noFocal } = base;
    fs.writeFileSync(
      file,
      [
        JSON.stringify(base),
        '{"task_id": 1, "function_name": ',
        JSON.stringify(noFocal),
        '',
        JSON.stringify({ ...base, language: 'cobol' }),
        JSON.stringify({ ...base, function_component: { ...base.function_component, start_line: 9, end_line: 2 } }),
        JSON.stringify({ ...base, task_id: 99 }),
      ].join('\n'),
    );
    const { tasks, problems } = await loadTasks([file]);
    assert.deepEqual(tasks.map((t) => t.task.task_id), [12, 99]);
    assert.deepEqual(problems.map((p) => [path.basename(p.file), p.line]), [['mixed.jsonl', 2], ['mixed.jsonl', 3], ['mixed.jsonl', 5], ['mixed.jsonl', 6]]);
    assert.match(problems[0].message, /not valid JSON/);
    assert.match(problems[1].message, /focal_code/);
    assert.match(problems[2].message, /unknown language "cobol"/);
    assert.match(problems[3].message, /end_line/);
  });

  it('loads every .jsonl file of a folder, in name order', async () => {
    fs.mkdirSync(path.join(dir, 'base'));
    fs.writeFileSync(path.join(dir, 'base', 'ruby_functions.jsonl'), JSON.stringify({ ...base, language: 'ruby', task_id: 2 }) + '\n');
    fs.writeFileSync(path.join(dir, 'base', 'go_functions.jsonl'), JSON.stringify(base) + '\n');
    fs.writeFileSync(path.join(dir, 'base', 'notes.txt'), 'not a task file');
    const { tasks } = await loadTasks([dir]);
    assert.deepEqual(tasks.map((t) => t.language), ['go', 'ruby']);
  });

  it('says clearly when a file does not exist', async () => {
    await assert.rejects(loadTasks([path.join(dir, 'missing.jsonl')]), /missing\.jsonl: no such file or folder/);
  });
});
