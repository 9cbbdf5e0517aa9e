import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AnnotationStore, exportAnnotatedResults, resultsFile } from '../../src/engine/store/annotations';
import { annotatedSourceOf, readReleaseResultAt, releaseLineRows, releaseResultsFile, resultsOf } from '../../src/engine/store/release-result-rows';
import { scanResultRows, type ResultRow } from '../../src/engine/store/result-rows';
import { emptyReleaseRow, jsonl, releaseRow } from '../helpers/release-rows';
import { result } from '../helpers/report-fixtures';

/** The annotator (its engine half: rows, one result, export) over a folder of the release's pipeline. */
describe("the annotator over the release's detailed_results.jsonl", () => {
  let dir: string;
  let runDir: string;
  const rows = [
    releaseRow({ task: 0, responses: [{ passed: true, invoked: true, cov: [6, 8] }, { compiled: true, passed: false, cov: [2, 8] }] }),
    releaseRow({ task: 1, responses: [{ compiled: false, cov: null }] }),
    emptyReleaseRow(2),
  ];
  const hostile = releaseRow({ task: 3, responses: [{ passed: true, cov: [1, 1] }] }) as Record<string, any>;
  hostile.coverage_stats[0] = { covered_lines: 1e9, total_lines: 1e9 };
  const refused = { ...releaseRow({ task: 4, responses: [{ passed: true }] }), file_path: '/etc/passwd' };

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-release-annotator-'));
    runDir = path.join(dir, 'results', 'go', 'standard', 'gpt-4o');
    fs.mkdirSync(runDir, { recursive: true });
    fs.writeFileSync(releaseResultsFile(runDir), jsonl([...rows, hostile, refused]) + 'not json\n');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const scan = async (): Promise<{ rows: ResultRow[]; outcome: Awaited<ReturnType<typeof scanResultRows>> }> => {
    const store = AnnotationStore.open(runDir);
    const got: ResultRow[] = [];
    const outcome = await scanResultRows(releaseResultsFile(runDir), (k) => store.get(k), (page) => void got.push(...page), { lineRows: releaseLineRows(releaseResultsFile(runDir)), pageSize: 2 });
    store.close();
    return { rows: got, outcome };
  };

  it('finds the release file where there is no results.jsonl of ours, and prefers ours where both are', () => {
    assert.deepEqual(resultsOf(runDir, resultsFile(runDir)), { file: releaseResultsFile(runDir), harness: 'release' });
    const both = path.join(dir, 'both');
    fs.mkdirSync(both);
    fs.writeFileSync(resultsFile(both), jsonl([result({ task: 0 })]));
    fs.writeFileSync(releaseResultsFile(both), jsonl(rows));
    assert.equal(resultsOf(both, resultsFile(both))?.harness, 'xrepotest');
    assert.equal(resultsOf(path.join(dir, 'none'), resultsFile(path.join(dir, 'none'))), null);
  });

  it('lists one row per response, with what the harness did not record as not recorded, and skips lines it cannot use', async () => {
    const { rows: got, outcome } = await scan();
    // Task 0: two responses, task 1: one, task 2: none (no test to annotate), task 3: one; the refused row and the non-JSON line are skipped.
    assert.equal(outcome.rows, 4);
    assert.equal(outcome.skipped, 2);
    const hash = (t: unknown): string => createHash('sha256').update(String(t)).digest('hex').slice(0, 16);
    assert.deepEqual(
      got.map((r) => [r.key, r.outcome, r.category, r.coverage, r.sample, r.model]),
      [
        [`go:0#0#0#${hash((rows[0].test as string[])[0])}`, 'passed', null, 75, 0, 'gpt-4o'],
        [`go:0#1#0#${hash((rows[0].test as string[])[1])}`, 'failed', 'not-recorded', 25, 1, 'gpt-4o'],
        [`go:1#0#0#${hash((rows[1].test as string[])[0])}`, 'nocompile', 'not-recorded', null, 0, 'gpt-4o'],
        // A coverage of a billion lines in a 20-line function is not shown as 100 %.
        [`go:3#0#0#${hash(hostile.test[0])}`, 'passed', null, null, 0, 'gpt-4o'],
      ],
    );
    assert.equal(got[1].categoryLabel, "Not recorded (the release's harness)");
    assert.equal(got[1].reason, '--- FAIL: TestX', "the first line of the harness's log");
    assert.equal(outcome.index.get(got[1].key)?.response, 1);
  });

  it('reads one response back as a result, its test, log and counts, saying what the release does not record', async () => {
    const { rows: got, outcome } = await scan();
    const view = readReleaseResultAt(releaseResultsFile(runDir), outcome.index.get(got[1].key)!);
    assert.deepEqual(view.test, [(rows[0].test as string[])[1]]);
    assert.deepEqual(view.logs, ['--- FAIL: TestX']);
    assert.deepEqual(view.checks, [{ compilation: true, tests: false, coverage: true, invocation: false }]);
    assert.deepEqual(view.coverage_stats, [{ covered_lines: 2, total_lines: 8, coverage: 25, covered_line_numbers: [], executable_line_numbers: [] }]);
    assert.equal(view.xrt.harness, 'release');
    assert.deepEqual([view.xrt.sample, view.xrt.mode, view.xrt.model, view.xrt.failure_category], [1, 'standard', 'gpt-4o', null]);
    assert.ok(view.xrt.not_recorded.includes('failure category') && view.xrt.not_recorded.includes('which lines ran'));
    // The file changed since the scan: said, not a wrong record.
    const moved = { ...outcome.index.get(got[1].key)!, response: 7 };
    assert.throws(() => readReleaseResultAt(releaseResultsFile(runDir), moved), /changed since it was read/);
  });

  it('exports the rows as they are with one annotation per response, and counts annotations whose result is gone', async () => {
    const { rows: got } = await scan();
    const store = AnnotationStore.open(runDir);
    store.save(got[1].key, 'wrong-assertion', 'expects 3, the function returns 2');
    store.save('go:9#0#0#0000000000000000', 'other', 'a result no longer in the file');
    store.close();
    const out = path.join(dir, 'export.jsonl');
    const outcome = await exportAnnotatedResults(runDir, out, undefined, annotatedSourceOf(runDir));
    assert.deepEqual(outcome, { records: 4, annotated: 1, orphaned: 1 });
    const lines = fs.readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
    assert.equal(lines.length, 4, 'the three sound rows and the one with a bad coverage value; not the refused row');
    assert.deepEqual(lines[0].xrt_annotations.map((a: { label: string } | null) => a?.label ?? null), [null, 'wrong-assertion']);
    assert.deepEqual(lines[2].xrt_annotations, [], 'a task without responses has nothing to annotate');
    const { xrt_annotations: _, ...asWritten } = lines[0];
    assert.deepEqual(asWritten, rows[0], 'the row itself as the release wrote it');
  });
});
