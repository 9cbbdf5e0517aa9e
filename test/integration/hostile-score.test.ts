import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { evaluateTest, type Evaluation } from '../../src/engine/execute/evaluate';
import { DockerExecutor } from '../../src/engine/execute/docker';
import { LocalExecutor } from '../../src/engine/execute/local';
import type { LanguageId } from '../../src/engine/parse/grammars';
import { detectTampering, readFocalAfterTest } from '../../src/engine/score/tampering';
import { FIXTURE_OF, TOOLS_OF, fixtureTask, treeDigest } from '../helpers/evaluate';
import { fixture } from '../helpers/paths';
import { engineForTests, languageImageForTests, stopTestEngine } from '../helpers/engine';
import { hasTool, skipBecause } from '../helpers/skip';
import { input, rules } from '../helpers/tampering-input';

/**
 * Generated tests that try to forge their own score: each one fails for real, then rewrites the
 * runner's report or coverage file, prints the runner's framing, or exits early with status 0. Each
 * must be scored as failed, category 'tampering', with a reason a person can read. The paths they
 * write come from what any test can see (its argv, /proc/self/cmdline, the environment, reflection).
 */

// Go: a failing test, and the imports the attacks around it use.
const GO_FAILING_TEST = `package inventory

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
`;

// Go: TestMain never runs the tests. It rewrites the cover profile named on its command line to
// cover every line of item.go, prints the framing `go test` prints for a passing test, and exits 0.
const GO_FAKE_MAIN = `${GO_FAILING_TEST}
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

// Go (issue 31): an honest, passing test that covers a third of Status; TestMain runs it, then finds
// the cover profile through the flag package (its name built at run time: no sign in the code) and
// marks every block of it as run before passing m.Run's own status on. The profile is written by
// the testing package before m.Run returns, so the rewrite is the last word on the file.
const GO_PROFILE_AFTER_RUN = `package inventory

import (
	"flag"
	"os"
	"strings"
	"testing"
)

func TestStatusExpired(t *testing.T) {
	if got := (Item{Quantity: 5, Expires: 3}).Status(10); got != "expired" {
		t.Errorf("Status() = %q, want %q", got, "expired")
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if f := flag.Lookup("test." + "cover" + "pro" + "file"); f != nil && f.Value.String() != "" {
		p := f.Value.String()
		if b, err := os.ReadFile(p); err == nil {
			lines := strings.Split(string(b), "\\n")
			for i, l := range lines {
				if j := strings.LastIndex(l, " "); i > 0 && j > 0 && l[j+1:] == "0" {
					lines[i] = l[:j+1] + "1"
				}
			}
			os.WriteFile(p, []byte(strings.Join(lines, "\\n")), 0o644)
		}
	}
	os.Exit(code)
}
`;

// PHP (issue 31): an honest, passing test of slugify whose helper object, kept alive in a static
// property, rewrites the Clover file from its destructor at shutdown (after PHPUnit wrote it), every
// line marked as run. Every telling name is built at run time: no sign in the code.
const PHP_DESTRUCT = `<?php

declare(strict_types=1);

namespace Textkit\\Tests;

use PHPUnit\\Framework\\TestCase;
use Textkit\\Slugger;

final class SluggerTest extends TestCase
{
    public function testSlugifyShort(): void
    {
        Keeper::$kept = new Keeper();
        $this->assertSame('a', (new Slugger())->slugify('a'));
    }
}

final class Keeper
{
    public static ?Keeper $kept = null;

    public function __destruct()
    {
        $args = $_SERVER['arg' . 'v'];
        $flag = '--' . 'cove' . 'rage-' . 'clo' . 'ver';
        $i = array_search($flag, $args, true);
        if ($i === false) {
            return;
        }
        $file = $args[$i + 1];
        $xml = (string) file_get_contents($file);
        file_put_contents($file, str_replace('count="0"', 'count="1"', $xml));
    }
}
`;

// Ruby (issue 31): an honest, passing spec of search (an empty query) that registers a finalizer on
// an object kept to the end; finalizers run after every at_exit, so it rewrites the engine's
// coverage file after the engine wrote it, every line of the file marked as run. Every telling name
// is built at run time: no sign in the code.
const RUBY_FINALIZER = `RSpec.describe Bookshelf::Catalog do
  it 'finds nothing for an empty query' do
    expect(Bookshelf::Catalog.new([]).search('').size).to eq(0)
  end
end

$kept = Object.new
ObjectSpace.public_send(('define_' + 'finalizer').to_sym, $kept, proc do
  require 'json'
  out = ENV.fetch(%w[XRT COVERAGE OUT].join('_'))
  data = JSON.parse(File.read(out))
  data.each_value { |v| v['lines'] = v['lines'].map { |n| n.nil? ? nil : 1 } }
  File.write(out, JSON.generate(data))
end)
`;

// PHP (found by a red-team helper): a callback output buffer opened when the test file loads runs
// when PHP flushes it at the very end, after the destructors: it rewrites the Clover file and the
// summary PHPUnit 9 printed to stdout with `print`. The summary now goes to stderr, out of its reach.
const PHP_OUTPUT_BUFFER = `<?php

declare(strict_types=1);

namespace Textkit\\Tests;

use PHPUnit\\Framework\\TestCase;
use Textkit\\Slugger;

final class SluggerTest extends TestCase
{
    public function testSlugifyShort(): void
    {
        $this->assertSame('a', (new Slugger())->slugify('a'));
    }
}

\\ob_start(static function (string $out): string {
    $args = $_SERVER['arg' . 'v'];
    $i = \\array_search('--' . 'cove' . 'rage-' . 'clo' . 'ver', $args, true);
    if ($i !== false) {
        $f = $args[$i + 1];
        \\file_put_contents($f, \\str_replace('count="0"', 'count="1"', (string) \\file_get_contents($f)));
    }
    return (string) \\preg_replace('/Lines:(\\s+)[\\d.]+%(\\s+)\\(\\s*\\d+\\/\\s*(\\d+)\\)/', 'Lines:\${1}100.00%\${2}(\${3}/\${3})', $out);
});
`;

// Ruby, honest (a false verdict found by a red-team helper): a spec whose example forks a worker. The
// child inherited the engine's at_exit and wrote and summed its own coverage file after the parent's.
// (The child's own coverage is not counted: the spec calls search in the parent too.)
const RUBY_FORKS = `RSpec.describe Bookshelf::Catalog do
  it 'finds nothing for an empty query, also in a forked worker' do
    r, w = IO.pipe
    pid = fork { r.close; w.write(Bookshelf::Catalog.new([]).search('').size.to_s); w.close }
    w.close
    Process.wait(pid)
    expect(r.read).to eq('0')
    expect(Bookshelf::Catalog.new([]).search('').size).to eq(0)
  end
end
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

// Rust: a passing test that runs one path of the focal function, then sets every counter of the
// binary's coverage section to 1 (the linker names its bounds); at exit, the profiling runtime writes
// those counters as the raw profile: every focal line "ran". No file is touched, no telling name.
const RUST_COUNTERS = `#[cfg(test)]
mod tests {
    use super::*;

    extern "C" {
        #[link_name = "__start___llvm_prf_cnts"]
        static mut FIRST: u64;
        #[link_name = "__stop___llvm_prf_cnts"]
        static mut LAST: u64;
    }

    #[test]
    fn scalene() {
        assert_eq!(classify_triangle(3.0, 4.0, 6.0), TriangleKind::Scalene);
        unsafe {
            let mut at = std::ptr::addr_of_mut!(FIRST);
            let end = std::ptr::addr_of_mut!(LAST);
            while at < end {
                *at = 1;
                at = at.add(1);
            }
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

// Go, issue 30: a failing test whose TestMain, after m.Run, prints the testing package's own framing
// for its pass, \x16 marker and all (test2json and the engine's converter both read a marked line as
// the runner's), then the final PASS, and exits 0; every telling name built at run time. The result
// read last was the one that counted: the failing test scored as passed.
const GO_RESULT_AFTER_RUN = `${GO_FAILING_TEST}
func TestMain(m *testing.M) {
	code := m.Run()
	mark, dash := string(rune(22)), strings.Repeat("-", 3)
	fmt.Printf("%s%s %s: TestStatusWrong (0.00s)\\n", mark, dash, "PA"+"SS")
	fmt.Printf("%s%s\\n", mark, "PA"+"SS")
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

// Go, against the test binary run straight under test2json: a failing test prints test2json's own
// events for a pass (stdout and stderr, raw JSON), with every telling name built at run time, and
// keeps the honest exit status. test2json wraps whatever the binary prints into output events.
const GO_RAW_EVENTS = `package inventory

import (
	"fmt"
	"os"
	"testing"
)

func TestStatusWrong(t *testing.T) {
	ev := \`{"Action":"%s","Package":"example.com/inventory","Test":"TestStatusWrong"}\` + "\\n"
	for _, w := range []*os.File{os.Stdout, os.Stderr} {
		fmt.Fprintf(w, ev, "pa"+"ss")
	}
	if got := (Item{Quantity: 5}).Status(10); got != "expired" {
		t.Errorf("Status() = %q, want %q", got, "expired")
	}
	fmt.Fprintf(os.Stdout, ev, "pa"+"ss")
}
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
    // Also a profile no printed coverage line stands behind (the run's own evidence leads the reason).
    assert.match(e.score.reason!, /TestMain never calls m\.Run|go-testmain-no-run/);
  });

  it('Go: TestMain silences m.Run, forges the profile and a PASS for a test that does not exist, exits 0', async function () {
    const e = await attack(this, 'go', GO_SILENCED_RUN);
    assert.match(e.score.reason!, /TestEverything|os\.Exit|cover profile/);
  });

  it('Go: a passing test whose TestMain marks every block of the cover profile as run after m.Run (names built at run time)', async function () {
    const e = await attack(this, 'go', GO_PROFILE_AFTER_RUN);
    assert.match(e.score.reason!, /coverage/);
  });

  it('PHP: a passing test whose object kept in a static property rewrites clover.xml from its destructor (names built at run time)', async function () {
    const e = await attack(this, 'php', PHP_DESTRUCT);
    assert.match(e.score.reason!, /the Clover file says \d+ of \d+ lines ran, but PHPUnit printed/);
  });

  it('Ruby: a passing spec whose finalizer rewrites the coverage file after every at_exit (names built at run time)', async function () {
    const e = await attack(this, 'ruby', RUBY_FINALIZER);
    assert.match(e.score.reason!, /coverage file/);
  });

  it('PHP: a passing test whose output buffer callback rewrites clover.xml and the printed summary at the end (names built at run time)', async function () {
    const e = await attack(this, 'php', PHP_OUTPUT_BUFFER);
    assert.match(e.score.reason!, /the Clover file says \d+ of \d+ lines ran, but PHPUnit printed/);
  });

  it('Ruby, honest: a spec that forks a worker passes, with no tampering verdict', async function () {
    if (!hasTool('ruby', ['--version'])) skipBecause(this, 'ruby not installed here');
    if (!executor.isolated) skipBecause(this, 'bubblewrap is not installed: the local executor cannot isolate (apt-get install bubblewrap)');
    const e = await evaluateTest(await fixtureTask('ruby'), 'ruby', RUBY_FORKS, { executor, repoDir: fixture(FIXTURE_OF.ruby), timeouts: { testMs: 120_000 } });
    assert.equal(e.score.failure, null, JSON.stringify(e.score));
    assert.equal(e.score.passed, true);
    assert.ok(e.score.coverage.covered.length > 0);
  });

  it("Rust: a failing test prints libtest's 'test result: ok' and calls process::exit(0)", async function () {
    const e = await attack(this, 'rust', RUST_FAKE_PASS);
    assert.match(e.score.reason!, /process::exit|test result/);
  });

  it('Rust: a passing test sets every coverage counter of its binary after it ran one path (no file written, no telling name)', async function () {
    const e = await attack(this, 'rust', RUST_COUNTERS);
    assert.match(e.score.reason!, /line tracer/);
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

  it('Go: a failing test prints raw test2json events for its own pass on stdout and stderr: still a failure', async function () {
    if (!hasTool('go', ['version'])) skipBecause(this, 'go not installed here');
    if (!executor.isolated) skipBecause(this, 'bubblewrap is not installed: the local executor cannot isolate (apt-get install bubblewrap)');
    const e = await evaluateTest(await fixtureTask('go'), 'go', GO_RAW_EVENTS, { executor, repoDir: fixture(FIXTURE_OF.go), timeouts: { testMs: 120_000 } });
    const test = e.phases.find((p) => p.phase === 'test');
    assert.equal(e.score.compiled, true);
    assert.equal(e.score.passed, false, 'a printed pass event is no pass');
    assert.deepEqual(e.testReport.cases.map((c) => [c.name, c.status]), [['TestStatusWrong', 'failed']]);
    // Every line the binary printed reached us inside an output event, never as an event of its own.
    const forged = (test?.output ?? '').split('\n').filter((l) => l.startsWith('{"Action":"pass","Package":"example.com/inventory","Test":"TestStatusWrong"}'));
    assert.deepEqual(forged, []);
  });

  it('Go: TestMain prints a marked PASS for a failing test after m.Run, and exits 0 (no sign in the code)', async function () {
    const e = await attack(this, 'go', GO_RESULT_AFTER_RUN);
    assert.equal(e.score.failure?.rule, 'go-forged-framing');
    assert.match(e.score.reason!, /TestStatusWrong/);
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

describe('hostile tests that rewrite the coverage file after the runner wrote it (docker executor)', function () {
  // Issue 31: the same three attacks in the language images (Go 1.24's test2json and testing package,
  // PHPUnit 11.5, the image's Ruby and RSpec), where the file is written inside a container.
  this.timeout(900_000);
  let docker: DockerExecutor | undefined;
  after(async () => {
    await docker?.close();
    await stopTestEngine();
  });
  const cases: Array<[LanguageId, string, RegExp]> = [
    ['go', GO_PROFILE_AFTER_RUN, /the cover profile says .* but the testing package printed/],
    // The image's Go 1.24 binary, its output read by the same converter as on the host (issue 30).
    ['go', GO_RESULT_AFTER_RUN, /second result for TestStatusWrong/],
    ['php', PHP_DESTRUCT, /the Clover file says \d+ of \d+ lines ran, but PHPUnit printed/],
    ['ruby', RUBY_FINALIZER, /coverage file/],
  ];
  for (const [language, code, says] of cases) {
    it(`${language}: scored as tampering, not as the pass with every line covered it claims`, async function () {
      const engine = await engineForTests(this);
      const image = await languageImageForTests(this, language);
      docker ??= await DockerExecutor.create({ engine });
      const e = await evaluateTest(await fixtureTask(language), language, code, { executor: docker, repoDir: fixture(FIXTURE_OF[language]), image, timeouts: { testMs: 120_000 } });
      const why = `\n${e.phases.map((p) => `$ ${p.argv.join(' ')} -> ${p.exitCode}\n${p.output.slice(-1500)}`).join('\n')}\nscore: ${JSON.stringify(e.score)}`;
      assert.equal(e.score.compiled, true, 'the attack compiles' + why);
      assert.equal(e.score.passed, false, 'a forged coverage is no pass' + why);
      assert.equal(e.score.failure?.category, 'tampering', why);
      assert.match(e.score.reason ?? '', says, why);
    });
  }
});

describe('tampering checks (no toolchain)', () => {

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
});
