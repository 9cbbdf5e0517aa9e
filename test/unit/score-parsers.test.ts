import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { focalCoverage } from '../../src/engine/score/coverage/focal';
import { parseClover } from '../../src/engine/score/coverage/clover';
import { goStatementStarts } from '../../src/engine/languages/go/statement-lines';
import { goImportPath, parseGoCoverProfile } from '../../src/engine/score/coverage/go-cover';
import { isJuliaCovFileFor, parseJuliaCov } from '../../src/engine/score/coverage/julia-cov';
import { parseLcov } from '../../src/engine/score/coverage/lcov';
import { parseRubyCoverage } from '../../src/engine/score/coverage/ruby-coverage';
import { parseGoTestJson } from '../../src/engine/score/reports/go-test-json';
import { parseJuliaCounts } from '../../src/engine/score/reports/julia-counts';
import { parseJunitXml } from '../../src/engine/score/reports/junit';
import { parseLibtestOutput } from '../../src/engine/score/reports/libtest';
import { parseRspecJson } from '../../src/engine/score/reports/rspec-json';
import type { TestCaseResult, TestReport } from '../../src/engine/score/types';
import { REPO_ROOT, fixture } from '../helpers/paths';

/**
 * Every input here was produced by the real tool on a throwaway copy of a fixture (see the `.how.txt`
 * beside each file), except Julia's, written by hand in the documented format (no Julia here). The
 * sandbox path of the capture is stored as @SANDBOX@ and replaced by this fixed, different prefix, so
 * nothing depends on where the capture ran.
 */
const CAPTURED = path.join(REPO_ROOT, 'test', 'data', 'captured');
const SANDBOX = '/tmp/xrt-parsers-sandbox';

function captured(lang: string, name: string): string {
  return fs.readFileSync(path.join(CAPTURED, lang, name), 'utf8').replaceAll('@SANDBOX@', SANDBOX);
}

function byName(report: TestReport, name: string): TestCaseResult {
  const c = report.cases.find((x) => x.name === name);
  assert.ok(c, `no case ${name} among ${report.cases.map((x) => x.name).join(', ')}`);
  return c;
}

function totals(r: TestReport): Omit<TestReport, 'cases'> {
  const { cases: _cases, ...rest } = r;
  return rest;
}

/** Lines from..to inclusive, without the listed ones. */
function lines(from: number, to: number, without: number[] = []): number[] {
  const out: number[] = [];
  for (let l = from; l <= to; l++) if (!without.includes(l)) out.push(l);
  return out;
}

describe('score parsers: captured data', () => {
  it('keeps a .how.txt beside every captured file', () => {
    const missing: string[] = [];
    for (const lang of fs.readdirSync(CAPTURED)) {
      for (const f of fs.readdirSync(path.join(CAPTURED, lang))) {
        if (!f.endsWith('.how.txt') && !fs.existsSync(path.join(CAPTURED, lang, `${f}.how.txt`))) missing.push(`${lang}/${f}`);
      }
    }
    assert.deepEqual(missing, []);
  });
});

describe('parseGoTestJson (go test -json)', () => {
  it('counts subtests as cases, not their parent, in a passing run', () => {
    const r = parseGoTestJson(captured('go', 'pass.jsonl'));
    assert.deepEqual(totals(r), { ran: 4, passed: 4, failed: 0, errored: 0, skipped: 0, outsideErrors: 0 });
    assert.deepEqual(
      r.cases.map((c) => c.name),
      ['TestXrtPopNDrains/zero', 'TestXrtPopNDrains/two', 'TestXrtPopNDrains/more_than_size', 'TestXrtPopNNegative'],
    );
  });

  it('agrees with the PASS/FAIL/SKIP lines go test printed itself', () => {
    const raw = captured('go', 'fail.jsonl');
    const printed = (word: string) =>
      raw.split('\n').filter((l) => l.includes(`"Output":"--- ${word}: `) && !/"Test":"TestXrtPopNOrder"/.test(l)).length;
    const r = parseGoTestJson(raw);
    assert.equal(r.passed, printed('PASS'));
    assert.equal(r.failed, printed('FAIL'));
    assert.equal(r.skipped, printed('SKIP'));
  });

  it('reads the failing assertion of a subtest and of a test, with expected and actual', () => {
    const r = parseGoTestJson(captured('go', 'fail.jsonl'));
    assert.deepEqual(totals(r), { ran: 3, passed: 1, failed: 2, errored: 0, skipped: 1, outsideErrors: 0 });
    assert.deepEqual(byName(r, 'TestXrtPopNOrder/two_wrong_order'), {
      name: 'TestXrtPopNOrder/two_wrong_order',
      status: 'failed',
      message: 'xrepotest_0123456789ab_test.go:25: PopN(2) got [3 2], want [2 3]',
      actual: '[3 2]',
      expected: '[2 3]',
    });
    const strict = byName(r, 'TestXrtPopNStrictLen');
    assert.equal(strict.status, 'failed');
    assert.equal(strict.expected, '0');
    assert.equal(strict.actual, '1');
    assert.equal(byName(r, 'TestXrtPopNSkipped').message, 'xrepotest_0123456789ab_test.go:44: not on this platform');
    assert.equal(r.cases.some((c) => c.name === 'TestXrtPopNOrder'), false);
  });

  it('counts a build failure (a package fail with no test) as an error outside the tests', () => {
    const r = parseGoTestJson(captured('go', 'builderr.jsonl'));
    assert.deepEqual(totals(r), { ran: 0, passed: 0, failed: 0, errored: 0, skipped: 0, outsideErrors: 1 });
  });

  it('ignores lines that are not JSON', () => {
    const noisy = `# example.com/inventory\n./stack.go:3:2: warning\n${captured('go', 'pass.jsonl')}\n{"Action":\n`;
    assert.deepEqual(parseGoTestJson(noisy), parseGoTestJson(captured('go', 'pass.jsonl')));
  });

  it('keeps a parent test that failed in its own body while its subtests passed', () => {
    const pass = captured('go', 'pass.jsonl').split('\n').filter(Boolean);
    // The captured run, with the parent's own t.Errorf output and its pass turned into a fail.
    const parentPass = pass.findIndex((l) => /"Action":"pass".*"Test":"TestXrtPopNDrains",/.test(l));
    const edited = [...pass];
    edited.splice(
      parentPass,
      1,
      '{"Action":"output","Package":"example.com/inventory","Test":"TestXrtPopNDrains","Output":"    x_test.go:9: got 2, want 3\\n"}',
      '{"Action":"fail","Package":"example.com/inventory","Test":"TestXrtPopNDrains"}',
    );
    const r = parseGoTestJson(edited.join('\n'));
    const parent = byName(r, 'TestXrtPopNDrains');
    assert.equal(parent.status, 'failed');
    assert.equal(parent.expected, '3');
    assert.equal(r.passed, 4);
  });
});

describe('Go cover profile', () => {
  const goMod = fs.readFileSync(path.join(fixture('inventory-go'), 'go.mod'), 'utf8');

  it('maps a file to its import path from go.mod', () => {
    assert.equal(goImportPath(goMod, SANDBOX, `${SANDBOX}/stack.go`), 'example.com/inventory/stack.go');
    assert.equal(goImportPath(goMod, SANDBOX, `${SANDBOX}/pricing/pricing.go`), 'example.com/inventory/pricing/pricing.go');
    assert.throws(() => goImportPath(goMod, SANDBOX, '/elsewhere/stack.go'));
    assert.throws(() => goImportPath('go 1.22\n', SANDBOX, `${SANDBOX}/stack.go`));
  });

  it('gives the exact covered and executable lines of Stack.PopN (stack.go 40-65)', async () => {
    const source = fs.readFileSync(path.join(fixture('inventory-go'), 'stack.go'), 'utf8');
    const hits = parseGoCoverProfile(captured('go', 'pass.cover.out'), 'example.com/inventory/stack.go', await goStatementStarts(source));
    // Lines where a statement starts (METRICS.md): not the signature (40), the closing braces, the
    // comment (61). 49.13,51.4 (the strict error return, line 50) ran 0 times; line 49's `if strict`
    // is in 48.14,49.13, which ran.
    const statementLines = [41, 42, 44, 45, 47, 48, 49, 50, 52, 54, 55, 56, 57, 58, 60, 62, 64];
    assert.deepEqual(focalCoverage(hits, 40, 65), {
      executable: statementLines,
      covered: statementLines.filter((l) => l !== 50),
    });
  });

  it('counts every line of every block where the source did not parse (the older rule, not no coverage)', () => {
    const hits = parseGoCoverProfile(captured('go', 'pass.cover.out'), 'example.com/inventory/stack.go', null);
    assert.deepEqual(focalCoverage(hits, 40, 65), {
      executable: [...lines(40, 52), ...lines(54, 64)],
      covered: [...lines(40, 49), 52, ...lines(54, 64)],
    });
  });

  it("agrees with go tool cover -func's statement percentage for PopN", () => {
    const profile = captured('go', 'pass.cover.out');
    const func = captured('go', 'pass.cover-func.txt');
    const percent = Number(/stack\.go:40:\s+PopN\s+([\d.]+)%/.exec(func)?.[1]);
    let stmts = 0;
    let coveredStmts = 0;
    for (const l of profile.split('\n')) {
      const m = /^example\.com\/inventory\/stack\.go:(\d+)\.\d+,(\d+)\.\d+ (\d+) (\d+)$/.exec(l);
      if (!m || Number(m[1]) < 40 || Number(m[2]) > 65) continue;
      stmts += Number(m[3]);
      if (Number(m[4]) > 0) coveredStmts += Number(m[3]);
    }
    assert.ok(percent > 0 && percent < 100);
    assert.equal(Math.round((coveredStmts / stmts) * 1000) / 10, percent);
  });

  it('matches the import path exactly, never a suffix', () => {
    const profile = captured('go', 'pass.cover.out');
    for (const imp of ['inventory/stack.go', 'stack.go', 'example.com/inventory/stack']) assert.equal(parseGoCoverProfile(profile, imp, null).size, 0);
  });
});

describe('parseLibtestOutput (Rust libtest)', () => {
  const summaries = (raw: string) =>
    [...raw.matchAll(/^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored;/gm)].reduce(
      (acc, m) => ({ passed: acc.passed + Number(m[1]), failed: acc.failed + Number(m[2]), ignored: acc.ignored + Number(m[3]) }),
      { passed: 0, failed: 0, ignored: 0 },
    );

  it('sums a passing run over both test executables, as their summaries do', () => {
    const raw = captured('rust', 'pass.libtest.txt');
    const r = parseLibtestOutput(raw);
    assert.deepEqual(totals(r), { ran: 3, passed: 3, failed: 0, errored: 0, skipped: 0, outsideErrors: 0 });
    assert.equal((raw.match(/^running \d+ tests?$/gm) ?? []).length, 2);
    const s = summaries(raw);
    assert.deepEqual([r.passed, r.failed, r.skipped], [s.passed, s.failed, s.ignored]);
    assert.deepEqual(
      r.cases.map((c) => c.name),
      ['equilateral_sides', 'non_positive_side_is_invalid', 'scalene_sides'].map((n) => `triangle::xrepotest_0123456789ab::${n}`),
    );
  });

  it("reads assert_eq!'s left/right as actual/expected and keeps other panics' messages", () => {
    const raw = captured('rust', 'fail.libtest.txt');
    const r = parseLibtestOutput(raw);
    assert.deepEqual(totals(r), { ran: 3, passed: 1, failed: 2, errored: 0, skipped: 1, outsideErrors: 0 });
    const s = summaries(raw);
    assert.deepEqual([r.passed, r.failed, r.skipped], [s.passed, s.failed, s.ignored]);
    const eq = byName(r, 'triangle::xrepotest_0123456789ab::degenerate_is_reported_as_invalid');
    assert.equal(eq.actual, 'Degenerate');
    assert.equal(eq.expected, 'Invalid');
    assert.match(eq.message ?? '', /assertion `left == right` failed/);
    assert.doesNotMatch(eq.message ?? '', /RUST_BACKTRACE/);
    const plain = byName(r, 'triangle::xrepotest_0123456789ab::perimeter_message');
    assert.match(plain.message ?? '', /no perimeter for 1, 1, 5/);
    assert.equal(plain.expected, undefined);
    assert.equal(byName(r, 'triangle::xrepotest_0123456789ab::slow_case').status, 'skipped');
  });

  it('counts an executable that died before its summary as an error outside the tests', () => {
    const raw = captured('rust', 'fail.libtest.txt');
    const cut = raw.slice(0, raw.indexOf('failures:'));
    const r = parseLibtestOutput(cut);
    assert.equal(r.outsideErrors, 1);
    assert.equal(r.ran, 3);
  });
});

describe('lcov (llvm-cov export -format=lcov)', () => {
  const triangle = `${SANDBOX}/src/triangle.rs`;

  it('gives the exact covered and executable lines of classify_triangle (triangle.rs 19-49)', () => {
    const hits = parseLcov(captured('rust', 'pass.lcov'), triangle);
    // llvm-cov marks neither the `const EPS` item (20) nor the match's closing `};` (47) as code; the
    // tests never reach the Invalid-by-inequality (31) or Degenerate (34) returns, nor three arms.
    assert.deepEqual(focalCoverage(hits, 19, 49), {
      executable: [19, ...lines(21, 46), 48, 49],
      covered: [19, ...lines(21, 46, [31, 34, 43, 44, 45]), 48, 49],
    });
  });

  it("agrees line by line with llvm-cov show's counts for the whole file", () => {
    const hits = parseLcov(captured('rust', 'pass.lcov'), triangle);
    const shown = new Map<number, number>();
    for (const l of captured('rust', 'pass.triangle.llvm-cov-show.txt').split('\n')) {
      const m = /^\s*(\d+)\|\s*(\d+)\|/.exec(l);
      if (m) shown.set(Number(m[1]), Number(m[2]));
    }
    assert.ok(shown.size > 50);
    assert.deepEqual(hits, shown);
  });

  it('matches SF: paths exactly, never by suffix', () => {
    const lcov = captured('rust', 'pass.lcov');
    assert.equal(parseLcov(lcov, 'src/triangle.rs').size, 0);
    assert.equal(parseLcov(lcov, '/src/triangle.rs').size, 0);
    assert.equal(parseLcov(lcov, `${SANDBOX}/src/triangle`).size, 0);
    assert.deepEqual(parseLcov(lcov, `${SANDBOX}/src/../src/triangle.rs`), parseLcov(lcov, triangle));
  });

  it('merges a file named twice by taking the larger count per line', () => {
    const lcov = captured('rust', 'pass.lcov');
    const once = parseLcov(lcov, triangle);
    const twice = parseLcov(`${lcov}\nSF:${triangle}\nDA:31,5\nDA:19,1\nend_of_record\n`, triangle);
    assert.equal(once.get(31), 0);
    assert.equal(twice.get(31), 5);
    assert.equal(twice.get(19), once.get(19));
  });
});

describe('parseJunitXml (PHPUnit --log-junit)', () => {
  const xmlParser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' });
  const topSuite = (xml: string) => (xmlParser.parse(xml) as { testsuites: { testsuite: Record<string, string> } }).testsuites.testsuite;

  it('reads the cases of nested suites (a data provider) in a passing run', () => {
    const xml = captured('php', 'pass.junit.xml');
    const r = parseJunitXml(xml);
    assert.deepEqual(totals(r), { ran: 3, passed: 3, failed: 0, errored: 0, skipped: 0, outsideErrors: 0 });
    assert.equal(r.ran, Number(topSuite(xml).tests));
    assert.ok(r.cases.some((c) => c.name === 'Textkit\\Tests\\TopWordsXrt0123456789abTest::testLimit with data set "two"'));
  });

  it('tells failures, errors and skips apart, as the suite attributes count them', () => {
    const xml = captured('php', 'fail.junit.xml');
    const r = parseJunitXml(xml);
    const suite = topSuite(xml);
    assert.deepEqual(
      [r.failed, r.errored, r.skipped, r.ran + r.skipped],
      [Number(suite.failures), Number(suite.errors), Number(suite.skipped), Number(suite.tests)],
    );
    assert.equal(r.passed, 1);
  });

  it("takes expected/actual from PHPUnit's diff and from 'matches expected'", () => {
    const r = parseJunitXml(captured('php', 'fail.junit.xml'));
    const cls = 'Textkit\\Tests\\TopWordsXrt0123456789abTest';
    const diff = byName(r, `${cls}::testWrongSummary`);
    assert.equal(diff.status, 'failed');
    assert.equal(diff.expected, "'aa and 3 more'");
    assert.equal(diff.actual, "'aa, bb, cc, dd'");
    assert.match(diff.message ?? '', /^Failed asserting that two strings are identical\./);
    const eq = byName(r, `${cls}::testWordCount`);
    assert.deepEqual([eq.expected, eq.actual], ['5', '4']);
    const err = byName(r, `${cls}::testThrows`);
    assert.equal(err.status, 'errored');
    assert.match(err.message ?? '', /^RuntimeException: boom in test/);
    assert.equal(byName(r, `${cls}::testSkipped`).status, 'skipped');
  });

  it('reads no file, or a cut one, as nothing ran', () => {
    assert.equal(parseJunitXml('').ran, 0);
    const xml = captured('php', 'pass.junit.xml');
    assert.equal(parseJunitXml(xml.slice(0, xml.length / 2)).ran, 0);
  });
});

describe('clover (PHPUnit --coverage-clover)', () => {
  const wordStats = `${SANDBOX}/src/Analysis/WordStats.php`;

  it('gives the exact covered and executable lines of WordStats::topWords (61-92)', () => {
    const hits = parseClover(captured('php', 'pass.clover.xml'), wordStats);
    // The clover file's stmt lines in 61-92; 61 is the method's declaration (type="method"), 64 (the
    // limit < 1 throw) and 69 (no words) never ran.
    const executable = [63, 64, 67, 68, 69, 72, 73, 74, 76, 77, 79, 80, 83, 84, 85, 86, 87, 88, 91];
    assert.deepEqual(focalCoverage(hits, 61, 92), { executable, covered: executable.filter((l) => l !== 64 && l !== 69) });
  });

  it("agrees with phpunit --coverage-text's per-class line counts", () => {
    const text = captured('php', 'pass.coverage-text.txt');
    const clover = captured('php', 'pass.clover.xml');
    for (const [cls, file] of [
      ['WordStats', 'WordStats.php'],
      ['CaseConversion', 'CaseConversion.php'],
    ]) {
      const m = new RegExp(`Textkit\\\\Analysis\\\\${cls}\\n.*Lines:\\s+[\\d.]+% \\(\\s*(\\d+)/\\s*(\\d+)\\)`).exec(text);
      assert.ok(m, cls);
      const hits = parseClover(clover, `${SANDBOX}/src/Analysis/${file}`);
      assert.deepEqual([[...hits.values()].filter((n) => n > 0).length, hits.size], [Number(m[1]), Number(m[2])], cls);
    }
  });

  it('matches <file name> exactly, never by suffix', () => {
    const clover = captured('php', 'pass.clover.xml');
    assert.equal(parseClover(clover, 'src/Analysis/WordStats.php').size, 0);
    assert.equal(parseClover(clover, 'WordStats.php').size, 0);
    assert.equal(parseClover('', wordStats).size, 0);
  });
});

describe('parseRspecJson (rspec --format json)', () => {
  it('reads a passing run', () => {
    const r = parseRspecJson(captured('ruby', 'pass.rspec.json'));
    assert.deepEqual(totals(r), { ran: 3, passed: 3, failed: 0, errored: 0, skipped: 0, outsideErrors: 0 });
    assert.equal(r.cases[0].name, 'Bookshelf::Util.late_fee is free when returned on time');
  });

  it('splits expectation failures from other exceptions; together they are RSpec failure_count', () => {
    const json = captured('ruby', 'fail.rspec.json');
    const r = parseRspecJson(json);
    const summary = (JSON.parse(json) as { summary: Record<string, number> }).summary;
    assert.equal(r.failed + r.errored, summary.failure_count);
    assert.equal(r.skipped, summary.pending_count);
    assert.equal(r.ran + r.skipped, summary.example_count);
    const senior = byName(r, 'Bookshelf::Util.late_fee charges seniors the adult rate');
    assert.deepEqual([senior.status, senior.expected, senior.actual], ['failed', '50', '30']);
    const robot = byName(r, 'Bookshelf::Util.late_fee rejects unknown kinds');
    assert.equal(robot.status, 'errored');
    assert.equal(robot.message, 'ArgumentError: unknown member kind: :robot');
    assert.equal(byName(r, 'Bookshelf::Util.late_fee caps renewals').status, 'skipped');
  });

  it('counts a spec file that fails to load as an error outside the examples', () => {
    const r = parseRspecJson(captured('ruby', 'loaderr.rspec.json'));
    assert.deepEqual(totals(r), { ran: 0, passed: 0, failed: 0, errored: 0, skipped: 0, outsideErrors: 1 });
    assert.equal(parseRspecJson('').ran, 0);
  });
});

describe('Ruby coverage (Coverage.result, SimpleCov resultset)', () => {
  const util = `${SANDBOX}/lib/bookshelf/util.rb`;
  // The raw array's non-null entries in late_fee (19-48); 26 (senior rate), 29 (raise) and 40 (third
  // week) never ran. 19, the `def` line, counts once at load time.
  const executable = [19, 20, 21, 24, 25, 26, 27, 29, 32, 33, 35, 36, 37, 38, 40, 42, 45, 46, 47];
  const lateFee = { executable, covered: executable.filter((l) => ![26, 29, 40].includes(l)) };

  it('gives the exact covered and executable lines of Util.late_fee (util.rb 19-48)', () => {
    assert.deepEqual(focalCoverage(parseRubyCoverage(captured('ruby', 'pass.coverage.json'), util), 19, 48), lateFee);
  });

  it("equals the raw Coverage arrays entry by entry (null = not code)", () => {
    const json = captured('ruby', 'pass.coverage.json');
    const raw = (JSON.parse(json) as Record<string, { lines: Array<number | null> }>)[util].lines;
    const hits = parseRubyCoverage(json, util);
    raw.forEach((v, i) => assert.equal(hits.get(i + 1), v === null ? undefined : v, `line ${i + 1}`));
    assert.equal(hits.size, raw.filter((v) => v !== null).length);
  });

  it("reads SimpleCov's .resultset.json and the legacy array shape", () => {
    assert.deepEqual(focalCoverage(parseRubyCoverage(captured('ruby', 'pass.simplecov.resultset.json'), util), 19, 48), lateFee);
    assert.deepEqual(focalCoverage(parseRubyCoverage(captured('ruby', 'legacy.coverage.json'), util), 19, 48), lateFee);
  });

  it('matches the path exactly, never by suffix', () => {
    const json = captured('ruby', 'pass.coverage.json');
    assert.equal(parseRubyCoverage(json, 'lib/bookshelf/util.rb').size, 0);
    assert.equal(parseRubyCoverage(json, '/lib/bookshelf/util.rb').size, 0);
    assert.equal(parseRubyCoverage('not json', util).size, 0);
  });
});

describe('Julia (hand-written samples: no Julia here)', () => {
  it('reads the XRT_COUNTS line; broken counts as skipped', () => {
    assert.deepEqual(totals(parseJuliaCounts(captured('julia', 'pass.output.txt'))), {
      ran: 4,
      passed: 4,
      failed: 0,
      errored: 0,
      skipped: 0,
      outsideErrors: 0,
    });
    const r = parseJuliaCounts(captured('julia', 'fail.output.txt'));
    assert.deepEqual(totals(r), { ran: 4, passed: 2, failed: 1, errored: 1, skipped: 1, outsideErrors: 0 });
    const failed = r.cases.find((c) => c.status === 'failed');
    assert.deepEqual([failed?.name, failed?.actual, failed?.expected], [`${SANDBOX}/test/xrepotest_0123456789ab.jl:7`, '2.5', '3.0']);
    assert.equal(r.cases.find((c) => c.status === 'errored')?.name, `${SANDBOX}/test/xrepotest_0123456789ab.jl:10`);
  });

  it('reads a run without the line as nothing ran', () => {
    const cut = captured('julia', 'fail.output.txt').replace(/^XRT_COUNTS.*$/m, '');
    assert.equal(parseJuliaCounts(cut).ran, 0);
  });

  it('sums the .cov files of one source and gives the focal lines of trimmed_mean (92-120)', () => {
    const files = ['descriptive.jl.1001.cov', 'descriptive.jl.1002.cov'].map((name) => ({ name, text: captured('julia', name) }));
    const hits = parseJuliaCov(files);
    const executable = [92, 93, 94, 96, 97, 102, 103, 106, 107, 108, 109, 111, 114, 115, 116, 117, 119];
    assert.deepEqual(focalCoverage(hits, 92, 120), { executable, covered: executable.filter((l) => l !== 94 && l !== 97) });
    assert.deepEqual([hits.get(92), hits.get(117), hits.get(111)], [3, 12, 1]);
    const first = focalCoverage(parseJuliaCov(files.slice(0, 1)), 92, 120);
    assert.deepEqual(first.covered.filter((l) => l >= 114), []);
  });

  it('names the .cov files of exactly one source', () => {
    const src = `${SANDBOX}/src/descriptive.jl`;
    assert.ok(isJuliaCovFileFor(src, `${SANDBOX}/src/descriptive.jl.1001.cov`));
    assert.ok(isJuliaCovFileFor(src, `${SANDBOX}/src/descriptive.jl.cov`));
    assert.ok(!isJuliaCovFileFor(src, `${SANDBOX}/src/xdescriptive.jl.1001.cov`));
    assert.ok(!isJuliaCovFileFor(src, `${SANDBOX}/other/descriptive.jl.1001.cov`));
    assert.ok(!isJuliaCovFileFor(src, `${SANDBOX}/src/descriptive.jl.mem`));
  });
});

describe('focalCoverage', () => {
  it('gives empty arrays without data', () => {
    assert.deepEqual(focalCoverage(null, 1, 10), { executable: [], covered: [] });
    assert.deepEqual(focalCoverage(new Map(), 1, 10), { executable: [], covered: [] });
  });
});
