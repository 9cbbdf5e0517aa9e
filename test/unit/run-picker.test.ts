import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findRunFolders, formatRunDate, runPickItem } from '../../src/extension/run-picker-model';
import { tmpDirPerTest, writeJsonl } from '../helpers/run-folders';
import { scanResultRows } from '../../src/engine/store/result-rows';
import type { ResultRecord } from '../../src/engine/store/results';
import { result } from '../helpers/report-fixtures';

describe('the annotator\'s run picker: the extension\'s own runs, described', () => {
  let dir = '';
  tmpDirPerTest('xrt-run-picker-', (d) => (dir = d));

  const run = (parent: string, name: string, results: unknown[], settings?: object, mtime?: Date): string => {
    const folder = path.join(dir, parent, name);
    fs.mkdirSync(folder, { recursive: true });
    writeJsonl(path.join(folder, 'results.jsonl'), results);
    if (settings) fs.writeFileSync(path.join(folder, 'run.json'), JSON.stringify(settings));
    if (mtime) fs.utimesSync(path.join(folder, 'results.jsonl'), mtime, mtime);
    return folder;
  };

  it('lists benchmark runs and the editor\'s scorings newest first, skipping folders without results', () => {
    const older = run('global', '2026-12-01-100000-baseline-standard', [{ id: 'go:1' }, { id: 'go:2' }, { id: 'go:2', xrt: { sample: 1 } }], { provider: 'baseline', model: 'baseline', mode: 'standard' }, new Date(2026, 11, 1, 10, 0));
    const editor = run('workspace', 'editor', [{ id: 'go:7' }], undefined, new Date(2026, 11, 2, 9, 30));
    fs.mkdirSync(path.join(dir, 'global', 'empty'), { recursive: true });
    const found = findRunFolders([path.join(dir, 'global'), path.join(dir, 'workspace'), path.join(dir, 'missing')]);
    assert.deepEqual(found.map((f) => f.dir), [editor, older]);

    assert.deepEqual(runPickItem(found[1]), {
      label: '$(beaker) 2026-12-01-100000-baseline-standard',
      description: `${formatRunDate(new Date(2026, 11, 1, 10, 0).getTime())} · 2 tasks, 3 results · baseline, standard`,
      detail: older,
    });
    assert.deepEqual(runPickItem(found[0]), {
      label: '$(edit) Scorings in the editor',
      description: '2026-12-02 09:30 · 1 task, 1 result · the editor\'s provider at each scoring',
      detail: editor,
    });
  });

  it('counts the results the annotator\'s table shows: a test written twice (scored, then with its mutants) is one, a suite from Improve is one more', async () => {
    const withHash = (r: ResultRecord, hash: string, extra: Partial<ResultRecord['xrt']> = {}): ResultRecord => ({ ...r, xrt: { ...r.xrt, test_hash: hash, ...extra } });
    const suite = (tests: number, hash: string) => ({ tests, test_code: 'merged', test_hash: hash, passed: true, coverage: { covered_lines: 4, total_lines: 4, coverage: 100, covered_line_numbers: [], executable_line_numbers: [] }, rounds: [] });
    const first = result({ id: 'go:1', passed: true, cov: [3, 4] });
    const rows = [
      withHash(first, 'a'),
      withHash(first, 'a', { mutation: null }),
      // Improve kept a test: the slot's row again, with its suite (a row of its own).
      withHash(first, 'a', { suite: suite(2, 's') }),
      // Improve kept none: the suite is the first test.
      withHash(result({ id: 'go:2', passed: true }), 'b', { suite: suite(1, 'b') }),
      withHash(result({ id: 'go:1', sample: 1 }), 'c'),
      // The same slot scored again with another test: both tests are rows.
      withHash(result({ id: 'go:1', sample: 1 }), 'd'),
      withHash(result({ id: null, task: 4, language: 'rust', round: 1 }), 'e'),
    ];
    const folder = run('workspace', 'editor', rows);
    const [info] = findRunFolders([path.join(dir, 'workspace')]);
    assert.equal(info.dir, folder);
    const shown = new Set<string>();
    await scanResultRows(path.join(folder, 'results.jsonl'), () => undefined, (page) => {
      for (const r of page) shown.add(r.key);
    });
    assert.equal(info.results, shown.size, 'the picker counts the rows the table keeps');
    assert.equal(info.results, 6);
    assert.equal(info.tasks, 3);
    assert.match(runPickItem(info).description, / · 3 tasks, 6 results · /);
  });

  it('names a model run\'s provider and model, and says the size of a results file too big to count', () => {
    const folder = run('global', 'r', [{ task_id: 3, xrt: { language: 'go' } }], { provider: 'anthropic', model: 'claude-x', mode: 'lsp' });
    const [info] = findRunFolders([path.join(dir, 'global')]);
    assert.match(runPickItem(info).description, / · 1 task, 1 result · anthropic claude-x, lsp$/);
    const big = runPickItem({ ...info, tasks: undefined, results: undefined, bytes: 40 * 1024 * 1024 });
    assert.match(big.description, / · results\.jsonl of 40 MB · /);
    assert.equal(big.detail, folder);
  });
});
