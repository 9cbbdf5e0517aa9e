import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { goStatementStarts } from '../../src/engine/languages/go/statement-lines';
import { goCoverBlocks, blockHolds, parseGoCoverProfile } from '../../src/engine/score/coverage/go-cover';
import { focalCoverage } from '../../src/engine/score/coverage/focal';
import { goNativeLines } from '../helpers/go-cover-lines';
import { hasTool, skipBecause } from '../helpers/skip';

/**
 * Go focal coverage counts statement lines only (METRICS.md; issue 12 item 6): a line is executable
 * when a statement `go test -cover` counts starts on it, covered when a block that ran holds one.
 * Checked against a real profile of a file that has every construct where a block's lines and its
 * statements' lines differ, and against Go's own parser (test/helpers/go-cover-lines, go/ast).
 */

// Line numbers matter below: keep the text as it is (not gofmt-ed on purpose: the lone `;` and the
// one-line `if … else if` are what a plain reading of the blocks gets wrong).
const EDGE = `package edge

import "fmt"

// Classify walks every construct whose lines go test -cover counts differently from a plain reading.
func Classify(x int, ch chan int) (r string) {
	// a comment inside the body

	if y := x; y > 100 { return "big" } else if x < -100 {
		r = "small"
	} else {
		r = "mid"
	}
Loop:
	for i := 0; i < 3; i++ {
		switch i {
		case 1:
			continue Loop
		case 2:
		default:
			r += "."
		}
	}
	{
		r += "!"
	}
	;
	s := "héllo"; r += fmt.Sprint(len(s))
	select {
	case v := <-ch:
		r += fmt.Sprint(v)
	default:
	}
	defer func() {
		r += "d"
	}()
	r += fmt.Sprintf("%d",
		x)
	goto End
End:
	return
}
`;

const EDGE_TEST = `package edge

import "testing"

func TestClassify(t *testing.T) {
	if got := Classify(5, make(chan int)); got == "" {
		t.Fatal("empty")
	}
}
`;

const IMPORT = 'example.com/edge/edge.go';

describe('Go coverage: statement lines only', function () {
  this.timeout(300_000);
  let dir = '';
  let profile = '';

  before(function () {
    if (!hasTool('go', ['version'])) skipBecause(this, 'go not installed here');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-gocov-'));
    fs.writeFileSync(path.join(dir, 'go.mod'), 'module example.com/edge\n\ngo 1.22\n');
    fs.writeFileSync(path.join(dir, 'edge.go'), EDGE);
    fs.writeFileSync(path.join(dir, 'edge_test.go'), EDGE_TEST);
    const r = spawnSync('go', ['test', '-count=1', '-covermode=count', '-coverprofile=cover.out', '.'], {
      cwd: dir,
      env: { ...process.env, GOFLAGS: '-mod=mod', GOPROXY: 'off', GOTOOLCHAIN: 'local' },
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    profile = fs.readFileSync(path.join(dir, 'cover.out'), 'utf8');
  });

  after(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('marks the lines where counted statements start, and only those', async () => {
    const cov = focalCoverage(parseGoCoverProfile(profile, IMPORT, await goStatementStarts(EDGE)), 6, 42);
    // Not executable: the signature (6), comments and blank lines (7, 8), `} else {` and closing
    // braces, the labels (14, 40), case/default lines (17, 19, 20, 30, 32), the bare block's braces
    // (24, 26), the lone `;` (27), the continuation of a call (38).
    assert.deepEqual(cov.executable, [9, 10, 12, 15, 16, 18, 21, 25, 28, 29, 31, 34, 35, 37, 39, 41]);
    // The `x < -100` branch (10) and the channel receive (31) did not run; line 9 holds the `if` that
    // ran and a `return "big"` that did not: a line is covered when any of its statements ran.
    assert.deepEqual(cov.covered, [9, 12, 15, 16, 18, 21, 25, 28, 29, 34, 35, 37, 39, 41]);
  });

  it("finds the same statements as Go's own parser, columns in bytes as go/token counts them", async () => {
    const native = goNativeLines(path.join(dir, 'cover.out'), path.join(dir, 'edge.go'), IMPORT);
    const ours = (await goStatementStarts(EDGE))!.map((s) => `${s.line}.${s.column}`);
    assert.deepEqual(ours, native.starts);
    assert.ok(native.starts.includes('28.17'), 'the statement after "héllo" starts at byte column 17 (UTF-16 column 16)');
    const cov = focalCoverage(parseGoCoverProfile(profile, IMPORT, await goStatementStarts(EDGE)), 1, 1 << 30);
    assert.deepEqual(cov, { executable: native.executable, covered: native.covered });
  });

  it("holds, block by block, as many statements as cover counted (except the lone `;`, which is no line's)", async () => {
    const starts = (await goStatementStarts(EDGE))!;
    const off: string[] = [];
    for (const b of goCoverBlocks(profile, IMPORT)) {
      const held = starts.filter((s) => blockHolds(b, s)).length;
      if (held !== b.statements) off.push(`${b.fromLine}.${b.fromColumn},${b.toLine}.${b.toColumn}: ${held} vs ${b.statements}`);
    }
    assert.deepEqual(off, ['27.2,29.9: 3 vs 4']);
  });

  it('is smaller than the older every-line-of-a-block count, which took braces, comments and the signature', async () => {
    const older = focalCoverage(parseGoCoverProfile(profile, IMPORT, null), 6, 42);
    const now = focalCoverage(parseGoCoverProfile(profile, IMPORT, await goStatementStarts(EDGE)), 6, 42);
    for (const line of [6, 7, 8, 11, 13, 14, 17, 20, 24, 26, 27, 30, 32, 36, 38]) {
      assert.ok(older.executable.includes(line) && !now.executable.includes(line), `line ${line}`);
    }
    assert.ok(now.executable.every((l) => older.executable.includes(l)));
  });

  it('stays quick and statement-bound on a forged profile (one block over every line, a million blocks)', async () => {
    const starts = await goStatementStarts(EDGE);
    const huge = `mode: count\n${IMPORT}:1.1,9007199254740991.1 1 1\n`;
    assert.deepEqual([...parseGoCoverProfile(huge, IMPORT, starts).keys()], [9, 10, 12, 15, 16, 18, 21, 25, 28, 29, 31, 34, 35, 37, 39, 41]);
    assert.ok(parseGoCoverProfile(huge, IMPORT, null).size <= 1_000_001, 'the fallback walks a bounded number of lines');
    const many = `mode: count\n${`${IMPORT}:9.2,41.8 1 1\n`.repeat(1_000_000)}`;
    assert.equal(parseGoCoverProfile(many, IMPORT, starts).size, 16);
  });
});
