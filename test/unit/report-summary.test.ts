import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadResults } from '../../src/engine/report/load';
import { toSlot } from '../../src/engine/report/slots';
import { summarizeByLanguage, summarizeSlotsByLanguage } from '../../src/engine/report/summary';
import { result } from '../helpers/report-fixtures';

/** Summaries (METRICS.md items 8 and 11) and rows of ours that are damaged or hostile. */

describe('summary: total_samples with the release meaning, total_tasks and total_slots (METRICS.md item 11)', () => {
  it('counts tasks in total_samples and slots in total_slots, and every rate divides by the slots', () => {
    // 3 tasks x 2 samples: 6 slots, of which 3 pass.
    const rows = [0, 1, 2].flatMap((task) => [0, 1].map((sample) => result({ task, sample, passed: sample === 0 || task === 0, cov: [1, 4] })));
    const s = summarizeByLanguage(rows);
    assert.equal(s.total_samples, 3, 'the release counts tasks (rows of detailed_results.jsonl)');
    assert.equal(s.total_tasks, 3);
    assert.equal(s.total_slots, 6);
    assert.equal(s.test_pass_rate, Math.round((4 / 6) * 10000) / 100);
    assert.equal(s.line_coverage, 25);
    assert.equal(s.languages.go.total_slots, 6);
  });

  it('counts a task once per run: two models over the same two tasks are four task rows', () => {
    const rows = [0, 1].flatMap((task) => ['m1', 'm2'].map((model) => result({ task, model, passed: model === 'm1' })));
    const s = summarizeByLanguage(rows);
    assert.deepEqual([s.total_samples, s.total_tasks, s.total_slots, s.test_pass_rate], [4, 4, 4, 50]);
  });

  it('leaves environment failures out of total_slots and total_tasks, and counts them beside', () => {
    const rows = [result({ task: 0, passed: true }), result({ task: 1, failure: 'environment' }), result({ task: 2 })];
    const s = summarizeByLanguage(rows);
    assert.deepEqual([s.total_tasks, s.total_slots, s.environment_samples, s.test_pass_rate], [2, 2, 1, 50]);
  });

  it('adds the release mutation block with its micro meaning and MS as a macro mean over N (item 8)', () => {
    const m = (killed: number, timedOut: number, viable: number, unviable: number) => ({
      mutants: viable + unviable,
      viable,
      killed,
      survived: viable - killed - timedOut,
      timed_out: timedOut,
      unviable,
      score: viable ? (killed + timedOut) / viable : 0,
    });
    const rows = [
      result({ task: 0, passed: true, mutation: m(1, 1, 4, 0) }), // 2 of 4 (a timeout counts killed)
      result({ task: 1, passed: true, mutation: m(9, 0, 10, 2) }), // 9 of 10, 12 generated
      result({ task: 2 }), // not run: 0 in MS
      result({ task: 3 }),
    ];
    const s = summarizeByLanguage(rows);
    // Macro over N = 4: (0.5 + 0.9 + 0 + 0) / 4.
    assert.equal(s.mutation_score, 35);
    assert.equal(s.mutation_score_at_pass, 70);
    // Micro as the release sums: killed (timeouts included) over every generated mutant.
    assert.deepEqual(s.mutation_testing, { mutation_tests_run: 2, total_mutants_killed: 11, total_mutants_count: 16, avg_mutation_score: 0.6875, mutation_run_rate: 100 });
    assert.equal(summarizeByLanguage([result({ task: 0 })]).mutation_testing, undefined, 'no block where mutation testing did not run');
  });
});

describe('report: damaged and hostile rows of ours', () => {
  let dir: string;
  before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-hostile-ours-'))));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, rows: unknown[]): string => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    return file;
  };

  it('a null coverage_stats entry is no coverage, not a crash', async () => {
    const r = result({ task: 0, passed: false, compiled: false }) as unknown as { coverage_stats: unknown[] };
    r.coverage_stats = [null];
    const loaded = await loadResults([write('null-cov.jsonl', [r, result({ task: 1, passed: true, cov: [2, 4] })])]);
    assert.deepEqual(loaded.problems, []);
    const s = summarizeSlotsByLanguage(loaded.slots);
    assert.equal(s.total_slots, 2);
    assert.equal(s.line_coverage, 25);
  });

  it('counts wrongly typed, impossible or huge measured values as missing, said once per defect with its row count', async () => {
    const base = (task: number) => result({ task, passed: true, cov: [3, 4] }) as unknown as Record<string, unknown> & { checks: Array<Record<string, unknown>>; coverage_stats: unknown[]; xrt: Record<string, unknown> };
    const stringCount = base(0);
    stringCount.coverage_stats = [{ covered_lines: '4', total_lines: 4 }];
    const moreThanAll = base(1);
    moreThanAll.coverage_stats = [{ covered_lines: 9, total_lines: 4 }];
    const huge = base(2);
    huge.coverage_stats = [{ covered_lines: 1e300, total_lines: 1e300 }];
    const longerThanFunction = base(3);
    longerThanFunction.coverage_stats = [{ covered_lines: 31, total_lines: 31 }]; // the function spans 30 lines
    const stringFlag = base(4);
    stringFlag.checks = [{ compilation: 'true', tests: 'yes', coverage: true, invocation: 1 }];
    const badMutation = base(5);
    badMutation.xrt.mutation = { mutants: 3, viable: 3, killed: 5, unviable: 0, score: 1.7 };
    const alsoStringCount = base(6);
    alsoStringCount.coverage_stats = [{ covered_lines: '1', total_lines: 4 }];
    const file = write('typed.jsonl', [stringCount, moreThanAll, huge, longerThanFunction, stringFlag, badMutation, alsoStringCount]);
    const loaded = await loadResults([file]);
    assert.equal(loaded.slots.length, 7, 'no row is dropped for a bad measured value');
    const messages = loaded.problems.map((p) => p.message);
    const said = (re: RegExp): string => messages.find((m) => re.test(m)) ?? assert.fail(`nothing matches ${re} in ${JSON.stringify(messages)}`);
    assert.match(said(/^coverage_stats\[0\] is not \{covered_lines, total_lines\}/), /counted as missing .* in 3 rows, this the first/, 'the string count, the huge counts and the second string count');
    assert.match(said(/^coverage_stats\[0\] has more covered lines than lines/), /in 1 row$/);
    assert.match(said(/^coverage_stats\[0\] counts 31 lines in a focal function of 30/), /in 1 row$/);
    said(/^checks\[0\]\.compilation is not true, false or null/);
    said(/^checks\[0\]\.tests is not true, false or null/);
    said(/^checks\[0\]\.invocation is not true, false or null/);
    said(/^xrt\.mutation is not/);
    const first = loaded.problems.find((p) => p.message.startsWith('coverage_stats[0] is not'))!;
    assert.deepEqual([first.file, first.line], [file, 1]);
    const s = summarizeSlotsByLanguage(loaded.slots);
    // Only the rows with a readable coverage and flags count: none of the damaged coverage is believed.
    assert.equal(s.line_coverage, Math.round(((3 / 4) * 2 / 7) * 10000) / 100, 'the string-flag row and the bad-mutation row keep their 3/4');
    assert.equal(s.test_pass_rate, Math.round((6 / 7) * 10000) / 100, 'a "yes" is not a pass');
    assert.equal(s.compiled_rate, Math.round((6 / 7) * 10000) / 100, 'a "true" is not a compile');
    assert.equal(s.mutation_score, undefined, 'a mutation result that does not add up is not a run');
  });

  it('refuses rows whose identity is wrong, naming the field, and keeps the rest', async () => {
    const ok = result({ task: 0, passed: true });
    const badSample = { ...result({ task: 1 }), xrt: { ...result({ task: 1 }).xrt, sample: '0' } };
    const badLanguage = { ...result({ task: 2 }), xrt: { ...result({ task: 2 }).xrt, language: 'cobol' } };
    const noChecks = { ...result({ task: 3 }), checks: [] };
    const hugeRound = { ...result({ task: 4 }), xrt: { ...result({ task: 4 }).xrt, round: 1e12 } };
    const loaded = await loadResults([write('identity.jsonl', [ok, badSample, badLanguage, noChecks, hugeRound])]);
    assert.equal(loaded.slots.length, 1);
    const byLine = Object.fromEntries(loaded.problems.map((p) => [p.line, p.message]));
    assert.match(byLine[2], /^refused: \/xrt\/sample must be integer/);
    assert.match(byLine[3], /^refused: \/xrt\/language must be equal to one of the allowed values/);
    assert.match(byLine[4], /^refused: \/checks must NOT have fewer than 1 items/);
    assert.match(byLine[5], /^refused: \/xrt\/round must be <= 1000000/);
  });

  it('keeps a slot of ours without the strict check as unknown, not as "not invoked"', () => {
    const r = result({ task: 0, passed: true });
    delete (r.xrt as Partial<typeof r.xrt>).invocation_strict;
    assert.equal(toSlot(r).invokedStrict, null);
    assert.equal(summarizeByLanguage([r]).strict_invocation_rate, null);
  });
});
