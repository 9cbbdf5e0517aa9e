/// <reference lib="dom" />
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Command } from 'commander';
import { registerReportCommand } from '../../src/cli/commands/report';
import { runReport } from '../../src/cli/report-command';
import { bootstrapRatios, createRng, quantileSorted, DEFAULT_RESAMPLES } from '../../src/engine/report/bootstrap';
import { compareRuns, holm, mcnemar } from '../../src/engine/report/compare';
import { reportHtml } from '../../src/engine/report/html';
import { loadResults } from '../../src/engine/report/load';
import { reportMarkdown } from '../../src/engine/report/markdown';
import { estimateMetrics } from '../../src/engine/report/metrics';
import { buildReport, buildReportFromSlots } from '../../src/engine/report/report';
import { toSlot, type MutationOutcome } from '../../src/engine/report/slots';
import { ALL } from '../../src/engine/report/tables';
import type { ResultRecord } from '../../src/engine/store/results';
import { result, run } from '../helpers/report-fixtures';

const mutation = (killed: number, viable: number): MutationOutcome => ({
  mutants: viable + 1,
  viable,
  killed,
  survived: viable - killed,
  timed_out: 0,
  unviable: 1,
  score: viable ? killed / viable : 0,
});

const approx = (a: number, b: number, eps = 1e-9): void => assert.ok(Math.abs(a - b) <= eps * Math.max(1, Math.abs(b)), `${a} ≈ ${b}`);

describe('report: bootstrap intervals', () => {
  it('a fixed seed gives the same interval, and another seed (almost surely) another one', () => {
    // Coverage-like fractions: a binary column's quantiles fall on few values, so two seeds could agree.
    const num = Float64Array.from({ length: 60 }, (_, i) => (i * 0.37) % 1);
    const den = new Float64Array(60).fill(1);
    const a = bootstrapRatios([{ num, den }], { seed: 7 })[0];
    const b = bootstrapRatios([{ num, den }], { seed: 7 })[0];
    const c = bootstrapRatios([{ num, den }], { seed: 8 })[0];
    assert.deepEqual(a, b);
    assert.notDeepEqual(a, c);
    // The same generator sequence for the same seed, and numbers in [0, 1).
    const r1 = createRng(42);
    const r2 = createRng(42);
    for (let i = 0; i < 100; i++) {
      const x = r1();
      assert.equal(x, r2());
      assert.ok(x >= 0 && x < 1);
    }
  });

  it('contains the point estimate and narrows with more data', () => {
    const small = estimateMetrics(run('go', 40, 12).map(toSlot), 'k', { mutation: false }).metrics.tpr!;
    const large = estimateMetrics(run('go', 400, 120).map(toSlot), 'k', { mutation: false }).metrics.tpr!;
    for (const e of [small, large]) {
      assert.equal(e.value, 30);
      assert.ok(e.low <= e.value && e.value <= e.high, JSON.stringify(e));
      assert.ok(e.low < e.high);
    }
    assert.ok(large.high - large.low < (small.high - small.low) / 2, `${JSON.stringify(large)} vs ${JSON.stringify(small)}`);
    // A binomial proportion's 95% interval is about ±1.96·sqrt(p(1−p)/n): ±4.5 points at n = 400.
    assert.ok(Math.abs((large.high - large.low) / 2 - 1.96 * Math.sqrt((0.3 * 0.7) / 400) * 100) < 1, JSON.stringify(large));
  });

  it('uses 10,000 resamples by default (METRICS.md) and degenerate data gives a zero-width interval', () => {
    assert.equal(DEFAULT_RESAMPLES, 10_000);
    assert.equal(buildReport(run('go', 5, 1)).statistics.resamples, 10_000);
    const all = estimateMetrics(run('go', 10, 10).map(toSlot), 'k', { mutation: false }).metrics;
    assert.deepEqual([all.tpr!.low, all.tpr!.value, all.tpr!.high], [100, 100, 100]);
    const none = estimateMetrics(run('go', 10, 0).map(toSlot), 'k', { mutation: false }).metrics;
    assert.deepEqual([none.tpr!.low, none.tpr!.high], [0, 0]);
    assert.equal(none.covAtPass, null, 'no passing slot: Cov@Pass has no denominator');
  });

  it('interpolates quantiles between order statistics', () => {
    assert.equal(quantileSorted([0, 10], 0.5), 5);
    assert.equal(quantileSorted([1, 2, 3, 4, 5], 0.25), 2);
    assert.ok(Number.isNaN(quantileSorted([], 0.5)));
  });
});

describe('report: tables', () => {
  const results = [
    // go: 10 slots, 4 pass; 2 do not compile; coverage 3/4 on passing, 1/4 on two failing ones.
    ...Array.from({ length: 10 }, (_, i) =>
      result({
        language: 'go',
        repo: i < 6 ? 'alpha' : 'beta',
        task: i,
        passed: i < 4,
        compiled: i < 8,
        cov: i < 4 ? [3, 4] : i < 6 ? [1, 4] : [0, 4],
        invoked: i !== 3 && i < 8,
        strict: i < 2,
        mutation: i < 4 ? mutation(i, 4) : null,
      }),
    ),
    // php: 4 slots, 1 pass, one failure left unclassified.
    result({ language: 'php', task: 0, passed: true, cov: [2, 2] }),
    result({ language: 'php', task: 1, compiled: true, failure: 'api-hallucination', cov: [1, 2] }),
    result({ language: 'php', task: 2, compiled: true, failure: null }),
    result({ language: 'php', task: 3, compiled: false, failure: 'syntactic-compilation', cov: [0, 0] }),
  ];
  const report = buildReport(results, { resamples: 500 });

  it('divides every rate by all slots, and the @Pass metrics by passing slots', () => {
    const go = report.tables.languages.rows.find((r) => r.group.language === 'go')!;
    assert.equal(go.slots, 10);
    assert.equal(go.passing, 4);
    assert.equal(go.metrics.csr!.value, 80);
    assert.equal(go.metrics.tpr!.value, 40);
    // (4·0.75 + 2·0.25) / 10
    assert.equal(go.metrics.cov!.value, 35);
    assert.equal(go.metrics.covAtPass!.value, 75);
    assert.equal(go.metrics.covAtPass!.n, 4);
    assert.equal(go.metrics.ir!.value, 70);
    assert.equal(go.metrics.irStrict!.value, 20);
    // MS: (0 + 1/4 + 2/4 + 3/4) / 10 with no-run slots as 0; MS@Pass over the 4 passing slots.
    assert.equal(go.metrics.ms!.value, 15);
    assert.equal(go.metrics.msAtPass!.value, 37.5);
    const all = report.tables.languages.rows.find((r) => r.group.language === ALL)!;
    assert.equal(all.slots, 14);
    assert.equal(all.metrics.tpr!.value, Math.round((5 / 14) * 10000) / 100);
    for (const r of report.tables.languages.rows) {
      for (const e of Object.values(r.metrics)) if (e) assert.ok(e.low <= e.value && e.value <= e.high, `${r.group.language}: ${JSON.stringify(e)}`);
    }
  });

  it('does not depend on the order of the input, and gives the same slots the same interval in every table', () => {
    const shuffled = [...results].reverse();
    shuffled.push(shuffled.shift()!);
    assert.deepEqual(buildReport(shuffled, { resamples: 500 }), report);
    const goLanguage = report.tables.languages.rows.find((r) => r.group.language === 'go')!;
    const goMode = report.tables.modes.rows.find((r) => r.group.language === 'go')!;
    assert.deepEqual(goMode.metrics, goLanguage.metrics);
    const other = buildReport(results, { resamples: 500, seed: 1 });
    assert.notDeepEqual(other.tables.languages.rows[0].metrics.cov, goLanguage.metrics.cov, 'the seed is used');
    assert.equal(other.tables.languages.rows[0].metrics.cov!.value, goLanguage.metrics.cov!.value);
  });

  it('shows MS as not run when no slot has a mutation result', () => {
    const r = buildReport(run('go', 6, 3), { resamples: 200 });
    assert.equal(r.totals.mutationRan, false);
    assert.equal(r.tables.languages.rows[0].metrics.ms, null);
    assert.doesNotMatch(reportMarkdown(r), /\| MS \|/);
    assert.match(reportMarkdown(r), /mutation testing did not run/);
  });

  it('breaks results down by repository, mode, and (model, mode) only when there are several', () => {
    const repos = report.tables.repositories.rows.filter((r) => r.group.language === 'go');
    assert.deepEqual(repos.map((r) => [r.group.repository, r.slots]), [['alpha', 6], ['beta', 4], [ALL, 10]]);
    assert.deepEqual(report.tables.modes.rows.map((r) => [r.group.mode, r.group.language]), [['standard', 'go'], ['standard', 'php'], ['standard', ALL]]);
    assert.equal(report.tables.models, null);
    const mixed = buildReport([...run('go', 4, 2), ...run('go', 4, 3, { mode: 'file' }), ...run('go', 4, 1, { model: null, provider: null, baseline: true })], { resamples: 200 });
    const models = mixed.tables.models!;
    assert.deepEqual(models.groupBy, ['model', 'mode', 'language']);
    assert.deepEqual(
      models.rows.map((r) => [r.group.model, r.group.mode, r.slots, r.metrics.tpr!.value, r.baseline]),
      [
        ['baseline', 'standard', 4, 25, 'all'],
        ['model-x', 'file', 4, 75, 'none'],
        ['model-x', 'standard', 4, 50, 'none'],
      ],
    );
    assert.deepEqual(mixed.tables.modes.rows.map((r) => [r.group.mode, r.slots, r.baseline]), [['file', 4, 'none'], ['standard', 8, 'some']]);
  });

  it('gives failure categories as shares of all slots, each column summing to 100', () => {
    const f = report.tables.failures;
    assert.deepEqual(f.columns.map((c) => [c.group.language, c.slots]), [['go', 10], ['php', 4], [ALL, 14]]);
    f.columns.forEach((_, i) => approx(f.rows.reduce((a, r) => a + r.shares[i], 0), 100, 1e-3));
    const row = (cat: string) => f.rows.find((r) => r.category === cat)!;
    assert.deepEqual(row('none').counts, [4, 1, 5]);
    assert.deepEqual(row('syntactic-compilation').counts, [2, 1, 3]);
    assert.deepEqual(row('logic-assertion').counts, [4, 0, 4]);
    assert.deepEqual(row('unclassified').counts, [0, 1, 1], 'a failing slot without a category is kept visible');
    assert.equal(row('api-hallucination').shares[1], 25);
  });

  it('reports passing slots that never call the focal function (IR vs TPR)', () => {
    const go = report.tables.invocationGap.rows.find((r) => r.language === 'go')!;
    assert.equal(go.passing, 4);
    assert.equal(go.notInvoked.count, 1);
    assert.equal(go.notInvoked.value, 25);
    assert.equal(go.notInvokedStrict.count, 2);
    assert.ok(go.notInvoked.low! <= 25 && go.notInvoked.high! >= 25);
    const php = report.tables.invocationGap.rows.find((r) => r.language === 'php')!;
    assert.equal(php.notInvoked.value, 0);
  });

  it('labels the offline baseline as a lower bound wherever it appears', () => {
    const r = buildReport([...run('go', 4, 2, { baseline: true, model: null }), ...run('php', 4, 1)], { resamples: 200 });
    assert.equal(r.totals.baselineSlots, 4);
    assert.match(r.notes.join(' '), /lower bound/, 'the JSON carries the label too');
    assert.deepEqual(buildReport(run('php', 4, 1), { resamples: 50 }).notes, []);
    assert.equal(r.tables.languages.rows.find((x) => x.group.language === 'go')!.baseline, 'all');
    assert.equal(r.tables.languages.rows.find((x) => x.group.language === ALL)!.baseline, 'some');
    const md = reportMarkdown(r);
    assert.match(md, /4 of 8 slots come from the offline baseline provider: a lower bound/);
    assert.match(md, /^\| go † \| 4 \|/m);
    assert.match(reportHtml(r), /id="baseline-notice"/);
  });
});

describe("report: McNemar's test and Holm-Bonferroni", () => {
  // Expected values from statsmodels 0.15 / scipy 1.17:
  //   mcnemar([[0,b],[c,0]], exact=(b+c<25), correction=True).pvalue
  //   multipletests([...], method='holm')
  it('uses the exact binomial test below 25 discordant pairs', () => {
    const r = mcnemar(3, 12);
    assert.equal(r.method, 'exact-binomial');
    assert.equal(r.statistic, 3);
    approx(r.p, 0.03515625);
    approx(mcnemar(0, 7).p, 0.015625);
    assert.equal(mcnemar(5, 5).p, 1);
    // 24 discordant pairs is still exact: 2·P(X ≤ 6), X ~ B(24, ½); scipy binomtest(6, 24, 0.5).pvalue.
    assert.equal(mcnemar(6, 18).method, 'exact-binomial');
    approx(mcnemar(6, 18).p, 0.022655844688415527);
  });

  it('uses chi-square with continuity correction from 25 discordant pairs on, keeping tiny p-values', () => {
    const r = mcnemar(10, 30);
    assert.equal(r.method, 'chi-square-cc');
    approx(r.statistic!, 9.025);
    approx(r.p, 0.002663119259138558, 1e-7);
    approx(mcnemar(42, 6).p, 4.3763180221643244e-07, 1e-7);
    approx(mcnemar(20, 13).p, 0.2962698714842834, 1e-7);
    // (|200 − 10| − 1)² / 210 = 170.1; 1 − CDF would round this to 0.
    approx(mcnemar(200, 10).p, 7.03599507762493e-39, 1e-6);
  });

  it('has p = 1 without discordant pairs', () => {
    assert.deepEqual(mcnemar(0, 0), { onlyA: 0, onlyB: 0, method: 'none', statistic: null, p: 1 });
  });

  it('adjusts a family with Holm-Bonferroni, keeping the input order', () => {
    const p = [0.03515625, 0.002663119259138558, 4.3763180221643244e-07, 0.2962698714842834, 1.0];
    const expected = [0.10546875, 0.010652477036554232, 2.1881590110821623e-06, 0.5925397429685668, 1.0];
    holm(p).forEach((x, i) => approx(x, expected[i], 1e-9));
    assert.deepEqual(holm([]), []);
    assert.deepEqual(holm([0.5]), [0.5]);
  });

  it('pairs two runs by task, sample and round and tests each language and the total', () => {
    // go: A passes tasks 0-2 and 10-12, B passes 3-17: onlyA = 3 (0-2), onlyB = 12 (3-9, 13-17), both = 3 (exact).
    const goA = Array.from({ length: 20 }, (_, i) => result({ language: 'go', task: i, passed: i < 3 || (i >= 10 && i < 13) }));
    const goB = Array.from({ length: 20 }, (_, i) => result({ language: 'go', task: i, passed: i >= 3 && i < 18 }));
    // php: 40 pairs; A passes 0-9, B passes 10-39: onlyA = 10, onlyB = 30 (chi-square).
    const phpA = Array.from({ length: 40 }, (_, i) => result({ language: 'php', task: i, passed: i < 10 }));
    const phpB = Array.from({ length: 40 }, (_, i) => result({ language: 'php', task: i, passed: i >= 10 }));
    // An unpaired slot on each side, and a repeated key in B.
    const extraA = result({ language: 'php', task: 99 });
    const extraB = [result({ language: 'go', task: 0, sample: 1 }), result({ language: 'go', task: 5, passed: true })];
    const c = compareRuns([...goA, ...phpA, extraA].map(toSlot), [...goB, ...phpB, ...extraB].map(toSlot), { resamples: 500, labelA: 'a', labelB: 'b' });
    assert.equal(c.pairedBy, 'id');
    assert.equal(c.unpairedA, 1);
    assert.equal(c.unpairedB, 1);
    assert.equal(c.duplicatesB, 1);
    const row = (l: string) => c.rows.find((r) => r.language === l)!;
    assert.deepEqual([row('go').pairs, row('go').test.onlyA, row('go').test.onlyB, row('go').bothPass], [20, 3, 12, 3]);
    approx(row('go').test.p, 0.03515625);
    assert.equal(row('go').tprA, 30);
    assert.equal(row('go').tprB, 75);
    assert.equal(row('go').delta.value, 45);
    assert.ok(row('go').delta.low <= 45 && row('go').delta.high >= 45);
    approx(row('php').test.p, 0.002663119259138558, 1e-7);
    // all: onlyA = 13, onlyB = 42 -> chi2 = (|13 − 42| − 1)² / 55.
    approx(row(ALL).test.statistic!, 784 / 55);
    // Holm over the three tests, computed by hand from the raw p-values.
    const raw = c.rows.map((r) => r.test.p);
    const sorted = [...raw].sort((x, y) => x - y);
    const byHand = [3 * sorted[0], Math.max(3 * sorted[0], 2 * sorted[1]), Math.max(3 * sorted[0], 2 * sorted[1], sorted[2])].map((x) => Math.min(1, x));
    c.rows.forEach((r) => approx(r.pHolm, byHand[sorted.indexOf(r.test.p)]));
    // statsmodels multipletests([go, php, all], method='holm'): the largest p stays as it is.
    approx(row('go').pHolm, 0.03515625, 1e-9);
    approx(row('php').pHolm, 0.005326238518277116, 1e-6);
    approx(row(ALL).pHolm, 0.000479024114820772, 1e-6);
    assert.ok(c.rows.every((r) => r.significant));
  });

  it('pairs by language and task_id when records have no stable id', () => {
    const a = [result({ language: 'go', task: 0, id: null, passed: true }), result({ language: 'php', task: 0, id: null })];
    const b = [result({ language: 'go', task: 0, id: null }), result({ language: 'php', task: 0, id: null, passed: true })];
    const c = compareRuns(a.map(toSlot), b.map(toSlot), { resamples: 100 });
    assert.equal(c.pairedBy, 'language+task_id');
    assert.deepEqual(c.rows.map((r) => [r.language, r.pairs, r.test.onlyA, r.test.onlyB]), [['go', 1, 1, 0], ['php', 1, 0, 1], [ALL, 2, 1, 1]]);
  });
});

describe('report: JSON, Markdown and the command', () => {
  let dir: string;
  before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-report-'))));
  after(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

  const write = (file: string, records: ResultRecord[]): string => {
    const p = path.join(dir, file);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    return p;
  };

  async function cli(args: string[]): Promise<number> {
    const program = new Command('xrepotest').exitOverride();
    registerReportCommand(program);
    process.exitCode = 0;
    await program.parseAsync(['node', 'xrepotest', 'report', ...args]);
    const code = Number(process.exitCode ?? 0);
    process.exitCode = 0;
    return code;
  }

  it('keeps the release summary.json keys and adds the report beside them', async () => {
    const file = write('run.jsonl', [...run('go', 6, 3), ...run('php', 4, 1)]);
    const out = path.join(dir, 'report.json');
    assert.equal(await cli([file, '--format', 'json', '--out', out, '--resamples', '300']), 0);
    const json = JSON.parse(fs.readFileSync(out, 'utf8'));
    for (const k of ['total_samples', 'compiled_rate', 'test_pass_rate', 'line_coverage', 'invocation_rate', 'coverage_at_pass', 'strict_invocation_rate', 'failure_categories', 'languages']) assert.ok(k in json, k);
    assert.equal(json.total_samples, 10);
    assert.equal(json.test_pass_rate, 40);
    assert.equal(json.languages.go.test_pass_rate, 50);
    assert.equal(json.schema, 'xrepotest-report/1');
    // `improvement` is null: no slot of this run had improvement rounds.
    assert.deepEqual(Object.keys(json.report.tables).sort(), ['failures', 'improvement', 'invocationGap', 'languages', 'models', 'modes', 'repositories']);
    assert.equal(json.report.tables.improvement, null);
    assert.equal(json.report.statistics.resamples, 300);
    const go = json.report.tables.languages.rows.find((r: { group: { language: string } }) => r.group.language === 'go');
    assert.deepEqual(Object.keys(go.metrics.tpr).sort(), ['high', 'low', 'n', 'value']);
    assert.equal(go.metrics.tpr.value, json.languages.go.test_pass_rate, 'the report agrees with the release summary');
  });

  it('writes Markdown with a row per language and the older text/json call still works', async () => {
    const file = write('run2.jsonl', [...run('go', 6, 3), ...run('ruby', 4, 1), ...run('rust', 5, 0)]);
    const out = path.join(dir, 'report.md');
    assert.equal(await cli([file, '--format', 'markdown', '--out', out, '--resamples', '200']), 0);
    const md = fs.readFileSync(out, 'utf8');
    for (const h of ['## Per language', '## Per context mode', '## Failure categories', '## IR vs TPR disagreement', '## Per repository']) assert.ok(md.includes(h), h);
    for (const lang of ['go', 'ruby', 'rust']) assert.match(md, new RegExp(`^\\| ${lang} \\| \\d+ \\| `, 'm'));
    assert.match(md, /^\| go \| 6 \| 50\.0 \[\d+\.\d, \d+\.\d\] \| 50\.0 \[/m);

    const writes: string[] = [];
    const orig = process.stdout.write.bind(process.stdout);
    (process.stdout as { write: unknown }).write = (s: string) => (writes.push(String(s)), true);
    try {
      assert.equal(await runReport([file], 'text'), 0);
      assert.equal(await runReport([file], 'json'), 0);
    } finally {
      (process.stdout as { write: unknown }).write = orig;
    }
    assert.match(writes[0], /^go +6 +6 +50\.0 +50\.0/m);
    assert.equal(JSON.parse(writes[1]).total_samples, 15);
  });

  it('reads folders, skipping JSONL files that hold no results, and compares two runs', async () => {
    write('runA/results.jsonl', run('go', 30, 5));
    write('runA/generations.jsonl', [{ task_id: 0, test_code: 'x' } as unknown as ResultRecord]);
    write('runB/results.jsonl', run('go', 30, 20));
    const loaded = await loadResults([path.join(dir, 'runA')]);
    assert.equal(loaded.results.length, 30);
    assert.equal(loaded.skipped.length, 1);
    assert.equal(loaded.problems.length, 0);
    const out = path.join(dir, 'cmp.json');
    assert.equal(await cli(['--compare', path.join(dir, 'runA'), path.join(dir, 'runB'), '--format', 'json', '--out', out, '--resamples', '200']), 0);
    const json = JSON.parse(fs.readFileSync(out, 'utf8'));
    assert.equal(json.comparison.labelA, 'runA');
    assert.deepEqual([json.comparison.rows[0].test.onlyA, json.comparison.rows[0].test.onlyB], [0, 15]);
    assert.equal(json.comparison.rows[0].test.method, 'exact-binomial');
    approx(json.comparison.rows[0].test.p, 2 * 0.5 ** 15);
    assert.equal(json.runs[1].test_pass_rate, Math.round((20 / 30) * 10000) / 100);
    await assert.rejects(cli(['--compare', path.join(dir, 'runA')]), /two runs/);
  });
});

describe('report: slots from records written before origins were recorded', () => {
  it('treats a missing mode, model and mutation as standard, unknown and not run', () => {
    const r = result({ mode: null, model: null, provider: null });
    delete (r.xrt as Partial<ResultRecord['xrt']>).round;
    const s = toSlot(r);
    assert.equal(s.mode, 'standard');
    assert.equal(s.model, '(unknown)');
    assert.equal(s.round, 0);
    assert.equal(s.mutationRan, false);
    const report = buildReportFromSlots([s], { resamples: 50 });
    assert.equal(report.totals.mutationRan, false);
  });
});

describe('report: a test that reads the focal source (issue 31, mutate/sentinels.ts)', () => {
  it('counts its mutation score as 0 in MS and MS@pass, not as a slot without mutants', () => {
    const reading: MutationOutcome = { mutants: 0, viable: 0, killed: 0, survived: 0, timed_out: 0, unviable: 0, score: 0, reads_source: true };
    const s = toSlot(result({ passed: true, cov: [3, 4], mutation: reading }));
    assert.equal(s.mutationScore, 0);
    const none = toSlot(result({ passed: true, cov: [3, 4], mutation: { ...reading, reads_source: undefined } }));
    assert.equal(none.mutationScore, null, 'no viable mutant and no sentinel verdict: nothing to count');
  });
});
