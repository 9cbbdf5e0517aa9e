import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { goTestEvents } from '../../src/engine/languages/go/test-events';
import { goTamperingRules } from '../../src/engine/languages/go/tampering';
import { parseGoTestJson } from '../../src/engine/score/reports/go-test-json';
import { hasTool, skipBecause } from '../helpers/skip';

/**
 * Issue 30: the engine turns a Go test binary's `-test.v=test2json` output into events itself, instead
 * of building cmd/test2json and running it in the sandbox. Real binaries, compiled here, run once each;
 * the same bytes and exit status are given to our converter and to Go's own `go tool test2json`, and
 * the events must be the same (Action, Package, Test, Output; not Time or Elapsed, which are timings).
 */

const PKG = 'example.com/events';

const SOURCE = `package events

func Add(a, b int) int { return a + b }
`;

const TESTS = `package events

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestPass(t *testing.T) {
	t.Log("hello")
	if Add(1, 2) != 3 {
		t.Fatal("bad")
	}
}

func TestFail(t *testing.T) { t.Errorf("got %d, want %d", Add(1, 2), 4) }

func TestSub(t *testing.T) {
	t.Run("ok", func(t *testing.T) { t.Log("in ok") })
	t.Run("bad", func(t *testing.T) {
		t.Run("deep", func(t *testing.T) { t.Error("deep fail") })
	})
	t.Run("skip", func(t *testing.T) { t.Skip("not here") })
}

func TestParallel(t *testing.T) {
	for _, n := range []string{"a", "b", "c"} {
		t.Run(n, func(t *testing.T) {
			t.Parallel()
			t.Log("sub", n)
		})
	}
}

func TestTopParallel(t *testing.T) {
	t.Parallel()
	fmt.Println("top parallel")
}

func TestSkip(t *testing.T) { t.Skip("skipped") }

// Prints a framing line for another test, unmarked and marked, and a partial line.
func TestForge(t *testing.T) {
	fmt.Println("--- PASS: TestOther (0.00s)")
	fmt.Println("\\x16--- PASS: TestOther (0.00s)")
	fmt.Fprintln(os.Stderr, "to stderr")
	fmt.Print("no newline")
}

func TestOther(t *testing.T) { t.Error("other fails") }

// A long line, invalid UTF-8, a \\x16 in the middle of a line, output with no newline at the end.
func TestOdd(t *testing.T) {
	fmt.Println(strings.Repeat("x", 10000))
	fmt.Println(strings.Repeat("é", 3000))
	os.Stdout.Write([]byte{'b', 'a', 'd', 0xff, 0xfe, '\\n'})
	fmt.Print("before\\x16after\\n")
	fmt.Print("    indented, as a subtest's\\n")
}

func TestPanic(t *testing.T) {
	t.Run("inner", func(t *testing.T) { panic("boom") })
}

func TestExit(t *testing.T) { os.Exit(1) }

func TestLast(t *testing.T) { fmt.Print("the end, no newline") }

func ExampleAdd() {
	fmt.Println(Add(1, 2))
	// Output: 3
}
`;

interface Run {
  name: string;
  run: string;
  /** The binary's status: 0 passed, 1 a test failed or exited, 2 a panic. */
  exit: number;
}

const RUNS: Run[] = [
  { name: 'passing tests and an example', run: '^(TestPass|ExampleAdd)$', exit: 0 },
  { name: 'failing, subtests, parallel tests, skips, a forger, odd output', run: '^(TestPass|TestFail|TestSub|TestParallel|TestTopParallel|TestSkip|TestForge|TestOther|TestOdd|ExampleAdd)$', exit: 1 },
  { name: 'a panic in a subtest', run: '^(TestPass|TestPanic)$', exit: 2 },
  { name: 'os.Exit(1) inside a test', run: '^(TestPass|TestExit)$', exit: 1 },
  { name: 'a last test that prints no newline', run: '^TestLast$', exit: 0 },
];

interface Event {
  Action?: string;
  Package?: string;
  Test?: string;
  Output?: string;
}

/** The fields compared; invalid UTF-8 is replaced per byte by Go and per sequence by Node: runs of U+FFFD are one. */
function comparable(text: string): string[] {
  return text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Event)
    .map((e) => JSON.stringify([e.Action, e.Package, e.Test ?? '', e.Output?.replace(/\uFFFD+/g, '\uFFFD')]));
}

describe('Go test events: the engine\'s converter against `go tool test2json` on real test binaries', function () {
  this.timeout(600_000);
  let dir: string;
  const env = { ...process.env, GOFLAGS: '-mod=mod', GOPROXY: 'off', GOTOOLCHAIN: 'local', CGO_ENABLED: '0' };
  const raws = new Map<string, { bytes: Buffer; status: number }>();

  before(function () {
    if (!hasTool('go', ['version'])) skipBecause(this, 'go is not installed here');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-go-events-'));
    fs.writeFileSync(path.join(dir, 'go.mod'), `module ${PKG}\n\ngo 1.21\n`);
    fs.writeFileSync(path.join(dir, 'events.go'), SOURCE);
    fs.writeFileSync(path.join(dir, 'events_test.go'), TESTS);
    const built = spawnSync('go', ['test', '-c', '-cover', '-covermode=count', '-o', 'pkg.test', '.'], { cwd: dir, env, encoding: 'utf8' });
    assert.equal(built.status, 0, built.stderr);
    // test2json itself: built into the Go cache on first use (Go >= 1.25 ships none).
    const tool = spawnSync('go', ['tool', 'test2json', '-p', PKG, 'true'], { cwd: dir, env, encoding: 'utf8' });
    if (tool.status !== 0) skipBecause(this, `go tool test2json does not run here: ${tool.stderr.trim()}`);
    for (const r of RUNS) {
      // As the engine's test phase runs it: stdout and stderr in one pipe.
      const ran = spawnSync('sh', ['-c', '"$@" 2>&1', 'run', './pkg.test', '-test.v=test2json', '-test.paniconexit0', '-test.count=1', '-test.run', r.run, `-test.coverprofile=${path.join(dir, 'cover.out')}`], { cwd: dir, env });
      raws.set(r.name, { bytes: ran.stdout, status: ran.status ?? -1 });
    }
  });
  after(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Go's own events for the same bytes and status: test2json running a command that prints them. */
  function test2json(name: string): string {
    const raw = raws.get(name)!;
    const file = path.join(dir, 'raw.out');
    fs.writeFileSync(file, raw.bytes);
    const r = spawnSync('go', ['tool', 'test2json', '-p', PKG, 'sh', '-c', `cat "$0"; exit ${raw.status}`, file], { cwd: dir, env, encoding: 'utf8' });
    return r.stdout;
  }

  for (const r of RUNS) {
    it(`the same events: ${r.name}`, () => {
      const raw = raws.get(r.name)!;
      assert.equal(raw.status, r.exit, `the binary's status (its output: ${raw.bytes.toString('utf8').slice(-500)})`);
      const ours = goTestEvents(raw.bytes.toString('utf8'), { package: PKG, exitCode: raw.status, maxBytes: 16 * 1024 ** 2 });
      assert.equal(ours.truncated, false);
      const theirs = test2json(r.name);
      assert.deepEqual(comparable(ours.text), comparable(theirs));
      // And so the same report.
      assert.deepEqual(parseGoTestJson(ours.text), parseGoTestJson(theirs));
    });
  }

  it('the forger\'s marked PASS for TestOther, read as a result by both, is a second result: tampering', () => {
    const raw = raws.get(RUNS[1].name)!;
    const ours = goTestEvents(raw.bytes.toString('utf8'), { package: PKG, exitCode: raw.status, maxBytes: 16 * 1024 ** 2 });
    const report = parseGoTestJson(ours.text);
    assert.equal(report.cases.find((c) => c.name === 'TestOther')?.status, 'failed', 'the real result came last');
    const finding = goTamperingRules.outputDisagrees!(ours.text, report, false);
    assert.equal(finding?.rule, 'go-forged-framing');
    assert.match(finding!.says, /TestOther/);
  });

  it('honest runs (passing, a panic, an exit) are not called tampering', () => {
    for (const r of [RUNS[0], RUNS[2], RUNS[3], RUNS[4]]) {
      const raw = raws.get(r.name)!;
      const ours = goTestEvents(raw.bytes.toString('utf8'), { package: PKG, exitCode: raw.status, maxBytes: 16 * 1024 ** 2 });
      assert.equal(goTamperingRules.outputDisagrees!(ours.text, parseGoTestJson(ours.text), false), null, r.name);
    }
  });
});
