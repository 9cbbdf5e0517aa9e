import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { forgetWarmOutcomes } from '../../src/engine/execute/warm-environment';
import { evaluateTest, type Evaluation } from '../../src/engine/execute/evaluate';
import { LocalExecutor } from '../../src/engine/execute/local';
import { focalPathInRepo } from '../../src/engine/execute/sandbox';
import { buildReport } from '../../src/engine/report/report';
import { reportHtml } from '../../src/engine/report/html';
import { reportMarkdown } from '../../src/engine/report/markdown';
import { toResultRecord } from '../../src/engine/store/results';
import { summarizeByLanguage } from '../../src/engine/report/summary';
import type { TaskRecord } from '../../src/engine/tasks/record';
import { fixtureTask, generatedTest } from '../helpers/evaluate';
import { CLI, fixture } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';

const executor = new LocalExecutor();

/** A copy of the Go fixture whose own package no longer compiles (a non-test file other than the focal one). */
function brokenGoCopy(task: TaskRecord): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-envverdict-'));
  fs.cpSync(fixture('inventory-go'), dir, { recursive: true });
  const focal = path.basename(focalPathInRepo(task));
  const victim = fs.readdirSync(dir).find((f) => f.endsWith('.go') && !f.endsWith('_test.go') && f !== focal);
  assert.ok(victim, 'a non-test Go file other than the focal one');
  fs.appendFileSync(path.join(dir, victim), '\nfunc brokenOnPurpose() int { return notDeclaredAnywhere() }\n');
  return dir;
}

function cli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the environment verdict: harness failures are not the test\'s', function () {
  this.timeout(600_000);
  let task: TaskRecord;
  let broken: string;

  before(async function () {
    if (!hasTool('go', ['version'])) skipBecause(this, 'go is not installed');
    task = await fixtureTask('go');
    broken = brokenGoCopy(task);
  });
  after(() => {
    if (broken) fs.rmSync(broken, { recursive: true, force: true });
  });

  it('a project whose own package does not build: every slot is environment, with the warm-up reason, out of N', async () => {
    const evaluations: Array<[string, Evaluation]> = [];
    // The key's verdict is kept per process (execute/warm-environment.ts): start from none.
    forgetWarmOutcomes();
    for (const name of ['pass', 'fail', 'nocompile'] as const) {
      evaluations.push([generatedTest('go', name), await evaluateTest(task, 'go', generatedTest('go', name), { executor, repoDir: broken })]);
    }
    for (const [i, [, e]] of evaluations.entries()) {
      assert.equal(e.score.failure?.category, 'environment', JSON.stringify(e.score));
      assert.equal(e.environment?.cause, 'project-does-not-build');
      assert.match(e.score.reason ?? '', /the project itself does not build here \(warm-up exit \d+: .*notDeclaredAnywhere/);
      assert.match(e.score.reason ?? '', /xrepotest doctor --repo/);
      assert.equal(e.score.compiled, false);
      // The test was never placed: only the trusted warm-up ran, once for the key (later slots reuse its verdict).
      assert.deepEqual(e.phases.map((p) => p.phase), i === 0 ? ['warm-up'] : []);
      assert.equal(e.placement, null);
    }
    // The same tests on the untouched fixture score as before: pass passes, fail fails as the test's fault.
    const honest = await evaluateTest(task, 'go', generatedTest('go', 'pass'), { executor, repoDir: fixture('inventory-go') });
    const failing = await evaluateTest(task, 'go', generatedTest('go', 'fail'), { executor, repoDir: fixture('inventory-go') });
    assert.equal(honest.score.passed, true);
    assert.equal(failing.score.failure?.category, 'logic-assertion');

    const records = [...evaluations, [generatedTest('go', 'pass'), honest] as const, [generatedTest('go', 'fail'), failing] as const].map(([code, e], i) =>
      toResultRecord(task, code, i, e),
    );
    const summary = summarizeByLanguage(records);
    // N is the two scored slots: CSR 2/2, TPR 1/2; the three environment slots are counted apart.
    assert.equal(summary.total_slots, 2);
    assert.equal(summary.total_samples, 1, 'one task, as the release counts total_samples (METRICS.md item 11)');
    assert.equal(summary.compiled_rate, 100);
    assert.equal(summary.test_pass_rate, 50);
    assert.equal(summary.environment_samples, 3);
    assert.equal(summary.languages.go.environment_samples, 3);
    assert.equal(summary.environment_reasons.length, 1, 'one cause, one reason');
    assert.equal(summary.environment_reasons[0].cause, 'project-does-not-build');
    assert.equal(summary.environment_reasons[0].count, 3);
    assert.ok(!('environment' in summary.failure_categories), 'environment is no share of N');
    assert.equal(summary.failure_categories['logic-assertion'], 50);

    const report = buildReport(records, { resamples: 200 });
    assert.equal(report.totals.slots, 2);
    assert.equal(report.environment.slots, 3);
    assert.deepEqual(
      report.environment.rows.map((r) => [r.language, r.count, r.of]),
      [['go', 3, 5]],
    );
    const goRow = report.tables.languages.rows.find((r) => r.group.language === 'go');
    assert.equal(goRow?.metrics.csr?.value, 100);
    assert.equal(goRow?.metrics.csr?.n, 2);
    assert.ok(!report.tables.failures.rows.some((r) => r.category === 'environment'));
    assert.match(reportMarkdown(report), /## Environment failures[\s\S]*project-does-not-build/);
    assert.match(reportHtml(report), /id="table-environment"[\s\S]*project-does-not-build/);
  });

  it('a test that fails to compile on the untouched project stays the test\'s failure, whatever its log says', async () => {
    // The compile log is shaped by the test's own code: it must never take the slot out of N.
    const code = `package inventory\n\nimport "testing"\n\nfunc TestStatusEnv(t *testing.T) {\n\t// the project itself does not build here (warm-up exit 1)\n\tthe_project_itself_does_not_build_here_warm_up()\n}\n`;
    const e = await evaluateTest(task, 'go', code, { executor, repoDir: fixture('inventory-go') });
    assert.equal(e.environment, undefined);
    assert.equal(e.score.compiled, false);
    assert.notEqual(e.score.failure?.category, 'environment');
    assert.ok(e.score.failure, 'a category that blames the test');
  });

  it('a checkout that differs from the task is environment, naming the mismatch and the fix', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-envverdict-'));
    try {
      fs.cpSync(fixture('inventory-go'), dir, { recursive: true });
      fs.appendFileSync(path.join(dir, focalPathInRepo(task)), '\n// another commit\n');
      const e = await evaluateTest(task, 'go', generatedTest('go', 'pass'), { executor, repoDir: dir });
      assert.equal(e.score.failure?.category, 'environment');
      assert.equal(e.environment?.cause, 'checkout-mismatch');
      assert.match(e.score.reason ?? '', /differs from the task.*check out the commit/);
      assert.equal(e.phases.length, 0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a toolchain the executor lacks is environment, naming what to install', async function () {
    if (hasTool('julia')) skipBecause(this, 'julia is installed here: no missing toolchain to observe');
    const julia = await fixtureTask('julia');
    const e = await evaluateTest(julia, 'julia', generatedTest('julia', 'pass'), { executor, repoDir: fixture('MiniStats.jl') });
    assert.equal(e.score.failure?.category, 'environment');
    assert.equal(e.environment?.cause, 'toolchain-missing');
    assert.match(e.score.reason ?? '', /julia is not installed/);
  });

  describe('xrepotest doctor --repo', () => {
    before(function () {
      if (!fs.existsSync(CLI)) skipBecause(this, 'dist/cli.js is not built (npm run build)');
    });

    it('exits 1 on the broken copy, naming the problem and the fix', () => {
      const r = cli(['doctor', '--repo', broken, '--executor', 'local']);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stdout, /\[project-does-not-build\] the project itself does not build here \(exit \d+: .*notDeclaredAnywhere/);
      assert.match(r.stdout, /go build \.\/\.\.\./);
    });

    it('exits 0 on the untouched fixture', () => {
      const r = cli(['doctor', '--repo', fixture('inventory-go')]);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.match(r.stdout, /no problems/);
    });

    it('exits 1 on a folder with no known language, and says to name one', () => {
      const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-envverdict-'));
      try {
        const r = cli(['doctor', '--repo', empty, '--json']);
        assert.equal(r.code, 1);
        const parsed = JSON.parse(r.stdout) as { problems: Array<{ cause: string }> };
        assert.deepEqual(parsed.problems.map((p) => p.cause), ['no-language']);
      } finally {
        fs.rmSync(empty, { recursive: true, force: true });
      }
    });
  });
});
