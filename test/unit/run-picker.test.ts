import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findRunFolders, formatRunDate, runPickItem } from '../../src/extension/run-picker-model';
import { tmpDirPerTest, writeJsonl } from '../helpers/run-folders';
import { dedupeSlots } from '../../src/engine/report/dedupe';
import type { ResultRecord } from '../../src/engine/store/results';

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

  it('counts results as the annotator\'s table and the report do: a slot written twice (scored, then with its mutants) is one', () => {
    const rows = [
      { id: 'go:1', xrt: { language: 'go', provider: 'baseline', model: 'baseline', mode: 'standard', sample: 0, round: 0 } },
      { id: 'go:1', xrt: { language: 'go', provider: 'baseline', model: 'baseline', mode: 'standard', sample: 0, round: 0, mutation: { killed: 1 } } },
      { id: 'go:1', xrt: { language: 'go', provider: 'baseline', model: 'baseline', mode: 'standard', sample: 1, round: 0 } },
      { id: 'go:1', xrt: { language: 'go', provider: 'anthropic', model: 'm', mode: 'standard', sample: 0, round: 0 } },
      { task_id: 4, xrt: { language: 'rust', sample: 0, round: 1 } },
    ];
    const folder = run('workspace', 'editor', rows);
    const [info] = findRunFolders([path.join(dir, 'workspace')]);
    assert.equal(info.dir, folder);
    assert.equal(info.results, dedupeSlots(rows as unknown as ResultRecord[]).results.length);
    assert.equal(info.results, 4);
    assert.equal(info.tasks, 2);
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
