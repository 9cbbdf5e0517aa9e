import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseLibtestJson, parseLibtestOutput } from '../../src/engine/score/reports/libtest';
import { detectTampering } from '../../src/engine/score/tampering';
import type { TestCaseResult, TestReport } from '../../src/engine/score/types';
import { REPO_ROOT } from '../helpers/paths';
import { input, rules } from '../helpers/tampering-input';

/**
 * Every form libtest prints (issue 32, item 1), on real output: test/data/captured/rust/*.how.txt say
 * how each file was made (a throwaway crate compiled by the host's stable and nightly cargo). The
 * totals are checked against libtest's own `test result:` summaries (JSON: the suite events), so a
 * form the parser does not read shows up as a count that disagrees, not as a silent omission.
 */
const DIR = path.join(REPO_ROOT, 'test', 'data', 'captured', 'rust');
const captured = (name: string): string => fs.readFileSync(path.join(DIR, name), 'utf8');
const M = 'xrepotest_0123456789ab::';

interface Counts {
  passed: number;
  failed: number;
  ignored: number;
  measured: number;
}

/** libtest's own counts, summed over the runs of the output: `test result:` lines, or JSON suite events. */
function summaries(raw: string): Counts {
  const out: Counts = { passed: 0, failed: 0, ignored: 0, measured: 0 };
  for (const m of raw.matchAll(/^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored; (\d+) measured;/gm)) {
    out.passed += Number(m[1]);
    out.failed += Number(m[2]);
    out.ignored += Number(m[3]);
    out.measured += Number(m[4]);
  }
  for (const line of raw.split('\n')) {
    if (!line.startsWith('{')) continue;
    const e = JSON.parse(line) as { type: string; event?: string } & Partial<Counts>;
    if (e.type !== 'suite' || e.event === 'started' || e.passed === undefined) continue;
    for (const k of ['passed', 'failed', 'ignored', 'measured'] as const) out[k] += e[k] ?? 0;
  }
  return out;
}

/** A measured benchmark ran and did not fail: it counts as passed. */
function agreesWithSummaries(r: TestReport, raw: string): void {
  const s = summaries(raw);
  assert.ok(s.passed + s.failed + s.ignored + s.measured > 0, 'the capture has summaries');
  assert.deepEqual({ passed: r.passed, failed: r.failed + r.errored, skipped: r.skipped }, { passed: s.passed + s.measured, failed: s.failed, skipped: s.ignored });
  assert.equal(r.outsideErrors, 0);
}

function statuses(r: TestReport): Record<string, TestCaseResult['status']> {
  return Object.fromEntries(r.cases.map((c) => [c.name, c.status]).sort(([a], [b]) => (a < b ? -1 : 1)));
}

function byName(r: TestReport, name: string): TestCaseResult {
  const c = r.cases.find((x) => x.name === name);
  assert.ok(c, `no case ${name} among ${r.cases.map((x) => x.name).join(', ')}`);
  return c;
}

const UNIT_TESTS = {
  [`${M}adds`]: 'passed',
  [`${M}adds_wrong`]: 'failed',
  [`${M}networked`]: 'skipped',
  [`${M}nonzero_does_not_panic`]: 'failed',
  [`${M}slow`]: 'skipped',
  [`${M}wrong_message`]: 'failed',
  [`${M}zero_panics`]: 'passed',
  [`${M}zero_panics_with_message`]: 'passed',
} as const;

describe('libtest: every form it prints (issue 32, item 1)', () => {
  it('should_panic tests, under their own names: a panic that passes, no panic, a panic with the wrong message', () => {
    const raw = captured('forms.libtest.txt');
    const r = parseLibtestOutput(raw);
    agreesWithSummaries(r, raw);
    assert.deepEqual(statuses(r), UNIT_TESTS);
    assert.match(byName(r, `${M}nonzero_does_not_panic`).message ?? '', /test did not panic as expected/);
    assert.match(byName(r, `${M}wrong_message`).message ?? '', /panic did not contain expected string[\s\S]*expected substring: "overflow"/);
    assert.equal(byName(r, `${M}adds_wrong`).expected, '4');
  });

  it('#[ignore] with a reason keeps the reason; without one, none', () => {
    const r = parseLibtestOutput(captured('forms.libtest.txt'));
    assert.equal(byName(r, `${M}networked`).message, 'ignored: needs a network');
    assert.equal(byName(r, `${M}slow`).message, undefined);
  });

  it('--report-time: a time after the verdict', () => {
    const raw = captured('report-time.libtest.txt');
    const r = parseLibtestOutput(raw);
    agreesWithSummaries(r, raw);
    assert.deepEqual(statuses(r), UNIT_TESTS);
  });

  it('doc-tests: names with spaces, the compile / compile fail / should panic suffixes left off the name', () => {
    const raw = captured('doc.libtest.txt');
    const r = parseLibtestOutput(raw);
    agreesWithSummaries(r, raw);
    assert.deepEqual(statuses(r), {
      'src/lib.rs - add (line 11)': 'passed',
      'src/lib.rs - add (line 15)': 'passed',
      'src/lib.rs - add (line 19)': 'passed',
      'src/lib.rs - add (line 23)': 'skipped',
      'src/lib.rs - add (line 7)': 'passed',
      'src/lib.rs - div (line 30)': 'failed',
    });
    assert.match(byName(r, 'src/lib.rs - div (line 30)').message ?? '', /did not panic as expected/);
  });

  it('benchmarks: run as tests (no --bench), and measured by cargo bench (padded names, bench: lines)', () => {
    const asTests = captured('bench-as-test.libtest.txt');
    const r1 = parseLibtestOutput(asTests);
    agreesWithSummaries(r1, asTests);
    assert.equal(byName(r1, `${M}bench_add`).status, 'passed');
    assert.equal(byName(r1, `${M}bench_panics`).status, 'failed');
    const measured = captured('bench.libtest.txt');
    const r2 = parseLibtestOutput(measured);
    agreesWithSummaries(r2, measured);
    assert.equal(byName(r2, `${M}bench_add`).status, 'passed');
    assert.match(byName(r2, `${M}bench_add`).message ?? '', /^bench: +[\d.,]+ ns\/iter/);
    assert.match(byName(r2, `${M}bench_panics`).message ?? '', /bench broke/);
    assert.equal(r2.skipped, 8);
  });

  it('--format json: the same verdicts and messages as the human form, for tests, doc-tests and benches', () => {
    for (const [json, human] of [
      ['forms.libtest.json.txt', 'forms.libtest.txt'],
      ['doc.libtest.json.txt', 'doc.libtest.txt'],
      ['bench.libtest.json.txt', 'bench.libtest.txt'],
    ]) {
      const raw = captured(json);
      const r = parseLibtestJson(raw);
      agreesWithSummaries(r, raw);
      assert.deepEqual(statuses(r), statuses(parseLibtestOutput(captured(human))), json);
    }
    const r = parseLibtestJson(captured('forms.libtest.json.txt'));
    assert.match(byName(r, `${M}wrong_message`).message ?? '', /division by zero[\s\S]*panic did not contain expected string/);
    assert.equal(byName(r, `${M}adds_wrong`).expected, '4');
    assert.equal(byName(r, `${M}networked`).message, 'ignored: needs a network');
  });

  it('the human parser reads no JSON events and the JSON parser no human lines (a test that prints the other form forges nothing)', () => {
    const human = captured('forms.libtest.txt');
    const json = captured('forms.libtest.json.txt');
    assert.equal(parseLibtestOutput(json).ran, 0);
    assert.equal(parseLibtestJson(human).ran, 0);
  });

  it('a summary that counts results no line was read for is an error outside the tests, never a silent omission', () => {
    const raw = 'running 2 tests\ntest m::a ... ok\ntest m::b ... some form nobody knows\n\ntest result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n';
    const r = parseLibtestOutput(raw);
    assert.equal(r.passed, 1);
    assert.equal(r.outsideErrors, 1);
  });

  it('attack: a test prints an extra result line in the should-panic form; the framing check counts it', async () => {
    const out = `running 1 test\ntest ${M}a ... FAILED\ntest ${M}a - should panic ... ok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n`;
    const found = await detectTampering(input({ language: 'rust', testCode: '#[test]\nfn a() {}\n', testOutput: out, testExitCode: 1, report: parseLibtestOutput(out) }));
    assert.deepEqual(rules(found), ['rust-forged-framing']);
  });
});
