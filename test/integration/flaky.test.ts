import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LocalExecutor } from '../../src/engine/execute/local';
import type { PhaseCommand, Session } from '../../src/engine/execute/types';
import { scoreTest } from '../../src/engine/task/run-task-step';
import type { LanguageId } from '../../src/engine/parse/grammars';
import { FIXTURE_OF, TOOLS_OF, fixtureTask, generatedTest } from '../helpers/evaluate';
import { CLI, fixture } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';

/**
 * Flaky detection (`--reruns k`) with real runs of the fixtures. A flaky test needs something that
 * differs from run to run; here one session's test phase is changed (`change`), the others not. The
 * executor is the real local one, only watched. The causes used: the time zone (one session gets TZ
 * five hours east of UTC, the Ruby spec expects UTC) and the machine (one session's test phase runs on
 * one CPU, `taskset -c 0`; the Go, Rust and PHP tests expect the machine's two).
 */
class OneSessionDiffers extends LocalExecutor {
  sessions = 0;
  constructor(
    private readonly changeOn: number,
    private readonly change: (cmd: PhaseCommand) => PhaseCommand,
  ) {
    super();
  }
  override async open(spec: Parameters<LocalExecutor['open']>[0]): Promise<Session> {
    const s = await super.open(spec);
    const run = this.sessions++;
    const inner = s.run.bind(s);
    s.run = (cmd: PhaseCommand, signal?: AbortSignal) => inner(cmd.phase === 'test' && run === this.changeOn ? this.change(cmd) : cmd, signal);
    return s;
  }
}

const fiveHoursEast = (cmd: PhaseCommand): PhaseCommand => ({ ...cmd, env: { ...cmd.env, TZ: 'XRT-5' } });
const oneCpu = (cmd: PhaseCommand): PhaseCommand => ({ ...cmd, argv: ['taskset', '-c', '0', ...cmd.argv] });

/** Passing tests of the fixtures with one more test that needs two CPUs (time zone for Ruby, above). */
const NEEDS_TWO_CPUS: Partial<Record<LanguageId, () => string>> = {
  go: () =>
    generatedTest('go', 'pass').replace('import "testing"', 'import (\n\t"runtime"\n\t"testing"\n)') +
    '\nfunc TestStatusOnTwoCPUs(t *testing.T) {\n\tif n := runtime.NumCPU(); n < 2 {\n\t\tt.Fatalf("expected at least 2 CPUs, got %d", n)\n\t}\n\tif (Item{Quantity: 5}).Status(10) != "ok" {\n\t\tt.Fatal("Status")\n\t}\n}\n',
  rust: () =>
    generatedTest('rust', 'pass').replace(
      '    #[test]\n    fn classifies_equilateral',
      '    #[test]\n    fn classifies_on_two_cpus() {\n        let n = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);\n        assert!(n >= 2, "expected at least 2 CPUs, got {}", n);\n        assert_eq!(classify_triangle(3.0, 4.0, 5.0), TriangleKind::Right);\n    }\n\n    #[test]\n    fn classifies_equilateral',
    ),
  php: () =>
    generatedTest('php', 'pass').replace(
      '    public function testSlugifyEmpty(): void',
      "    public function testSlugifyOnTwoCpus(): void\n    {\n        preg_match('/^Cpus_allowed_list:\\s*(.*)$/m', (string) file_get_contents('/proc/self/status'), $m);\n        $this->assertNotSame('0', trim($m[1] ?? ''), 'expected more than CPU 0');\n        $this->assertSame('a-b', (new Slugger())->slugify('a b'));\n    }\n\n    public function testSlugifyEmpty(): void",
    ),
};

describe('flaky detection (reruns of a passing test in fresh sandboxes)', function () {
  this.timeout(300_000);
  before(function () {
    if (!hasTool('rspec', ['--version'])) skipBecause(this, 'rspec is not installed');
  });

  const origin = { round: 0, mode: null, provider: null, model: null, baseline: false };
  // Passes where the clock is UTC, fails five hours east of it.
  const zoneSpec = generatedTest('ruby', 'pass').replace("it 'returns nothing for an empty query' do", "it 'returns nothing for an empty query' do\n    expect(Time.now.utc_offset).to eq(0)");

  it('a test that fails on one rerun is flaky: not a pass, its pass count kept, the failing run named', async () => {
    const loaded = { task: await fixtureTask('ruby'), language: 'ruby' as const, file: 'tasks.jsonl', line: 1 };
    const executor = new OneSessionDiffers(2, fiveHoursEast);
    const r = await scoreTest(loaded, zoneSpec, 0, origin, { executor, checkout: fixture(FIXTURE_OF.ruby), reruns: 3 });
    assert.equal(executor.sessions, 4, 'the first run and three reruns, each in a session of its own');
    assert.equal(r.checks[0].tests, false);
    assert.equal(r.xrt.failure_category, 'flaky');
    assert.deepEqual(r.xrt.reruns, { runs: 4, passed: 3 });
    assert.match(r.xrt.reason ?? '', /passed 3 of 4 runs/);
    assert.ok(r.coverage_stats[0].covered_lines > 0, 'the first run\u2019s coverage is kept');
  });

  it('a steady test passes every rerun; `run --reruns 2` records the count, and without it nothing is rerun', async () => {
    const loaded = { task: await fixtureTask('ruby'), language: 'ruby' as const, file: 'tasks.jsonl', line: 1 };
    const executor = new OneSessionDiffers(-1, fiveHoursEast);
    const r = await scoreTest(loaded, zoneSpec, 0, origin, { executor, checkout: fixture(FIXTURE_OF.ruby), reruns: 2 });
    assert.equal(r.checks[0].tests, true, r.xrt.reason ?? '');
    assert.deepEqual(r.xrt.reruns, { runs: 3, passed: 3 });

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-reruns-'));
    try {
      const tasks = path.join(dir, 'tasks.jsonl');
      fs.writeFileSync(tasks, JSON.stringify(loaded.task) + '\n');
      const tests = path.join(dir, 'tests.jsonl');
      fs.writeFileSync(tests, JSON.stringify({ task_id: loaded.task.task_id, language: 'ruby', test_code: generatedTest('ruby', 'pass') }) + '\n');
      for (const [args, expected] of [[['--reruns', '2'], { runs: 3, passed: 3 }], [[], undefined]] as const) {
        const out = path.join(dir, `out${args.length}.jsonl`);
        const p = spawnSync(process.execPath, [CLI, 'run', tasks, '--tests', tests, '--executor', 'local', '--repos', path.dirname(fixture(FIXTURE_OF.ruby)), '--out', out, '--no-progress', ...args], { encoding: 'utf8' });
        assert.equal(p.status, 0, p.stderr);
        const rec = JSON.parse(fs.readFileSync(out, 'utf8').trim());
        assert.equal(rec.checks[0].tests, true);
        assert.deepEqual(rec.xrt.reruns, expected);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  for (const language of ['go', 'rust', 'php'] as LanguageId[]) {
    it(`${language}: a test that needs two CPUs, run once on one, is flaky; on two every run passes`, async function () {
      const missing = TOOLS_OF[language].filter((t) => !hasTool(t, t === 'go' ? ['version'] : ['--version']));
      if (missing.length) skipBecause(this, `${missing.join(', ')} not installed`);
      if (!hasTool('taskset', ['--version'])) skipBecause(this, 'taskset (util-linux) is not installed');
      if (os.availableParallelism() < 2) skipBecause(this, 'this machine has one CPU: the test could not pass on it at all');
      const loaded = { task: await fixtureTask(language), language, file: 'tasks.jsonl', line: 1 };
      const code = NEEDS_TWO_CPUS[language]!();
      const flaky = new OneSessionDiffers(1, oneCpu);
      const r = await scoreTest(loaded, code, 0, origin, { executor: flaky, checkout: fixture(FIXTURE_OF[language]), reruns: 2 });
      assert.equal(flaky.sessions, 3, 'the first run and two reruns');
      assert.equal(r.checks[0].tests, false);
      assert.equal(r.xrt.failure_category, 'flaky', r.xrt.reason ?? '');
      assert.deepEqual(r.xrt.reruns, { runs: 3, passed: 2 });
      const steady = await scoreTest(loaded, code, 0, origin, { executor: new OneSessionDiffers(-1, oneCpu), checkout: fixture(FIXTURE_OF[language]), reruns: 2 });
      assert.equal(steady.checks[0].tests, true, steady.xrt.reason ?? '');
      assert.deepEqual(steady.xrt.reruns, { runs: 3, passed: 3 });
    });
  }

  it('`bench --reruns 2` reruns each passing slot and records the count; a run folder resumes only with the same reruns', async () => {
    const loaded = { task: await fixtureTask('ruby'), language: 'ruby' as const, file: 'tasks.jsonl', line: 1 };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-reruns-bench-'));
    try {
      const tasks = path.join(dir, 'tasks.jsonl');
      fs.writeFileSync(tasks, JSON.stringify(loaded.task) + '\n');
      const replay = path.join(dir, 'replay.jsonl');
      fs.writeFileSync(replay, JSON.stringify({ task_id: loaded.task.task_id, language: 'ruby', test_code: generatedTest('ruby', 'pass') }) + '\n');
      const runDir = path.join(dir, 'run');
      const bench = (...extra: string[]): ReturnType<typeof spawnSync> =>
        spawnSync(process.execPath, [CLI, 'bench', '--dataset', tasks, '--repos', path.dirname(fixture(FIXTURE_OF.ruby)), '--provider', 'replay', '--replay', replay, '--executor', 'local', '--run-dir', runDir, '--no-progress', ...extra], { encoding: 'utf8' });
      const first = bench('--reruns', '2');
      assert.equal(first.status, 0, String(first.stderr));
      assert.match(String(first.stderr), /2 rerun\(s\) of a passing test/);
      const [rec] = fs.readFileSync(path.join(runDir, 'results.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      assert.equal(rec.checks[0].tests, true, rec.xrt.reason);
      assert.deepEqual(rec.xrt.reruns, { runs: 3, passed: 3 });
      const other = bench();
      assert.notEqual(other.status, 0);
      assert.match(String(other.stderr), /other settings \(reruns\)/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
