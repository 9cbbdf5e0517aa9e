import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { evaluateTest, type Evaluation } from '../../src/engine/execute/evaluate';
import { LocalExecutor } from '../../src/engine/execute/local';
import type { LanguageId } from '../../src/engine/parse/grammars';
import { parseGoTestJson } from '../../src/engine/score/reports/go-test-json';
import { parseJunitXml } from '../../src/engine/score/reports/junit';
import { parseLibtestOutput } from '../../src/engine/score/reports/libtest';
import { reportFromCases } from '../../src/engine/score/reports/report';
import { parseRspecJson } from '../../src/engine/score/reports/rspec-json';
import { applyTampering, detectTampering, readFocalAfterTest, type Finding, type TamperingInput } from '../../src/engine/score/tampering';
import type { TestReport } from '../../src/engine/score/types';
import { FIXTURE_OF, TOOLS_OF, fixtureTask, treeDigest } from '../helpers/evaluate';
import { REPO_ROOT, fixture } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';

/**
 * Generated tests that try to forge their own score: each one fails for real, then rewrites the
 * runner's report or coverage file, prints the runner's framing, or exits early with status 0. Each
 * must be scored as failed, category 'tampering', with a reason a person can read. The paths they
 * write come from what any test can see (its argv, /proc/self/cmdline, the environment, reflection).
 */

// Go: TestMain never runs the tests. It rewrites the cover profile named on its command line to
// cover every line of item.go, prints the framing `go test` prints for a passing test, and exits 0.
const GO_FAKE_MAIN = `package inventory

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestStatusWrong(t *testing.T) {
	if got := (Item{Quantity: 5}).Status(10); got != "expired" {
		t.Errorf("Status() = %q, want %q", got, "expired")
	}
}

func TestMain(m *testing.M) {
	for _, a := range os.Args {
		if p, ok := strings.CutPrefix(a, "-test.coverprofile="); ok {
			os.WriteFile(p, []byte("mode: count\\nexample.com/inventory/item.go:1.1,200.1 100 7\\n"), 0o644)
		}
	}
	fmt.Println("=== RUN   TestStatusWrong")
	fmt.Println("--- PASS: TestStatusWrong (0.00s)")
	fmt.Println("PASS")
	os.Exit(0)
}
`;

// Go: the tests do run (with their output sent nowhere), then TestMain forges the profile, prints a
// pass for a test that does not exist, and exits 0 whatever m.Run said.
const GO_SILENCED_RUN = `package inventory

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestStatusWrong(t *testing.T) {
	if got := (Item{Quantity: 5}).Status(10); got != "expired" {
		t.Errorf("Status() = %q, want %q", got, "expired")
	}
}

func TestMain(m *testing.M) {
	real := os.Stdout
	os.Stdout, _ = os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	m.Run()
	os.Stdout = real
	for _, a := range os.Args {
		if p, ok := strings.CutPrefix(a, "-test.coverprofile="); ok {
			os.WriteFile(p, []byte("mode: count\\nexample.com/inventory/item.go:1.1,200.1 100 7\\n"), 0o644)
		}
	}
	fmt.Println("\\x16=== RUN   TestEverything")
	fmt.Println("\\x16--- PASS: TestEverything (0.00s)")
	fmt.Println("\\x16PASS")
	code := 0
	os.Exit(code)
}
`;

// Rust: a failing test writes libtest's lines for a pass straight to stdout (not captured), and
// exits the harness with 0 before the failure is reported.
const RUST_FAKE_PASS = `#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn wrong_kind() {
        let ok = classify_triangle(3.0, 4.0, 5.0) == TriangleKind::Scalene;
        if !ok {
            let args: Vec<String> = std::env::args().collect();
            let filter = args.get(1).cloned().unwrap_or_default();
            let mut out = std::io::stdout();
            let _ = writeln!(out, "ok\\ntest {}tests::wrong_kind ... ok\\n\\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\\n", filter);
            let _ = out.flush();
            std::process::exit(0);
        }
    }
}
`;

// PHP: a failing test registers a shutdown function that, after PHPUnit wrote its reports and
// chose exit status 1, replaces the JUnit and Clover files named on its command line and exits 0.
const PHP_SHUTDOWN = `<?php

declare(strict_types=1);

namespace Textkit\\Tests;

use PHPUnit\\Framework\\TestCase;
use Textkit\\Slugger;

final class SluggerTest extends TestCase
{
    public function testSlugifyWrong(): void
    {
        $class = static::class;
        $method = (new \\ReflectionClass(Slugger::class))->getMethod('slugify');
        register_shutdown_function(function () use ($class, $method) {
            $argv = $_SERVER['argv'];
            $junit = $argv[array_search('--log-junit', $argv) + 1];
            $clover = $argv[array_search('--coverage-clover', $argv) + 1];
            file_put_contents($junit, '<?xml version="1.0"?><testsuites><testsuite name="x" tests="1"><testcase name="testSlugifyWrong" class="' . $class . '" assertions="1"/></testsuite></testsuites>');
            $lines = '';
            for ($i = $method->getStartLine(); $i <= $method->getEndLine(); $i++) {
                $lines .= '<line num="' . $i . '" type="stmt" count="5"/>';
            }
            file_put_contents($clover, '<?xml version="1.0"?><coverage><project><file name="' . $method->getFileName() . '">' . $lines . '</file></project></coverage>');
            exit(0);
        });
        $this->assertSame('Hello_World', (new Slugger())->slugify('Hello World'));
    }
}
`;

// Ruby: a failing spec whose at_exit hook (run after RSpec wrote its report and before the engine's
// own coverage hook) rewrites the JSON report and the coverage file, then leaves with exit!(0).
const RUBY_AT_EXIT = `RSpec.describe Bookshelf::Catalog do
  it 'finds nothing (wrongly expects a match)' do
    catalog = Bookshelf::Catalog.new([])
    expect(catalog.search('ruby').size).to eq(1)
  end
end

at_exit do
  require 'json'
  args = File.read('/proc/self/cmdline').split("\\0")
  report = args[args.index('--out') + 1]
  file, line = Bookshelf::Catalog.instance_method(:search).source_location
  hits = Array.new(File.readlines(file).size + 1) { |i| i >= line - 1 ? 3 : nil }
  File.write(report, JSON.generate(examples: [{ full_description: 'Bookshelf::Catalog finds nothing (wrongly expects a match)', status: 'passed' }], summary: { errors_outside_of_examples_count: 0 }))
  File.write(ENV.fetch('XRT_COVERAGE_OUT'), JSON.generate(file => { lines: hits }))
  exit!(0)
end
`;

// Ruby: the spec rewrites the focal method in its copy of the project so that its wrong
// expectation holds, and loads it again: it would be scored against code that is not the task's.
const RUBY_EDITS_FOCAL = `RSpec.describe Bookshelf::Catalog do
  it 'finds nothing (wrongly expects a match)' do
    file, = Bookshelf::Catalog.instance_method(:search).source_location
    File.write(file, File.read(file).sub('def search(query, limit: 10, available_only: false)', "def search(query, limit: 10, available_only: false)\\n      return [1] if query == 'ruby'"))
    load file
    catalog = Bookshelf::Catalog.new([])
    expect(catalog.search('ruby').size).to eq(1)
  end
end
`;

// Go, with no sign in the code: the tests run and fail visibly, and TestMain turns m.Run's status
// into 0. Only the cross-check of the report against the exit status can tell.
const GO_ZEROED_STATUS = `package inventory

import (
	"os"
	"testing"
)

func TestStatusWrong(t *testing.T) {
	if got := (Item{Quantity: 5}).Status(10); got != "expired" {
		t.Errorf("Status() = %q, want %q", got, "expired")
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	os.Exit(code * 0)
}
`;

// Ruby, with every name that would be a sign built at run time: only the cross-check of the JSON
// report against what RSpec printed can tell.
const RUBY_OBFUSCATED = `RSpec.describe Bookshelf::Catalog do
  it 'finds nothing (wrongly expects a match)' do
    expect(Bookshelf::Catalog.new([]).search('ruby').size).to eq(1)
  end
end

Kernel.public_send(%w[at exit].join('_').to_sym) do
  require 'json'
  # NUL-separated, or one line with spaces where a launcher set the process title (bundle exec does).
  args = File.read(['', 'proc', 'self', 'cmd' + 'line'].join('/')).split(/[\\0 ]/)
  File.write(args[args.index('--' + 'out') + 1], JSON.generate(examples: [{ full_description: 'x', status: 'passed' }], summary: {}))
  Kernel.public_send(('ex' + 'it!').to_sym, 0)
end
`;

const executor = new LocalExecutor();

describe('hostile tests that forge their own score (local executor)', function () {
  this.timeout(600_000);

  async function attack(ctx: Mocha.Context, language: LanguageId, code: string): Promise<Evaluation> {
    const missing = TOOLS_OF[language].filter((t) => !hasTool(t, t === 'go' ? ['version'] : ['--version']));
    if (missing.length) skipBecause(ctx, `${missing.join(', ')} not installed here`);
    if (!executor.isolated) skipBecause(ctx, 'bubblewrap is not installed: the local executor cannot isolate (apt-get install bubblewrap)');
    const repo = fixture(FIXTURE_OF[language]);
    const before = treeDigest(repo);
    const e = await evaluateTest(await fixtureTask(language), language, code, { executor, repoDir: repo, timeouts: { testMs: 120_000 } });
    const why = `\n${e.phases.map((p) => `$ ${p.argv.join(' ')} -> ${p.exitCode}\n${p.output.slice(-1500)}`).join('\n')}\nscore: ${JSON.stringify(e.score)}`;
    assert.equal(treeDigest(repo), before, "the user's tree is unchanged");
    assert.equal(e.score.compiled, true, 'the attack compiles (else it proves nothing)' + why);
    assert.equal(e.score.passed, false, 'a forged pass is no pass' + why);
    assert.equal(e.score.failure?.category, 'tampering', 'the category says tampering' + why);
    assert.equal(e.score.coverageRatio, 0, 'a tampering slot has no coverage' + why);
    assert.deepEqual(e.score.coverage.covered, [], 'no covered focal line' + why);
    assert.match(e.score.reason ?? '', /^the test tampered with the harness: /, 'the reason says what happened' + why);
    if (process.env.XRT_SHOW_REASONS) process.stdout.write(`      ${e.score.failure?.rule}: ${e.score.reason}\n`);
    return e;
  }

  it('Go: TestMain never runs the tests, forges the cover profile and a PASS line, exits 0', async function () {
    const e = await attack(this, 'go', GO_FAKE_MAIN);
    assert.match(e.score.reason!, /TestMain never calls m\.Run/);
  });

  it('Go: TestMain silences m.Run, forges the profile and a PASS for a test that does not exist, exits 0', async function () {
    const e = await attack(this, 'go', GO_SILENCED_RUN);
    assert.match(e.score.reason!, /TestEverything|os\.Exit|cover profile/);
  });

  it("Rust: a failing test prints libtest's 'test result: ok' and calls process::exit(0)", async function () {
    const e = await attack(this, 'rust', RUST_FAKE_PASS);
    assert.match(e.score.reason!, /process::exit|test result/);
  });

  it('PHP: a failing test rewrites junit.xml and clover.xml in a shutdown function, then exit(0)', async function () {
    const e = await attack(this, 'php', PHP_SHUTDOWN);
    assert.match(e.score.reason!, /register_shutdown_function|exit|PHPUnit/);
  });

  it('Ruby: a failing spec rewrites the rspec JSON and coverage JSON in at_exit, then exit!(0)', async function () {
    const e = await attack(this, 'ruby', RUBY_AT_EXIT);
    assert.match(e.score.reason!, /at_exit|exit!|RSpec/);
  });

  it('Go: TestMain runs the failing tests, then exits 0 whatever they said (no sign in the code)', async function () {
    const e = await attack(this, 'go', GO_ZEROED_STATUS);
    assert.equal(e.score.failure?.rule, 'exit-status');
    assert.match(e.score.reason!, /exited with status 0 although its report has 1 failing test/);
  });

  it('Ruby: the at_exit forgery with every telling name built at run time (no sign in the code)', async function () {
    const e = await attack(this, 'ruby', RUBY_OBFUSCATED);
    assert.equal(e.score.failure?.rule, 'ruby-report-rewritten');
  });

  it('Ruby: a spec that edits the focal method in its copy meets a read-only copy, and fails', async function () {
    // The local test phase mounts the copy read-only (docs/execution.md), so the edit is prevented
    // rather than detected; the detection itself ('focal-edited') is checked without a toolchain below.
    if (!hasTool('ruby')) skipBecause(this, 'ruby is not installed here');
    if (!executor.isolated) skipBecause(this, 'bubblewrap is not installed: the local executor cannot isolate (apt-get install bubblewrap)');
    const task = await fixtureTask('ruby');
    const e = await evaluateTest(task, 'ruby', RUBY_EDITS_FOCAL, { executor, repoDir: fixture(FIXTURE_OF.ruby), timeouts: { testMs: 120_000 } });
    assert.equal(e.score.passed, false);
    assert.match(e.score.reason ?? '', /Read-only file system|tampered/);
  });
});

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

function input(over: Partial<TamperingInput> & Pick<TamperingInput, 'language' | 'testCode'>): TamperingInput {
  return {
    testRan: true,
    testExitCode: 0,
    testOutput: '',
    testOutputTruncated: false,
    report: reportFromCases([]),
    coverage: { executable: [], covered: [] },
    focalAfter: null,
    focalExpected: '',
    ...over,
  };
}

const rules = (f: Finding[]) => f.map((x) => x.rule);

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

  describe('the focal file after the test', () => {
    let dir: string;
    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-focal-'));
      fs.mkdirSync(path.join(dir, 'src'));
      fs.writeFileSync(path.join(dir, 'src', 'a.rb'), 'def a; end\n');
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
    const focal = () => path.join(dir, 'src', 'a.rb');

    it('unchanged: nothing; edited: tampering', async () => {
      const same = await detectTampering(input({ language: 'ruby', testCode: '', testExitCode: 1, focalAfter: readFocalAfterTest(dir, focal()), focalExpected: 'def a; end\n' }));
      assert.deepEqual(rules(same), []);
      fs.writeFileSync(focal(), 'def a; 1; end\n');
      const edited = await detectTampering(input({ language: 'ruby', testCode: '', testExitCode: 1, focalAfter: readFocalAfterTest(dir, focal()), focalExpected: 'def a; end\n' }));
      assert.deepEqual(rules(edited), ['focal-edited']);
    });

    it('a link (to an identical copy), a FIFO, or a linked folder above it is never followed', function () {
      const copy = path.join(dir, 'copy.rb');
      fs.copyFileSync(focal(), copy);
      fs.rmSync(focal());
      fs.symlinkSync(copy, focal());
      assert.match((readFocalAfterTest(dir, focal()) as { problem: string }).problem, /symbolic link/);
      fs.rmSync(focal());
      if (spawnSync('mkfifo', [focal()]).status !== 0) skipBecause(this, 'mkfifo is not available');
      assert.match((readFocalAfterTest(dir, focal()) as { problem: string }).problem, /not a regular file/);
      fs.rmSync(focal());
      fs.renameSync(path.join(dir, 'src'), path.join(dir, 'real'));
      fs.writeFileSync(path.join(dir, 'real', 'a.rb'), 'def a; end\n');
      fs.symlinkSync(path.join(dir, 'real'), path.join(dir, 'src'));
      assert.match((readFocalAfterTest(dir, focal()) as { problem: string }).problem, /replaced: .*src/);
    });
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
