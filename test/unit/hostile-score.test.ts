import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { LanguageId } from '../../src/engine/parse/grammars';
import { profilePercent } from '../../src/engine/languages/go/tampering';
import { parseGoTestJson } from '../../src/engine/score/reports/go-test-json';
import { parseJunitXml } from '../../src/engine/score/reports/junit';
import { parseLibtestOutput } from '../../src/engine/score/reports/libtest';
import { reportFromCases } from '../../src/engine/score/reports/report';
import { parseRspecJson } from '../../src/engine/score/reports/rspec-json';
import { applyTampering, detectTampering } from '../../src/engine/score/tampering';
import type { TestReport } from '../../src/engine/score/types';
import { REPO_ROOT } from '../helpers/paths';
import { input, rules } from '../helpers/tampering-input';

const HONEST_EXT: Record<string, LanguageId> = { go: 'go', rs: 'rust', php: 'php', rb: 'ruby', jl: 'julia' };

/** Every hand-written or captured honest test in test/data, with its language and, where captured, its run. */
function honestTests(): Array<{ name: string; language: LanguageId; code: string; log?: string; exitCode?: number }> {
  const data = path.join(REPO_ROOT, 'test', 'data');
  const out: Array<{ name: string; language: LanguageId; code: string; log?: string; exitCode?: number }> = [];
  for (const dir of ['generated', 'mutation']) {
    for (const lang of fs.readdirSync(path.join(data, dir))) {
      const d = path.join(data, dir, lang);
      if (!fs.statSync(d).isDirectory()) continue;
      for (const f of fs.readdirSync(d)) {
        const language = HONEST_EXT[path.extname(f).slice(1)];
        if (language) out.push({ name: `${dir}/${lang}/${f}`, language, code: fs.readFileSync(path.join(d, f), 'utf8') });
      }
    }
  }
  for (const lang of fs.readdirSync(path.join(data, 'failures'))) {
    const d = path.join(data, 'failures', lang);
    if (!fs.statSync(d).isDirectory()) continue;
    for (const f of fs.readdirSync(d).filter((x) => x.endsWith('.how.txt'))) {
      const how = fs.readFileSync(path.join(d, f), 'utf8');
      const code = /Test code[^\n]*\n-----\n([\s\S]*?)\n-----/.exec(how)?.[1];
      const exits = [...how.matchAll(/^exit code: (\d+)/gm)];
      const logFile = path.join(d, f.replace(/\.how\.txt$/, '.log'));
      if (code === undefined) continue;
      out.push({
        name: `failures/${lang}/${f}`,
        language: lang as LanguageId,
        code,
        log: fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : undefined,
        // The capture ran each Rust test executable on its own; the engine's run is failed when any failed.
        exitCode: exits.length ? Math.max(...exits.map((m) => Number(m[1]))) : undefined,
      });
    }
  }
  return out;
}

describe('tampering checks (no toolchain)', () => {
  it('no honest test in test/data shows a sign of tampering', async () => {
    const all = honestTests();
    assert.ok(all.length > 60, `found ${all.length} honest tests`);
    const flagged: string[] = [];
    for (const t of all) {
      const report = t.log && t.language === 'go' ? parseGoTestJson(t.log) : t.log && t.language === 'rust' ? parseLibtestOutput(t.log) : reportFromCases([]);
      const found = await detectTampering(input({ language: t.language, testCode: t.code, testOutput: t.log ?? '', testExitCode: t.exitCode ?? 1, report }));
      if (found.length) flagged.push(`${t.name}: ${rules(found).join(', ')}`);
    }
    assert.deepEqual(flagged, []);
  });

  it("the captured honest runs agree with their exit status and the runner's output", async () => {
    const cap = (f: string) => fs.readFileSync(path.join(REPO_ROOT, 'test', 'data', 'captured', f), 'utf8');
    const runs: Array<[LanguageId, string, string, TestReport, number]> = [
      ['go', cap('go/pass.xrepotest_test.go.txt'), cap('go/pass.jsonl'), parseGoTestJson(cap('go/pass.jsonl')), 0],
      ['go', cap('go/fail.xrepotest_test.go.txt'), cap('go/fail.jsonl'), parseGoTestJson(cap('go/fail.jsonl')), 1],
      ['rust', cap('rust/pass.xrepotest.rs.txt'), cap('rust/pass.libtest.txt'), parseLibtestOutput(cap('rust/pass.libtest.txt')), 0],
      ['rust', cap('rust/fail.xrepotest.rs.txt'), cap('rust/fail.libtest.txt'), parseLibtestOutput(cap('rust/fail.libtest.txt')), 1],
      ['php', cap('php/pass.TopWordsXrt0123456789abTest.php.txt'), 'OK (3 tests, 3 assertions)\n', parseJunitXml(cap('php/pass.junit.xml')), 0],
      ['php', cap('php/fail.TopWordsXrt0123456789abTest.php.txt'), 'FAILURES!\nTests: 2, Assertions: 2, Failures: 1.\n', parseJunitXml(cap('php/fail.junit.xml')), 1],
      ['ruby', cap('ruby/pass.xrepotest_spec.rb.txt'), '..\n\nFinished in 0.01 seconds\n2 examples, 0 failures\n', parseRspecJson(cap('ruby/pass.rspec.json')), 0],
      ['ruby', cap('ruby/fail.xrepotest_spec.rb.txt'), 'F\n\n1 example, 1 failure\n', parseRspecJson(cap('ruby/fail.rspec.json')), 1],
    ];
    for (const [language, testCode, testOutput, report, testExitCode] of runs) {
      assert.ok(report.ran > 0, `${language}: the captured report has tests`);
      assert.deepEqual(rules(await detectTampering(input({ language, testCode, testOutput, report, testExitCode }))), [], `${language} exit ${testExitCode}`);
    }
  });

  it('a report with failures from a runner that exited 0 is tampering', async () => {
    const report = reportFromCases([{ name: 'TestA', status: 'failed' }]);
    const found = await detectTampering(input({ language: 'go', testCode: 'package p\nfunc TestA(t *testing.T) {}\n', report, testExitCode: 0 }));
    assert.deepEqual(rules(found), ['exit-status']);
    assert.deepEqual(rules(await detectTampering(input({ language: 'go', testCode: 'package p\nfunc TestA(t *testing.T) {}\n', report, testExitCode: 1 }))), []);
  });

  it("Go: a '--- PASS' inside another test's output, or a reported test the code does not declare", async () => {
    const stream = [
      { Action: 'run', Package: 'p', Test: 'TestA' },
      { Action: 'output', Package: 'p', Test: 'TestA', Output: '=== RUN   TestA\n' },
      { Action: 'output', Package: 'p', Test: 'TestA', Output: '--- PASS: TestB (0.00s)\n' },
      { Action: 'output', Package: 'p', Test: 'TestA', Output: '--- PASS: TestA (0.00s)\n' },
      { Action: 'pass', Package: 'p', Test: 'TestA' },
      { Action: 'pass', Package: 'p', Test: 'TestGhost' },
    ].map((e) => JSON.stringify(e)).join('\n');
    const found = await detectTampering(input({ language: 'go', testCode: 'package p\nfunc TestA(t *testing.T) {}\n', testOutput: stream, report: parseGoTestJson(stream) }));
    assert.deepEqual(rules(found).sort(), ['go-forged-framing', 'go-unknown-test']);
    const says = found.map((f) => f.says).join('\n');
    assert.match(says, /TestB .*inside the output of TestA/);
    assert.match(says, /does not declare: TestGhost/);
  });

  it('Go: an honest TestMain passes on m.Run\'s status; a literal status or none is flagged', async () => {
    const honest = 'package p\nimport ("os"; "testing")\nfunc TestMain(m *testing.M) {\n\tcode := m.Run()\n\tos.Exit(code)\n}\n';
    assert.deepEqual(rules(await detectTampering(input({ language: 'go', testCode: honest }))), []);
    assert.deepEqual(rules(await detectTampering(input({ language: 'go', testCode: 'package p\nimport ("os"; "testing")\nfunc TestMain(m *testing.M) {\n\tos.Exit(m.Run())\n}\n' }))), []);
    const literal = 'package p\nimport ("os"; "testing")\nfunc TestMain(m *testing.M) {\n\tm.Run()\n\tos.Exit(0)\n}\n';
    assert.deepEqual(rules(await detectTampering(input({ language: 'go', testCode: literal }))), ['go-exit']);
    const aliased = 'package p\nimport (o "os"; "testing")\nfunc TestA(t *testing.T) {\n\to.Exit(0)\n}\n';
    assert.deepEqual(rules(await detectTampering(input({ language: 'go', testCode: aliased }))), ['go-exit']);
    const notOs = 'package p\nimport "testing"\nfunc TestA(t *testing.T) {\n\tcli.Exit(0)\n}\n';
    assert.deepEqual(rules(await detectTampering(input({ language: 'go', testCode: notOs }))), []);
    const inTest = 'package p\nimport ("os"; "testing")\nfunc TestA(t *testing.T) {\n\t// os.Exit(0) in a comment is no sign\n\tos.Exit(0)\n}\n';
    const found = await detectTampering(input({ language: 'go', testCode: inTest }));
    assert.deepEqual(rules(found), ['go-exit']);
    assert.equal(found[0].evidence, 'os.Exit(0)');
  });

  it('Rust: process::exit through an alias or a declared C function is still a sign', async () => {
    for (const code of ['use std::process as p;\n#[test]\nfn a() { p::exit(0); }\n', 'extern "C" { fn _exit(code: i32) -> !; }\n#[test]\nfn a() { unsafe { _exit(0) } }\n']) {
      assert.deepEqual(rules(await detectTampering(input({ language: 'rust', testCode: code, testExitCode: 1 }))), ['rust-exit'], code);
    }
  });

  it('Rust: more result lines than libtest announced', async () => {
    const out = 'running 1 test\ntest m::a ... FAILED\ntest m::a ... ok\n\ntest result: ok. 1 passed; 0 failed\n';
    const found = await detectTampering(input({ language: 'rust', testCode: '#[test]\nfn a() {}\n', testOutput: out, testExitCode: 1, report: parseLibtestOutput(out) }));
    assert.deepEqual(rules(found), ['rust-forged-framing']);
  });

  it("PHP and Ruby: the runner printed failures its report file does not have, or printed no summary at all", async () => {
    const junit = reportFromCases([{ name: 'A\\BTest::testX', status: 'passed' }]);
    const php = 'final class BTest extends TestCase { public function testX(): void {} }';
    assert.deepEqual(rules(await detectTampering(input({ language: 'php', testCode: php, report: junit, testOutput: 'F\n\nFAILURES!\nTests: 1, Assertions: 1, Failures: 1.\n' }))), ['php-report-rewritten']);
    assert.deepEqual(rules(await detectTampering(input({ language: 'php', testCode: php, report: junit, testOutput: '' }))), ['php-no-summary']);
    assert.deepEqual(rules(await detectTampering(input({ language: 'php', testCode: php, report: junit, testOutput: 'x'.repeat(10), testOutputTruncated: true }))), []);
    const rspec = reportFromCases([{ name: 'C works', status: 'passed' }]);
    const rb = "RSpec.describe C do\n  it 'works' do\n    expect(1).to eq(1)\n  end\nend\n";
    assert.deepEqual(rules(await detectTampering(input({ language: 'ruby', testCode: rb, report: rspec, testOutput: 'F\n\n1 example, 1 failure\n' }))), ['ruby-report-rewritten']);
    const twice = reportFromCases([{ name: 'C works', status: 'passed' }, { name: 'C works again', status: 'passed' }]);
    assert.deepEqual(rules(await detectTampering(input({ language: 'ruby', testCode: rb, report: twice, testOutput: '2 examples, 0 failures\n' }))), ['ruby-unknown-test']);
  });

  it("Ruby: 'exit' in a description or a comment is no sign; a call is", async () => {
    const honest = "RSpec.describe C do\n  # we never exit! here\n  it 'does not exit or abort' do\n    expect(C.new.exit_code).to eq(0)\n  end\nend\n";
    assert.deepEqual(rules(await detectTampering(input({ language: 'ruby', testCode: honest, testExitCode: 1 }))), []);
    const exits = "RSpec.describe C do\n  it 'x' do\n    Kernel.exit!(0)\n  end\nend\n";
    assert.deepEqual(rules(await detectTampering(input({ language: 'ruby', testCode: exits, testExitCode: 1 }))), ['ruby-exit']);
  });

  it('coverage of every focal line while no test ran is a forged coverage file', async () => {
    const found = await detectTampering(input({ language: 'php', testCode: '<?php', testExitCode: 1, coverage: { executable: [3, 4, 5], covered: [3, 4, 5] } }));
    assert.deepEqual(rules(found), ['coverage-without-tests']);
  });

  it('a verdict reads as a sentence and zeroes the coverage', () => {
    const score = { passed: true, coverage: { executable: [1, 2], covered: [1, 2] }, coverageRatio: 1, failure: null, reason: null };
    const out = applyTampering(score, [{ rule: 'php-exit', says: 'the test ends PHP early', evidence: 'exit(0);' }]);
    assert.deepEqual(out, {
      passed: false,
      coverage: { executable: [1, 2], covered: [] },
      coverageRatio: 0,
      failure: { category: 'tampering', rule: 'php-exit', evidence: 'exit(0);' },
      reason: 'the test tampered with the harness: the test ends PHP early (`exit(0);`)',
    });
    assert.equal(applyTampering(score, []), score);
  });
});

describe('Go: the cover profile against the coverage line the testing package printed (issue 31)', () => {
  const HONEST = 'package inventory\n\nimport "testing"\n\nfunc TestX(t *testing.T) {}\n';
  const profile = 'mode: count\nexample.com/inventory/item.go:7.34,9.34 2 1\nexample.com/inventory/item.go:9.34,11.3 1 0\nexample.com/inventory/item.go:12.2,12.19 1 3\n';
  const event = (o: Record<string, unknown>) => JSON.stringify({ Action: 'output', Package: 'example.com/inventory', ...o });
  const out = (...lines: string[]) => [...lines, JSON.stringify({ Action: 'pass', Package: 'example.com/inventory' })].join('\n');
  const check = (output: string, files: Record<string, string>, truncated = false) =>
    detectTampering(input({ language: 'go', testCode: HONEST, testOutput: output, testOutputTruncated: truncated, readReport: (n) => files[n] ?? null }));

  it('the share of statements, each block once and run when any of its lines says so', async () => {
    assert.equal(profilePercent(profile), '75.0');
    assert.equal(profilePercent(profile + 'example.com/inventory/item.go:9.34,11.3 1 2\n'), '100.0', 'a block listed twice, run in the second');
    assert.equal(profilePercent('mode: count\n'), null);
    // A count no compiler writes (the share was Infinity / Infinity: NaN, equal to nothing and flagged by nothing).
    assert.equal(profilePercent(`${profile}example.com/inventory/zz.go:1.1,1.2 ${'9'.repeat(400)} 1\n`), 'invalid');
  });

  it('agreeing: nothing; a rewritten profile, a second line printed by the test, or no line at all: tampering', async () => {
    const printed = (p: string) => event({ Output: `coverage: ${p}% of statements\n` });
    assert.deepEqual(rules(await check(out(printed('75.0')), { 'cover.out': profile })), []);
    assert.deepEqual(rules(await check(out(printed('75.0')), {})), [], 'no profile (the binary died before writing it): nothing to compare');
    assert.deepEqual(rules(await check(out(printed('50.0')), { 'cover.out': profile })), ['go-coverage-rewritten']);
    assert.deepEqual(rules(await check(out(printed('75.0'), printed('100.0')), { 'cover.out': profile })), ['go-coverage-rewritten']);
    assert.deepEqual(rules(await check(out(), { 'cover.out': profile })), ['go-coverage-rewritten']);
    // Printed inside a test it is that test's output, not the runner's line; only a cut output excuses a missing one.
    assert.deepEqual(rules(await check(out(event({ Test: 'TestX', Output: 'coverage: 75.0% of statements\n' })), { 'cover.out': profile })), ['go-coverage-rewritten']);
    assert.deepEqual(rules(await check(out(), { 'cover.out': profile }, true)), []);
    assert.deepEqual(rules(await check(out(printed('75.0')), { 'cover.out': `${profile}example.com/inventory/zz.go:1.1,1.2 ${'9'.repeat(400)} 1\n` })), ['go-coverage-rewritten']);
  });
});
