import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRng } from '../../src/engine/report/bootstrap';
import { loadResults } from '../../src/engine/report/load';
import { experimentFromPath } from '../../src/engine/report/release-rows';
import { buildComparisonReport, buildReportFromSlots } from '../../src/engine/report/report';
import { reportHtml } from '../../src/engine/report/html';
import { reportMarkdown } from '../../src/engine/report/markdown';
import { summarizeSlotsByLanguage } from '../../src/engine/report/summary';
import { formatReleaseSummaries, formatSummaryText } from '../../src/engine/report/summary-text';
import { emptyReleaseRow, jsonl, releaseRow, type RowSpec } from '../helpers/release-rows';
import { result } from '../helpers/report-fixtures';

/**
 * `report` over rows of the release's detailed_results.jsonl as they are (issue 19). The expected
 * numbers are worked out by hand from the rows, the way the notes (§5, §7) say the harness computes
 * its summary: N = (longest test[] of the file) x rows, every check counted over N, coverage the mean
 * of covered/total over N (0 where none), and its mutation block Σkilled / Σtotal over every entry.
 */

const pct = (x: number): number => Math.round(x * 10000) / 100;

/** Four Go tasks: two responses, one response, two responses, none. */
const ROWS: RowSpec[] = [
  {
    task: 0,
    mutation: true,
    responses: [
      { passed: true, invoked: true, cov: [6, 8], mutation: { ok: true, score: 0.75, killed: 3, total: 4 } },
      { compiled: true, passed: false, invoked: false, cov: [2, 8] },
    ],
  },
  // Did not compile: coverage_stats null, as the release writes it.
  { task: 1, mutation: true, responses: [{ compiled: false, invoked: true, cov: null }] },
  {
    task: 2,
    mutation: true,
    responses: [
      // The mutation phase ran and failed (no mutants): its zero counts still go into the sums.
      { passed: true, invoked: true, cov: [5, 5], mutation: { ok: false, score: 0, killed: 0, total: 0 } },
      // A Rust-like entry: 1 caught, 1 missed, 1 unviable: score 1/2, total_count 3.
      { passed: true, invoked: true, cov: [4, 5], mutation: { ok: true, score: 0.5, killed: 1, total: 3 } },
    ],
  },
];

describe("report over the release's detailed_results.jsonl rows", () => {
  let dir: string;
  let file: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-release-'));
    file = path.join(dir, 'results', 'go', 'file_context', 'gpt-4o-mini', 'detailed_results.jsonl');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, jsonl([...ROWS.map(releaseRow), emptyReleaseRow(3, 'go', true)]));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("gives the harness's own aggregates for the same rows (CSR, TPR, Cov, IR, its MS block) and MS per METRICS.md item 8", async () => {
    const loaded = await loadResults([file]);
    assert.deepEqual(loaded.problems, [], 'a null coverage entry and an empty row are the format, not defects');
    // n = 2 (tasks 0 and 2), 4 rows: N = 8; task 1's second slot and task 3's two are zero slots.
    assert.equal(loaded.slots.length, 8);
    assert.deepEqual(loaded.sources.map((s) => [s.harness, s.rows, s.slots, s.perTask]), [['release', 4, 8, 2]]);
    const s = summarizeSlotsByLanguage(loaded.slots);
    assert.equal(s.total_samples, 4, 'tasks, as the release counts them');
    assert.equal(s.total_slots, 8);
    // Compiled: task 0 both, task 2 both = 4 of 8.
    assert.equal(s.compiled_rate, pct(4 / 8));
    // Passed: task 0 first, task 2 both = 3 of 8.
    assert.equal(s.test_pass_rate, pct(3 / 8));
    // Invoked: task 0 first, task 1 (invocation is checked before compiling), task 2 both = 4 of 8.
    assert.equal(s.invocation_rate, pct(4 / 8));
    // Coverage: 6/8 + 2/8 + 0 (null) + 5/5 + 4/5, over 8.
    assert.equal(s.line_coverage, pct((0.75 + 0.25 + 1 + 0.8) / 8));
    // The harness's block: runs = checks with mutation true (task 0 first, task 2 second); sums over every entry.
    assert.deepEqual(s.mutation_testing, {
      mutation_tests_run: 2,
      total_mutants_killed: 3 + 0 + 1,
      total_mutants_count: 4 + 0 + 3,
      avg_mutation_score: Math.round((4 / 7) * 1e6) / 1e6,
      mutation_run_rate: pct(2 / 3),
    });
    // Ours (item 8): the mean over N of per-slot scores, 0 where not run or failed; MS@Pass over passing slots with a score.
    assert.equal(s.mutation_score, pct((0.75 + 0.5) / 8));
    assert.equal(s.mutation_score_at_pass, pct((0.75 + 0.5) / 2));
    // Not recorded by the release: no strict IR, failures without a category.
    assert.equal(s.strict_invocation_rate, null);
    assert.equal(s.failure_categories.none, pct(3 / 8));
    assert.equal(s.failure_categories.not_recorded, pct(5 / 8));
    assert.equal(s.failure_categories['logic-assertion'], 0);
    assert.deepEqual(s.scored_by, { xrepotest: 0, release_harness: 8 });

    // The report's tables carry the same point estimates.
    const report = buildReportFromSlots(loaded.slots, { resamples: 200 });
    const go = report.tables.languages.rows[0].metrics;
    assert.deepEqual([go.csr?.value, go.tpr?.value, go.cov?.value, go.ir?.value, go.ms?.value], [s.compiled_rate, s.test_pass_rate, s.line_coverage, s.invocation_rate, s.mutation_score]);
    assert.equal(go.irStrict, null, 'unknown, not 0');
    assert.deepEqual(report.totals.harnesses, { xrepotest: 0, release: 8 });
    assert.deepEqual([report.totals.modes, report.totals.models], [['file'], ['gpt-4o-mini']], 'mode and model from results/<lang>/<mode>/<model>/');
    const failures = report.tables.failures.rows.find((r) => r.category === 'unrecorded');
    assert.deepEqual(failures?.counts, [5]);
    assert.equal(report.tables.failures.rows.find((r) => r.category === 'unclassified'), undefined);
  });

  it('says which harness scored the slots, what it does not record, and where our definitions differ', async () => {
    const loaded = await loadResults([file]);
    const md = reportMarkdown(buildReportFromSlots(loaded.slots, { resamples: 100 }));
    assert.match(md, /Scored by the release's harness\. All slots were scored by the release's harness/);
    assert.match(md, /It records no failure category, strict invocation, environment verdicts, timings/);
    assert.match(md, /\*\*MS\*\*: .*\*Differs from the release's harness:\* The mean over N of per-slot mutation scores .*micro average.*\(METRICS\.md item 8\)/);
    // Measurement differences are ours: they do not apply to slots the release scored.
    assert.doesNotMatch(md, /Executable lines only/);
    assert.doesNotMatch(md, /N leaves out environment failures/);
    const html = reportHtml(buildReportFromSlots(loaded.slots, { resamples: 100 }));
    assert.match(html, /<div id="harness"><p class="muted">Scored by the release&#39;s harness\. All slots were scored/);
    assert.match(html, /<strong>MS<\/strong>: [^<]*\. <em>Differs from the release's harness:<\/em> The mean over N/);
    const text = formatSummaryText(summarizeSlotsByLanguage(loaded.slots));
    assert.match(text, /^go +4 +8 +50\.0 +37\.5 +35\.0 /m, 'tasks, slots, CSR, TPR, Cov');
    assert.match(text, /^scored by the release's harness$/m);
    assert.match(text, /differs from the release's harness, total_samples: total_samples counts tasks/);
    assert.match(text, /Failed, not recorded +62\.5/);
  });

  it("agrees with a reference computation of the harness's formulas on random rows", async () => {
    const rng = createRng(19);
    const int = (n: number): number => Math.floor(rng() * n);
    for (let round = 0; round < 20; round++) {
      const rows = Array.from({ length: 1 + int(12) }, (_, task) => {
        const lines = 1 + int(40);
        return releaseRow({
          task,
          lines: [5, 4 + lines],
          mutation: true,
          responses: Array.from({ length: int(4) }, () => {
            const compiled = rng() < 0.7;
            const passed = compiled && rng() < 0.6;
            const total = int(lines + 1);
            const mutation = passed && rng() < 0.7 ? { ok: rng() < 0.8, score: 0, killed: 0, total: int(9) } : undefined;
            if (mutation) {
              mutation.killed = int(mutation.total + 1);
              mutation.score = mutation.total ? mutation.killed / mutation.total : 0;
            }
            return { compiled, passed, invoked: rng() < 0.5, cov: compiled ? ([int(total + 1), total] as [number, number]) : null, mutation };
          }),
        });
      });
      const f = path.join(dir, `random-${round}.jsonl`);
      fs.writeFileSync(f, jsonl(rows));
      const loaded = await loadResults([f]);
      assert.deepEqual(loaded.problems, []);
      const s = summarizeSlotsByLanguage(loaded.slots);
      const ref = harnessReference(rows);
      const near = (a: number, b: number, what: string): void => assert.ok(Math.abs(a - b) <= 0.005 + 1e-9, `${what}: ${a} vs ${b} (round ${round})`);
      assert.equal(s.total_samples, ref.total_samples);
      near(s.compiled_rate, ref.compiled_rate, 'CSR');
      near(s.test_pass_rate, ref.test_pass_rate, 'TPR');
      near(s.line_coverage, ref.line_coverage, 'Cov');
      near(s.invocation_rate, ref.invocation_rate, 'IR');
      if (ref.mutation_testing) {
        assert.ok(s.mutation_testing, `round ${round}: the mutation block`);
        assert.equal(s.mutation_testing.mutation_tests_run, ref.mutation_testing.mutation_tests_run);
        assert.equal(s.mutation_testing.total_mutants_killed, ref.mutation_testing.total_mutants_killed);
        assert.equal(s.mutation_testing.total_mutants_count, ref.mutation_testing.total_mutants_count);
        near(s.mutation_testing.avg_mutation_score, ref.mutation_testing.avg_mutation_score, 'avg_mutation_score');
        near(s.mutation_testing.mutation_run_rate, ref.mutation_testing.mutation_run_rate, 'mutation_run_rate');
      } else assert.equal(s.mutation_testing, undefined);
    }
  });

  it('reads mode and model only from the release layout of the row\'s own language', () => {
    assert.deepEqual(experimentFromPath('/x/results/rust/rag_bm25/claude-sonnet-4-5/detailed_results.jsonl', 'rust'), { mode: 'bm25', model: 'claude-sonnet-4-5' });
    assert.deepEqual(experimentFromPath('/x/results/go/lsp_context/m/detailed_results.jsonl', 'go'), { mode: 'lsp', model: 'm' });
    assert.equal(experimentFromPath('/x/results/go/standard/m/detailed_results.jsonl', 'php'), null, 'another language folder');
    assert.equal(experimentFromPath('/x/out/detailed.jsonl', 'go'), null);
  });

  it('compares the release harness\'s run with ours, pairing by language and task_id, and says which harness made each side', async () => {
    const theirs = path.join(dir, 'theirs.jsonl');
    // The harness's run: tasks 0..9, one response each, 0..5 pass.
    fs.writeFileSync(theirs, jsonl(Array.from({ length: 10 }, (_, task) => releaseRow({ task, responses: [{ passed: task < 6, invoked: true, cov: [1, 2] }] }))));
    const ours = path.join(dir, 'ours.jsonl');
    // Ours on the same tasks (no stable id, as when the tasks come from the release's dataset): 0..2 and 8, 9 pass.
    fs.writeFileSync(ours, jsonl(Array.from({ length: 10 }, (_, task) => result({ task, id: null, passed: task < 3 || task > 7 }))));
    const [a, b] = await Promise.all([loadResults([theirs]), loadResults([ours])]);
    const cmp = buildComparisonReport({ label: 'theirs', slots: a.slots }, { label: 'ours', slots: b.slots }, { resamples: 200 });
    const c = cmp.comparison;
    assert.equal(c.pairedBy, 'language+task_id');
    assert.deepEqual([c.rows[0].pairs, c.rows[0].test.onlyA, c.rows[0].test.onlyB, c.rows[0].bothPass], [10, 3, 2, 3]);
    assert.deepEqual([c.unpairedA, c.unpairedB], [0, 0]);
    assert.deepEqual([c.scoredByA, c.scoredByB], ["the release's harness", 'xrepotest']);
    assert.ok(cmp.differences.some((d) => /theirs was scored by the release's harness, ours by xrepotest/.test(d.text)));
    assert.ok(cmp.differences.some((d) => d.item === 9 && /plain Bonferroni/.test(d.text)));
  });
});

describe("the release's summary.json, key for key", () => {
  let dir: string;
  let folder: string;
  /** What the harness writes for ROWS and the empty task (worked out by hand above; Python prints floats as JavaScript does). */
  const written = {
    total_samples: 4,
    compiled_rate: 50.0,
    line_coverage: 35.0,
    test_pass_rate: 37.5,
    invocation_rate: 50.0,
    mutation_testing: { mutation_tests_run: 2, total_mutants_killed: 4, total_mutants_count: 7, avg_mutation_score: 4 / 7, mutation_run_rate: (2 / 3) * 100 },
  };
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-release-summary-'));
    folder = path.join(dir, 'results', 'go', 'standard', 'm');
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, 'detailed_results.jsonl'), jsonl([...ROWS.map(releaseRow), emptyReleaseRow(3, 'go', true)]));
    // The pipeline's other files in the same folder: not results.
    fs.writeFileSync(path.join(folder, 'processed.jsonl'), jsonl([{ task_id: 0, response: ['x'], status: 'success' }]));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const writeSummary = (value: unknown, file = path.join(folder, 'summary.json')): string => {
    fs.writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value, null, 4));
    return file;
  };

  it('checks the summary beside the rows key for key, and agrees where the harness would', async () => {
    writeSummary(written);
    const loaded = await loadResults([path.join(dir, 'results')]);
    assert.deepEqual(loaded.skipped, [path.join(folder, 'processed.jsonl')]);
    assert.equal(loaded.summaries.length, 1);
    const [s] = loaded.summaries;
    assert.equal(s.rowsFile, path.join(folder, 'detailed_results.jsonl'));
    assert.deepEqual(
      s.check?.filter((c) => !c.agrees),
      [],
    );
    assert.deepEqual(s.check?.map((c) => c.key), ['total_samples', 'compiled_rate', 'test_pass_rate', 'line_coverage', 'invocation_rate', ...Object.keys(written.mutation_testing).map((k) => `mutation_testing.${k}`)]);
    // Named file: its sibling summary is found too.
    const named = await loadResults([path.join(folder, 'detailed_results.jsonl')]);
    assert.equal(named.summaries[0]?.check?.every((c) => c.agrees), true);
  });

  it('names each key where the summary does not follow from its rows', async () => {
    writeSummary({ ...written, test_pass_rate: 40, mutation_testing: { ...written.mutation_testing, avg_mutation_score: 0.6 } });
    const [s] = (await loadResults([folder])).summaries;
    const differs = s.check!.filter((c) => !c.agrees);
    assert.deepEqual(
      differs.map((c) => [c.key, c.summary, c.rows]),
      [
        ['test_pass_rate', 40, 37.5],
        ['mutation_testing.avg_mutation_score', 0.6, 4 / 7],
      ],
    );
    const text = formatReleaseSummaries([s]);
    assert.match(text, /2 key\(s\) DIFFER/);
    assert.match(text, /^ +test_pass_rate +40 +37\.5000 +DIFFERS$/m);
    const md = reportMarkdown(buildReportFromSlots((await loadResults([folder])).slots, { resamples: 50, releaseSummaries: [s] }));
    assert.match(md, /## The release's summary\.json, key for key/);
    assert.match(md, /\| test\\_pass\\_rate \| 40 \| 37\.5000 \| \*\*differs\*\* \|/);
  });

  it('shows a summary named alone as given, passes over ours in a folder, and refuses what is not a summary', async () => {
    const alone = writeSummary(written, path.join(dir, 'alone.json'));
    const a = await loadResults([alone]);
    assert.deepEqual([a.slots.length, a.summaries.length, a.summaries[0].check, a.problems], [0, 1, null, []]);
    const ours = path.join(dir, 'ours');
    fs.mkdirSync(ours);
    fs.writeFileSync(path.join(ours, 'results.jsonl'), jsonl([result({ task: 0, passed: true })]));
    writeSummary(summarizeSlotsByLanguage([]), path.join(ours, 'summary.json'));
    const o = await loadResults([ours]);
    assert.deepEqual([o.slots.length, o.summaries.length, o.problems], [1, 0, []]);
    const named = await loadResults([path.join(ours, 'summary.json')]);
    assert.match(named.problems[0].message, /xrepotest's own summary\.json/);
    const hostile = [
      [{ ...written, compiled_rate: '50' }, /not the release's summary\.json: \/compiled_rate must be number/],
      [{ ...written, line_coverage: 1e9 }, /\/line_coverage must be <= 100/],
      [{ ...written, total_samples: -3 }, /\/total_samples must be >= 0/],
      [{ ...written, mutation_testing: { ...written.mutation_testing, avg_mutation_score: 57 } }, /avg_mutation_score must be <= 1/],
      ['{"total_samples": 4,', /not valid JSON/],
      ['x'.repeat((1 << 20) + 1), /bytes is not a summary\.json/],
    ] as const;
    for (const [value, re] of hostile) {
      const f = writeSummary(value, path.join(dir, 'hostile.json'));
      const h = await loadResults([f]);
      assert.equal(h.summaries.length, 0);
      assert.match(h.problems[0]?.message ?? '', re);
    }
  });
});

describe("hostile rows in the release's shape", () => {
  let dir: string;
  before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-release-hostile-'))));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const load = async (name: string, rows: unknown[]) => {
    const f = path.join(dir, name);
    fs.writeFileSync(f, jsonl(rows));
    return { file: f, ...(await loadResults([f])) };
  };

  it('refuses rows whose identity is unusable, naming why, and keeps the others', async () => {
    const ok = releaseRow({ task: 0, responses: [{ passed: true, cov: [1, 1] }] });
    const rows = [
      ok,
      { ...ok, task_id: -1 },
      { ...ok, language: 'cobol' },
      { ...ok, file_path: '../../etc/passwd' },
      { ...ok, test: Array.from({ length: 101 }, () => 'x') },
      { ...ok, checks: [{ compilation: true, tests: true }, { compilation: true, tests: true }] },
      { ...ok, test: 'not a list' },
      { ...ok, task_id: 5, mutation_scores: [null, null] },
    ];
    const loaded = await load('identity.jsonl', rows);
    assert.equal(loaded.slots.length, 1);
    const byLine = Object.fromEntries(loaded.problems.map((p) => [p.line, p.message]));
    assert.match(byLine[2], /^refused \(a row of the release's detailed_results\.jsonl\): \/task_id must be >= 0/);
    assert.match(byLine[3], /^refused: unknown language "cobol"/);
    assert.match(byLine[4], /^refused: file_path "\.\.\/\.\.\/etc\/passwd" has a "\.\." segment/);
    assert.match(byLine[5], /\/test must NOT have more than 100 items/);
    assert.match(byLine[6], /^refused: checks has 2 entries for 1 test \(one per response\)/);
    assert.match(byLine[7], /\/test must be array/);
    assert.match(byLine[8], /^refused: mutation_scores has 2 entries for 1 test/);
  });

  it('counts a wrongly typed, impossible or huge measured value as missing, never as a number', async () => {
    const row = (task: number, patch: (r: Record<string, any>) => void): Record<string, unknown> => {
      const r = releaseRow({ task, mutation: true, responses: [{ passed: true, invoked: true, cov: [2, 4], mutation: { ok: true, score: 0.5, killed: 1, total: 2 } }] });
      patch(r);
      return r;
    };
    const rows = [
      row(0, () => undefined), // the one sound row: passed, 2/4, MS 0.5
      row(1, (r) => (r.coverage_stats[0] = { covered_lines: '4', total_lines: '4' })),
      row(2, (r) => (r.coverage_stats[0] = { covered_lines: 1e300, total_lines: 1e300 })),
      row(3, (r) => (r.coverage_stats[0] = { covered_lines: 50, total_lines: 50 })), // the function has 20 lines
      row(4, (r) => (r.checks[0] = { compilation: 'true', tests: 1, invocation: 'yes', mutation: true })),
      row(5, (r) => (r.mutation_scores[0] = { mutation_score: 75, killed_count: 3, total_count: 4 })), // a percentage
      row(6, (r) => (r.mutation_scores[0] = { mutation_score: 0.5, killed_count: 9, total_count: 2 })),
      row(7, (r) => (r.checks[0] = 'compiled')),
      row(8, (r) => (r.coverage_stats[0] = { covered_lines: 3, total_lines: 2 })),
    ];
    const loaded = await load('values.jsonl', rows);
    assert.equal(loaded.slots.length, 9, 'no row refused for a bad value');
    const messages = loaded.problems.map((p) => p.message);
    const said = (re: RegExp): void => assert.ok(messages.some((m) => re.test(m)), `nothing matches ${re} in ${JSON.stringify(messages, null, 1)}`);
    said(/^coverage_stats\[i\] is not \{covered_lines, total_lines\} with whole numbers: counted as missing .* in 2 rows/);
    said(/^coverage_stats\[i\] counts 50 lines in a focal function of 20/);
    said(/^coverage_stats\[i\] has more covered lines than lines/);
    said(/^checks\[i\]\.compilation is not true, false or null/);
    said(/^checks\[i\]\.tests is not true, false or null/);
    said(/^mutation_scores\[i\] is not \{killed_count, total_count, mutation_score 0\.\.1\}/);
    said(/^mutation_scores\[i\] kills more mutants than it has/);
    said(/^checks\[i\]\.mutation is true without a mutation_scores\[i\]\.mutation_score/);
    said(/^checks\[i\] is not an object/);
    const s = summarizeSlotsByLanguage(loaded.slots);
    // Coverage believed only where sound: rows 0, 4, 5, 6, 7 keep 2/4 (row 7's coverage entry is sound, its check is not).
    assert.equal(s.line_coverage, pct((0.5 * 5) / 9));
    // Passing: rows 0, 1, 2, 3, 5, 6, 8 (row 4's tests is 1, not true; row 7's check is a string).
    assert.equal(s.test_pass_rate, pct(7 / 9));
    // A score only where the check says it ran and the entry is sound: rows 0..3 and 8 (row 4's entry is sound and its mutation true).
    assert.equal(s.mutation_score, pct((0.5 * 6) / 9));
    assert.equal(s.total_slots, 9);
  });

  it('makes a test without its check a zero slot, said, and a row with no response one zero slot', async () => {
    const short = releaseRow({ task: 0, responses: [{ passed: true, cov: [1, 1] }, { passed: true, cov: [1, 1] }] }) as Record<string, any>;
    short.checks = [short.checks[0]]; // the harness always writes one check per test
    const loaded = await load('short.jsonl', [short, emptyReleaseRow(1)]);
    assert.equal(loaded.slots.length, 4, 'n = 2 for both rows');
    assert.ok(loaded.problems.some((p) => /^checks\[i\] is absent for a test/.test(p.message)));
    assert.equal(summarizeSlotsByLanguage(loaded.slots).test_pass_rate, pct(1 / 4));
    const onlyEmpty = await load('empty.jsonl', [emptyReleaseRow(0), emptyReleaseRow(1)]);
    assert.equal(onlyEmpty.slots.length, 2, 'a task with no response is one zero slot (the harness: 0 of 0)');
    assert.equal(summarizeSlotsByLanguage(onlyEmpty.slots).test_pass_rate, 0);
  });

  it('counts a task_id repeated in one file once (the last row), and a file given twice once', async () => {
    const f = path.join(dir, 'dup.jsonl');
    fs.writeFileSync(f, jsonl([releaseRow({ task: 0, responses: [{ passed: false }] }), releaseRow({ task: 0, responses: [{ passed: true, cov: [1, 1] }] }), releaseRow({ task: 1, responses: [{}] })]));
    const loaded = await loadResults([f, f]);
    assert.equal(loaded.slots.length, 2);
    assert.equal(loaded.duplicates, 4, 'three rows of the second copy and the first task 0');
    assert.equal(summarizeSlotsByLanguage(loaded.slots).test_pass_rate, 50);
  });
});

/**
 * The harness's summary as the notes describe it (§5 formulas, §7 "Σkilled / Σtotal_count"),
 * computed straight from raw rows; for sound rows only (it reads values as the harness does).
 */
function harnessReference(rows: Array<Record<string, any>>) {
  const n = Math.max(0, ...rows.map((r) => r.test.length));
  const total = n * rows.length;
  let compiled = 0;
  let passed = 0;
  let invoked = 0;
  let run = 0;
  let killed = 0;
  let count = 0;
  let coverage = 0;
  for (const r of rows) {
    for (const c of r.checks) {
      if (c.compilation) compiled++;
      if (c.tests) passed++;
      if (c.invocation) invoked++;
      if (c.mutation) run++;
    }
    for (let i = 0; i < n; i++) {
      const st = r.coverage_stats[i];
      if (st && st.total_lines > 0) coverage += (st.covered_lines / st.total_lines) * 100;
    }
    for (const m of r.mutation_scores ?? []) {
      if (m) {
        killed += m.killed_count;
        count += m.total_count;
      }
    }
  }
  const rate = (x: number): number => (total ? (x / total) * 100 : 0);
  return {
    total_samples: rows.length,
    compiled_rate: rate(compiled),
    test_pass_rate: rate(passed),
    invocation_rate: rate(invoked),
    line_coverage: total ? coverage / total : 0,
    mutation_testing: run ? { mutation_tests_run: run, total_mutants_killed: killed, total_mutants_count: count, avg_mutation_score: count ? killed / count : 0, mutation_run_rate: passed ? (run / passed) * 100 : 0 } : undefined,
  };
}
