import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  ANNOTATION_LABELS,
  AnnotationStore,
  annotationsFile,
  defaultExportFile,
  exportAnnotatedResults,
  resultKey,
  resultsFile,
  suiteKey,
} from '../../src/engine/store/annotations';
import { checkoutsFile, focalSourceIn, readCheckouts, rememberCheckout, resolveCheckout } from '../../src/engine/store/checkout-map';
import { readResultAt, scanResultRows, type ResultRow } from '../../src/engine/store/result-rows';
import type { ResultRecord } from '../../src/engine/store/results';
import { CLI } from '../helpers/paths';

type Slot = 'passed' | 'failed' | 'nocompile';

/** A result record in the shape `xrepotest bench` writes, with what a test varies. */
function result(taskId: number, slot: Slot, extra: { fileContent?: string; reason?: string; hash?: string; repo?: string } = {}): ResultRecord {
  const compiled = slot !== 'nocompile';
  const passed = slot === 'passed';
  const repo = extra.repo ?? 'shop-go';
  return {
    task_id: taskId,
    id: `id${taskId}`,
    function_name: `F${taskId}`,
    file_path: `${repo}/f${taskId}.go`,
    focal_code: `func F${taskId}() {}`,
    file_content: extra.fileContent ?? `package shop\n\nfunc F${taskId}() {\n\tx := 1\n\t_ = x\n}\n`,
    language: 'go',
    // Four lines, as many as the coverage below counts (a report refuses more lines than the function has).
    function_component: { name: `F${taskId}`, signature: `func F${taskId}()`, start_line: 3, end_line: 6 },
    metadata: { class_name: '', class_signature: '' },
    repository: { name: repo, url: `/nowhere/${repo}`, commit: null },
    test: [`package shop // test of F${taskId}`],
    logs: [`$ go test\n# test: exit ${passed ? 0 : 1}`],
    checks: [{ compilation: compiled, tests: passed, coverage: compiled, invocation: compiled }],
    coverage_stats: [{ covered_lines: compiled ? 1 : 0, total_lines: 4, coverage: compiled ? 25 : 0, covered_line_numbers: compiled ? [3] : [], executable_line_numbers: [3, 4, 5, 6] }],
    xrt: {
      sample: 0,
      round: 0,
      mode: 'standard',
      provider: 'replay',
      model: 'm',
      baseline: false,
      test_hash: extra.hash ?? `h${taskId}`,
      language: 'go',
      executor: { kind: 'local', engine: 'local', versions: {} },
      placement: { testFile: 'x_test.go', notes: [] },
      invocation_strict: compiled,
      failure_category: passed ? null : compiled ? 'logic-assertion' : 'syntactic-compilation',
      failure_label: passed ? null : compiled ? 'Logic & Assertion' : 'Syntactic & Compilation',
      failure_rule: null,
      failure_evidence: null,
      reason: passed ? null : (extra.reason ?? (compiled ? 'the assertion failed' : 'it does not compile')),
      feedback: null,
      test_report: null,
      phases: [],
      error: null,
    },
  } as unknown as ResultRecord;
}

function writeRun(dir: string, records: ResultRecord[], trailingNewline = true): void {
  fs.mkdirSync(dir, { recursive: true });
  const text = records.map((r) => JSON.stringify(r)).join('\n');
  fs.writeFileSync(resultsFile(dir), trailingNewline ? `${text}\n` : text);
}

async function rowsOf(dir: string, pageSize = 500): Promise<{ pages: ResultRow[][]; outcome: Awaited<ReturnType<typeof scanResultRows>> }> {
  const store = AnnotationStore.open(dir);
  const pages: ResultRow[][] = [];
  const outcome = await scanResultRows(resultsFile(dir), (k) => store.get(k), (rows) => void pages.push(rows), { pageSize });
  store.close();
  return { pages, outcome };
}

describe('annotations of a run (engine)', () => {
  let tmp: string;
  beforeEach(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-annot-'))));
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('keys a result by task, sample, round and test hash', () => {
    const a = result(1, 'passed');
    assert.equal(resultKey(a), 'id1#0#0#h1');
    assert.notEqual(resultKey(result(1, 'passed', { hash: 'other' })), resultKey(a), 'a new test is a new result');
    const noId = { ...a, id: undefined };
    assert.equal(resultKey(noId), 'go:1#0#0#h1');
  });

  it('saves annotations append-only; the last one per key wins, a null label clears, and a reopened store reads them back', () => {
    const store = AnnotationStore.open(tmp);
    assert.equal(fs.existsSync(annotationsFile(tmp)), false, 'nothing is written before the first save');
    store.save('k1', 'wrong-assertion', 'expects 3, the function returns 4', new Date('2025-01-01T00:00:00Z'));
    store.save('k2', 'flaky', '');
    store.save('k1', 'hallucinated-api', 'calls inv.Count, which does not exist');
    store.save('k2', null, '');
    store.close();
    assert.equal(fs.readFileSync(annotationsFile(tmp), 'utf8').trim().split('\n').length, 4, 'every save is a line');
    const again = AnnotationStore.open(tmp);
    assert.equal(again.get('k1')?.label, 'hallucinated-api');
    assert.equal(again.get('k1')?.note, 'calls inv.Count, which does not exist');
    assert.equal(again.get('k2'), undefined);
    assert.deepEqual(again.all().map((a) => a.key), ['k1']);
    assert.throws(() => again.save('k3', 'nonsense' as never, ''), /unknown label "nonsense": use one of correct, wrong-assertion/);
    assert.throws(() => again.save('', 'other', ''), /needs the key/);
    again.close();
    assert.ok(ANNOTATION_LABELS.includes('environment'));
  });

  it('survives a save cut short: the torn line is dropped and the earlier annotations stay', () => {
    const store = AnnotationStore.open(tmp);
    store.save('k1', 'correct', 'fine');
    store.close();
    fs.appendFileSync(annotationsFile(tmp), '{"key":"k2","label":"fla');
    const again = AnnotationStore.open(tmp);
    assert.equal(again.get('k1')?.label, 'correct');
    assert.equal(again.get('k2'), undefined);
    again.save('k3', 'other', 'after the crash');
    again.close();
    const lines = fs.readFileSync(annotationsFile(tmp), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { key: string });
    assert.deepEqual(lines.map((l) => l.key), ['k1', 'k3']);
  });

  it('streams results into rows with outcome, category, coverage and annotation, page by page', async () => {
    writeRun(tmp, [result(0, 'passed'), result(1, 'failed', { reason: 'x'.repeat(1000) }), result(2, 'nocompile', { repo: 'other-go' })]);
    const store = AnnotationStore.open(tmp);
    store.save(resultKey(result(1, 'failed')), 'wrong-assertion', 'the expected value is wrong');
    store.close();
    const { pages, outcome } = await rowsOf(tmp, 2);
    assert.deepEqual(pages.map((p) => p.length), [2, 1]);
    const rows = pages.flat();
    assert.deepEqual(rows.map((r) => r.outcome), ['passed', 'failed', 'nocompile']);
    assert.deepEqual(rows.map((r) => r.repository), ['shop-go', 'shop-go', 'other-go']);
    assert.deepEqual(rows.map((r) => r.categoryLabel), [null, 'Logic & Assertion', 'Syntactic & Compilation']);
    assert.deepEqual(rows.map((r) => r.coverage), [25, 25, 0]);
    assert.equal(rows[0].reason, null);
    assert.ok(rows[1].reason!.length <= 300, 'a long reason is shortened for the list');
    assert.equal(rows[1].annotation?.label, 'wrong-assertion');
    assert.equal(rows[0].annotation, null);
    assert.equal(outcome.rows, 3);
    assert.equal(outcome.index.size, 3);
  });

  it('reads one whole result back by its byte position, across chunk boundaries and multi-byte text, without a final newline', async () => {
    // Records bigger than the 1 MB read chunks, with characters of 2-4 bytes that chunks split.
    const big = (n: number): string => `package shop\n// ${'é✓𝄞'.repeat(n)}\nfunc F() {}\n`;
    const records = [result(0, 'passed', { fileContent: big(150_000) }), result(1, 'failed', { fileContent: big(10) }), result(2, 'nocompile', { fileContent: big(200_000) })];
    writeRun(tmp, records, false);
    const { outcome } = await rowsOf(tmp);
    assert.equal(outcome.rows, 3);
    for (const r of records) {
      const at = outcome.index.get(resultKey(r));
      assert.ok(at, resultKey(r));
      assert.deepEqual(readResultAt(resultsFile(tmp), at), r);
    }
  });

  it('skips lines that are not results and counts them', async () => {
    fs.writeFileSync(resultsFile(tmp), `${JSON.stringify(result(0, 'passed'))}\nnot json\n{"task_id":1}\n\n${JSON.stringify(result(1, 'failed'))}\n`);
    const { pages, outcome } = await rowsOf(tmp);
    assert.deepEqual(pages.flat().map((r) => r.functionName), ['F0', 'F1']);
    assert.equal(outcome.skipped, 2);
  });

  it('exports the results with their annotations (null where none), and says which annotations have no result', async () => {
    const records = [result(0, 'passed'), result(1, 'failed'), result(2, 'nocompile')];
    writeRun(tmp, records);
    const store = AnnotationStore.open(tmp);
    store.save(resultKey(records[1]), 'wrong-assertion', 'expects the old price', new Date('2025-02-03T04:05:06Z'));
    store.save('gone#0#0#h', 'other', 'a test regenerated since');
    store.close();
    const out = path.join(tmp, 'out', 'annotated.jsonl');
    const outcome = await exportAnnotatedResults(tmp, out);
    assert.deepEqual(outcome, { records: 3, annotated: 1, orphaned: 1 });
    const lines = fs.readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as ResultRecord & { xrt: { annotation: unknown } });
    assert.deepEqual(lines.map((l) => l.xrt.annotation), [null, { label: 'wrong-assertion', note: 'expects the old price', time: '2025-02-03T04:05:06.000Z' }, null]);
    // Everything else is the result as the run wrote it.
    const { annotation: _annotation, ...xrt } = lines[1].xrt;
    assert.deepEqual({ ...lines[1], xrt }, records[1]);
    assert.deepEqual(fs.readdirSync(path.dirname(out)), ['annotated.jsonl'], 'no temporary file is left');
    await assert.rejects(exportAnnotatedResults(path.join(tmp, 'empty'), out), /holds no results\.jsonl/);
    // Nor after a failed export, once any file operation it started has had time to land.
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(fs.readdirSync(path.dirname(out)), ['annotated.jsonl'], 'a failed export leaves no temporary file');
  });

  it('a suite from improvement rounds is a row of its own: its merged test, coverage and annotation; a suite of one test is none', async () => {
    const first = result(0, 'passed');
    const suite = {
      tests: 2,
      test_code: 'package shop // the merged suite',
      test_hash: 'suite0',
      passed: true,
      coverage: { covered_lines: 3, total_lines: 4, coverage: 75, covered_line_numbers: [3, 4, 5], executable_line_numbers: [3, 4, 5, 6] },
      mutation: null,
      rounds: [{ improve: 1, test_hash: 'r1', kept: true, verdict: 'adds-coverage' as const, reason: 'runs 2 new lines', covered_line_numbers: [4, 5], added_lines: [4, 5], new_detected: [] }],
    };
    const withSuite = { ...first, xrt: { ...first.xrt, suite } } as ResultRecord;
    const noneKept = { ...result(1, 'passed'), xrt: { ...result(1, 'passed').xrt, suite: { ...suite, tests: 1, test_hash: 'h1' } } } as ResultRecord;
    // As the editor writes a slot: scored, then again with its suite.
    writeRun(tmp, [first, withSuite, noneKept]);
    const key = suiteKey(withSuite)!;
    assert.equal(key, 'id0#0#0#suite0');
    assert.equal(suiteKey(first), null);
    assert.equal(suiteKey(noneKept), null, 'no test kept: the suite is the first test');
    const store = AnnotationStore.open(tmp);
    store.save(key, 'correct', 'the suite checks both branches');
    store.close();

    const { pages, outcome } = await rowsOf(tmp);
    const rows = new Map(pages.flat().map((r) => [r.key, r]));
    assert.deepEqual([...rows.keys()], [resultKey(first), key, resultKey(noneKept)], 'the table keeps three rows');
    assert.equal(rows.get(resultKey(first))!.suite, null);
    assert.equal(rows.get(resultKey(first))!.coverage, 25, "the first test's own coverage");
    assert.equal(rows.get(key)!.suite, 2);
    assert.equal(rows.get(key)!.coverage, 75, "the suite's coverage");
    assert.equal(rows.get(key)!.annotation?.label, 'correct');
    assert.equal(rows.get(resultKey(noneKept))!.suite, null);
    const asSuite = readResultAt(resultsFile(tmp), outcome.index.get(key)!);
    assert.deepEqual(asSuite.test, [suite.test_code]);
    assert.deepEqual(asSuite.coverage_stats[0], suite.coverage);
    assert.equal(asSuite.xrt.test_hash, 'suite0');
    assert.match(asSuite.logs[0], /^# the suite of 2 tests from improvement rounds[\s\S]*# round 1: kept \(adds-coverage\): runs 2 new lines/);
    assert.deepEqual(readResultAt(resultsFile(tmp), outcome.index.get(resultKey(first))!), withSuite, 'the first test\'s row reads the record as written');

    const out = path.join(tmp, 'annotated.jsonl');
    const exported = await exportAnnotatedResults(tmp, out);
    assert.equal(exported.annotated, 1);
    assert.equal(exported.orphaned, 0, 'the suite\'s annotation has its result');
    const lines = fs.readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { xrt: { annotation: unknown; suite?: { annotation?: { label: string } } } });
    assert.equal(lines[1].xrt.suite?.annotation?.label, 'correct');
    assert.equal(lines[1].xrt.annotation, null);
  });

  it('exports next to the run folder by default, where a report over the folder does not count them twice', () => {
    assert.equal(defaultExportFile(path.join(tmp, 'runs', 'r1')), path.join(tmp, 'runs', 'r1.annotated.jsonl'));
  });

  it('the CLI exports to a file or to standard output', function () {
    if (!fs.existsSync(CLI)) assert.fail(`${CLI} is missing: run npm run build`);
    const records = [result(0, 'passed'), result(1, 'failed')];
    writeRun(tmp, records);
    const store = AnnotationStore.open(tmp);
    store.save(resultKey(records[0]), 'correct', '');
    store.close();
    const out = path.join(tmp, 'x.jsonl');
    const toFile = spawnSync(process.execPath, [CLI, 'annotations', 'export', tmp, '--out', out], { encoding: 'utf8' });
    assert.equal(toFile.status, 0, toFile.stderr);
    assert.match(toFile.stderr, /exported 2 results \(1 annotated\) to /);
    const toStdout = spawnSync(process.execPath, [CLI, 'annotations', 'export', tmp], { encoding: 'utf8' });
    assert.equal(toStdout.status, 0, toStdout.stderr);
    assert.equal(toStdout.stdout, fs.readFileSync(out, 'utf8'));
    assert.equal((JSON.parse(toStdout.stdout.split('\n')[0]) as { xrt: { annotation: { label: string } } }).xrt.annotation.label, 'correct');
    const missing = spawnSync(process.execPath, [CLI, 'annotations', 'export', path.join(tmp, 'nope')], { encoding: 'utf8' });
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /holds no results\.jsonl: give a run folder made by `xrepotest bench --run-dir`/);
  });

  describe('checkouts of a run', () => {
    it('asks for a missing checkout once, remembers it in checkouts.json, and keeps the other entries', async () => {
      const checkout = path.join(tmp, 'co');
      fs.mkdirSync(checkout);
      fs.writeFileSync(checkoutsFile(tmp), JSON.stringify({ 'other-go': '/somewhere/else' }));
      const asked: string[] = [];
      const task = result(0, 'passed');
      const first = await resolveCheckout(tmp, task, async (name) => (asked.push(name), checkout));
      assert.equal(first, checkout);
      const second = await resolveCheckout(tmp, task, async () => assert.fail('asked again'));
      assert.equal(second, checkout);
      assert.deepEqual(asked, ['shop-go']);
      assert.deepEqual(readCheckouts(tmp), { 'other-go': '/somewhere/else', 'shop-go': checkout });
    });

    it('gives undefined when the user gives no folder, and refuses a path that is not a folder', async () => {
      const task = result(0, 'passed');
      assert.equal(await resolveCheckout(tmp, task, async () => undefined), undefined);
      await assert.rejects(resolveCheckout(tmp, task, async () => path.join(tmp, 'nope')), /is not a folder: pick the checkout of shop-go/);
      assert.equal(fs.existsSync(checkoutsFile(tmp)), false);
      rememberCheckout(tmp, 'x', tmp);
      fs.writeFileSync(checkoutsFile(tmp), '{oops');
      assert.throws(() => readCheckouts(tmp), /checkouts\.json is not JSON .*: fix or delete it/);
    });

    it("shows the checkout's file only while it is still the task's code", () => {
      const task = result(0, 'passed');
      const checkout = path.join(tmp, 'co');
      fs.mkdirSync(checkout);
      assert.deepEqual(focalSourceIn(undefined, task), { kind: 'task', why: 'no checkout of its repository was given' });
      assert.equal(focalSourceIn(checkout, task).kind, 'task');
      fs.writeFileSync(path.join(checkout, 'f0.go'), task.file_content);
      assert.deepEqual(focalSourceIn(checkout, task), { kind: 'checkout', file: path.join(checkout, 'f0.go') });
      fs.writeFileSync(path.join(checkout, 'f0.go'), `${task.file_content}// edited\n`);
      assert.match((focalSourceIn(checkout, task) as { why: string }).why, /changed since the run/);
    });
  });
});
