import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { evaluateTest, type Evaluation } from '../../src/engine/execute/evaluate';
import { LocalExecutor } from '../../src/engine/execute/local';
import { fixtureTask, treeDigest } from '../helpers/evaluate';
import { fixture } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';

/**
 * Go placement on real packages (issue 12): a generated test named like one of the package's tests
 * (models write Test<Function>, and so do people) and using the package's own test helpers must
 * compile and score as it would natively; the package's tests are never set aside for our name.
 */

const executor = new LocalExecutor();

/** The fixture package copied to a temp folder, with extra files; removed by the caller. */
function packageCopy(extra: Record<string, string> = {}): string {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-gofid-'));
  const repo = path.join(base, 'inventory-go');
  fs.cpSync(fixture('inventory-go'), repo, { recursive: true });
  for (const [rel, text] of Object.entries(extra)) {
    fs.mkdirSync(path.dirname(path.join(repo, rel)), { recursive: true });
    fs.writeFileSync(path.join(repo, rel), text);
  }
  return repo;
}

function asideFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory() && !e.isSymbolicLink()) walk(p);
      else if (e.name.endsWith('.xrt-aside')) out.push(e.name);
    }
  };
  walk(dir);
  return out.sort();
}

function why(e: Evaluation): string {
  return `\n${e.phases.map((p) => `$ ${p.argv.join(' ')} -> ${p.exitCode}\n${p.output.slice(-1500)}`).join('\n')}`;
}

async function run(repo: string, code: string): Promise<{ e: Evaluation; aside: string[] }> {
  const task = { ...(await fixtureTask('go')) };
  const e = await evaluateTest(task, 'go', code, { executor, repoDir: repo, keepSandbox: true });
  try {
    return { e, aside: e.sandboxDir ? asideFiles(e.sandboxDir) : [] };
  } finally {
    if (e.sandboxDir) fs.rmSync(e.sandboxDir, { recursive: true, force: true });
  }
}

// Named like the package's TestStatus, and building its Item through the package's test helper.
const USES_HELPER = `package inventory

import "testing"

func TestStatus(t *testing.T) {
	inv := newTestInventory()
	milk, ok := inv.Lookup("DR-7")
	if !ok {
		t.Fatal("the helper's inventory has no DR-7")
	}
	if got := milk.Status(10); got != "expiring" {
		t.Errorf("Status(10) = %q, want expiring", got)
	}
	if got := (Item{Quantity: 0}).Status(0); got != "out-of-stock" {
		t.Errorf("Status(0) = %q, want out-of-stock", got)
	}
}
`;

// Redeclares the package's test helper too (with its own meaning), and one assertion is wrong on purpose.
const REDECLARES_HELPER = `package inventory

import "testing"

func newTestInventory() *Inventory {
	inv := New()
	inv.Add(Item{SKU: "ZZ-1", Name: "Ours", Quantity: 1, Expires: 5})
	return inv
}

func TestStatus(t *testing.T) {
	inv := newTestInventory()
	it, ok := inv.Lookup("ZZ-1")
	if !ok {
		t.Fatal("our helper's inventory has no ZZ-1")
	}
	if got := it.Status(1); got != "ok" {
		t.Errorf("Status(1) = %q, want ok", got)
	}
}

func TestStatusExpired(t *testing.T) {
	it, _ := newTestInventory().Lookup("ZZ-1")
	if got := it.Status(9); got != "expired" {
		t.Errorf("Status(9) = %q, want expired", got)
	}
}
`;

describe('Go fidelity: our test next to the package\'s own tests (local executor, real go)', function () {
  this.timeout(600_000);
  let repo = '';
  beforeEach(function () {
    if (!hasTool('go', ['version'])) skipBecause(this, 'go not installed here');
  });
  afterEach(() => {
    if (repo) fs.rmSync(path.dirname(repo), { recursive: true, force: true });
    repo = '';
  });

  it("a test named like the package's TestStatus that uses the package's helper compiles and passes under a new name", async () => {
    repo = packageCopy();
    const before = treeDigest(repo);
    const { e, aside } = await run(repo, USES_HELPER);
    assert.equal(e.score.compiled, true, 'compiled' + why(e));
    assert.equal(e.score.passed, true, 'passed' + why(e));
    assert.equal(e.score.failure, null);
    assert.deepEqual(aside, [], "none of the package's test files set aside");
    assert.equal(treeDigest(repo), before, 'the checkout is untouched');
    assert.ok(e.placement?.notes.some((n) => /TestStatus -> TestStatus_xrt1/.test(n) && /untouched/.test(n)), e.placement?.notes.join('\n'));
    assert.deepEqual(e.phases.map((p) => p.phase).filter((p) => p.startsWith('compile')), ['compile'], 'renamed at placement: no failed compile first');
    const test = e.phases.find((p) => p.phase === 'test')!;
    assert.ok(test.argv.includes('^(TestStatus_xrt1)$'), `runs ours by its new name: ${test.argv.join(' ')}`);
    assert.deepEqual(e.testReport.cases.map((c) => c.name), ['TestStatus'], 'reported under the name the test gave');
    assert.ok(e.score.coverage.covered.length > 0, 'covers the focal function');
  });

  it('a test that also redeclares the package\'s helper: both renamed in our file, and ours is the one the test uses', async () => {
    repo = packageCopy();
    const { e, aside } = await run(repo, REDECLARES_HELPER);
    assert.equal(e.score.compiled, true, 'compiled' + why(e));
    assert.deepEqual(aside, []);
    const note = e.placement?.notes.join('\n') ?? '';
    assert.match(note, /TestStatus -> TestStatus_xrt1/);
    assert.match(note, /newTestInventory -> newTestInventory_xrt1/);
    assert.doesNotMatch(note, /TestStatusExpired ->/, 'a name the package does not declare keeps its name');
    // ZZ-1 exists only in our helper: had the package's helper been used, Lookup would fail.
    const byName = Object.fromEntries(e.testReport.cases.map((c) => [c.name, c.status]));
    assert.deepEqual(Object.keys(byName).sort(), ['TestStatus', 'TestStatusExpired']);
    assert.equal(byName.TestStatusExpired, 'passed');
    assert.equal(byName.TestStatus, 'passed', why(e));
    assert.equal(e.score.passed, true);
    assert.equal(e.score.failure, null, 'no tampering finding for the renamed names');
  });

  it('a renamed test that fails is scored as a failing test, not as tampering', async () => {
    repo = packageCopy();
    const wrong = USES_HELPER.replace('got != "expiring"', 'got != "ok"');
    const { e } = await run(repo, wrong);
    assert.equal(e.score.compiled, true, why(e));
    assert.equal(e.score.passed, false);
    assert.equal(e.score.failure?.category, 'logic-assertion', `rule ${e.score.failure?.rule}`);
    assert.deepEqual(e.testReport.cases.map((c) => [c.name, c.status]), [['TestStatus', 'failed']]);
  });

  it('a broken existing test file unrelated to ours: only that file is set aside, the helper file stays', async () => {
    repo = packageCopy({ 'stale_test.go': 'package inventory\n\nimport "testing"\n\nfunc TestStale(t *testing.T) {\n\tremovedLongAgo(t)\n}\n' });
    const before = treeDigest(repo);
    // Collides on TestStatus too: renamed in ours at placement (the package's names are known before
    // the compile), then the one repair round sets the stale file aside.
    const { e, aside } = await run(repo, USES_HELPER);
    assert.equal(e.score.compiled, true, 'compiled' + why(e));
    assert.equal(e.score.passed, true, why(e));
    assert.deepEqual(aside, ['stale_test.go.xrt-aside'], 'only the broken file');
    assert.equal(treeDigest(repo), before, 'the checkout is untouched');
    const notes = e.placement?.notes ?? [];
    assert.ok(notes.some((n) => /TestStatus -> TestStatus_xrt1/.test(n)), notes.join('\n'));
    assert.ok(notes.some((n) => /stale_test\.go/.test(n) && /set aside/.test(n) && !/inventory_test\.go/.test(n)), notes.join('\n'));
    assert.equal(e.phases.filter((p) => p.phase === 'compile-retry').length, 1, 'one round: the collision never reached the compiler');
  });

  it('a test that does not compile on its own still fails to compile after the rounds (no endless repair)', async () => {
    repo = packageCopy();
    const broken = USES_HELPER.replace('inv.Lookup("DR-7")', 'inv.LookupMissing("DR-7")');
    const { e, aside } = await run(repo, broken);
    assert.equal(e.score.compiled, false);
    assert.deepEqual(aside, [], "the package's tests are not blamed for our error");
    assert.ok(e.phases.filter((p) => p.phase === 'compile-retry').length <= 4);
  });
});
