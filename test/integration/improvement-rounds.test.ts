import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { evaluateTest } from '../../src/engine/execute/evaluate';
import { LocalExecutor } from '../../src/engine/execute/local';
import { adapterFor } from '../../src/engine/languages';
import { extractRepository } from '../../src/engine/extract/extract';
import { baselineProvider } from '../../src/engine/generate/baseline';
import { fencedTest } from '../../src/engine/generate/generate';
import { ReplayProvider } from '../../src/engine/generate/providers/replay';
import { PAPER_PARAMS, type Provider } from '../../src/engine/generate/types';
import type { LanguageId } from '../../src/engine/parse/grammars';
import type { ResultRecord } from '../../src/engine/store/results';
import { runTaskStep } from '../../src/engine/task/run-task-step';
import type { LoadedTask } from '../../src/engine/tasks/load';
import type { TaskRecord } from '../../src/engine/tasks/record';
import { FIXTURE_OF, fixtureTask, generatedTest } from '../helpers/evaluate';
import { CLI, REPO_ROOT, fixture } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';

/**
 * Improvement rounds (issue 17, item 1) on the fixtures, offline: the baseline's Go builder and replayed
 * replies for Ruby. Every candidate runs through the local executor and the ordinary scoring.
 */

async function fixtureFunction(language: LanguageId, name: string): Promise<TaskRecord> {
  const dir = fixture(FIXTURE_OF[language]);
  const { tasks } = await extractRepository(dir, { repository: { name: FIXTURE_OF[language], url: dir, commit: null, path: dir } });
  const task = tasks.find((t) => t.function_name === name);
  if (!task) throw new Error(`no task ${name} in ${dir}`);
  return task;
}

const loaded = (task: TaskRecord, language: LanguageId): LoadedTask => ({ task, language, file: 'tasks.jsonl', line: 1 });

async function improved(task: LoadedTask, provider: Provider, rounds: number): Promise<ResultRecord> {
  const executor = new LocalExecutor();
  const outcomes = await runTaskStep(
    task,
    {
      provider,
      params: { model: provider.id, ...PAPER_PARAMS },
      labels: { provider: provider.id, model: provider.id, mode: 'standard' },
      prompt: async () => ({ system: 'system', user: 'Generate unit tests for this function.', mode: 'standard', language: task.language }),
      evaluation: { executor, checkout: fixture(FIXTURE_OF[task.language]) },
    },
    { samples: 1, repairRounds: 0, mutation: false, improveRounds: rounds },
  );
  assert.equal(outcomes.length, 1, 'one slot: improvement rounds are not slots of their own');
  const r = outcomes[0].result;
  assert.ok(r, 'a scored result');
  return r;
}

/** The suite's union coverage (the first test's lines and every kept test's) against the merged file scored as one test. */
async function assertUnionIsNative(task: LoadedTask, r: ResultRecord): Promise<void> {
  const suite = r.xrt.suite!;
  const union = new Set(r.coverage_stats[0].covered_line_numbers);
  for (const round of suite.rounds.filter((x) => x.kept)) for (const l of round.covered_line_numbers) union.add(l);
  const native = await evaluateTest(task.task, task.language, suite.test_code, { executor: new LocalExecutor(), repoDir: fixture(FIXTURE_OF[task.language]) });
  assert.equal(native.score.passed, true, native.score.reason ?? '');
  assert.deepEqual(native.score.coverage.covered, [...union].sort((a, b) => a - b), 'the merged file covers exactly the union');
  assert.deepEqual(suite.coverage.covered_line_numbers, native.score.coverage.covered);
  assert.ok(suite.coverage.covered_lines > r.coverage_stats[0].covered_lines, 'the suite covers more than the one-shot test');
}

describe('improvement rounds on the fixtures (offline)', function () {
  this.timeout(600_000);

  describe('Go, the baseline provider', () => {
    before(function () {
      if (!hasTool('go', ['version'])) skipBecause(this, 'go is not installed');
    });

    it('keeps a round that runs a new branch and drops one that adds nothing, with the reason; the merged suite covers the union', async () => {
      const task = loaded(await fixtureFunction('go', 'Restock'), 'go');
      const r = await improved(task, baselineProvider, 2);
      assert.equal(r.checks[0].tests, true, r.xrt.reason ?? '');
      const suite = r.xrt.suite;
      assert.ok(suite, 'the passing slot has a suite');
      assert.equal(suite.rounds.length, 2);
      const [kept, dropped] = suite.rounds;
      assert.equal(kept.kept, true, kept.reason);
      assert.equal(kept.verdict, 'adds-coverage');
      assert.ok(kept.added_lines.length > 0);
      assert.match(kept.reason, /runs focal line\(s\) \d+/);
      assert.equal(dropped.kept, false);
      assert.equal(dropped.verdict, 'adds-nothing');
      assert.match(dropped.reason, /runs no focal line the suite does not run/);
      assert.equal(suite.tests, 2);
      assert.equal(suite.passed, true);
      // Go: one file of the package, the second test renamed where it collides.
      assert.equal(suite.test_code.match(/^package /gm)?.length, 1);
      await assertUnionIsNative(task, r);
    });
  });

  describe('Ruby, replayed replies', () => {
    let dir: string;
    before(function () {
      if (!hasTool('rspec', ['--version'])) skipBecause(this, 'rspec is not installed');
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-improve-'));
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('replays each round from recorded replies: kept, dropped for not calling the function, dropped for adding nothing', async () => {
      const task = loaded(await fixtureTask('ruby'), 'ruby');
      const pass = generatedTest('ruby', 'pass');
      // The one-shot test: only the empty query (its early return).
      const first = pass.replace(/\n  it 'ranks a title match above an author match' do[\s\S]*?\n  end\n/, '\n');
      assert.notEqual(first, pass);
      const line = (round: number, improve: number, test: string): string =>
        JSON.stringify({ task_id: task.task.task_id, language: 'ruby', sample: 0, round, ...(improve ? { improve } : {}), raw_response: fencedTest('ruby', test) });
      const file = path.join(dir, 'replies.jsonl');
      fs.writeFileSync(file, [line(0, 0, first), line(0, 1, pass), line(0, 2, generatedTest('ruby', 'noinvoke')), line(0, 3, first)].join('\n') + '\n');
      const r = await improved(task, new ReplayProvider(file), 3);
      const suite = r.xrt.suite!;
      assert.deepEqual(
        suite.rounds.map((x) => [x.improve, x.kept, x.verdict]),
        [
          [1, true, 'adds-coverage'],
          [2, false, 'does-not-invoke'],
          [3, false, 'adds-nothing'],
        ],
      );
      assert.match(suite.rounds[1].reason, /does not call the focal function/);
      assert.equal(suite.tests, 2);
      await assertUnionIsNative(task, r);
    });
  });

  describe('the CLI: bench --improve-rounds, and the report of one-shot vs improved', () => {
    let dir: string;
    before(function () {
      if (!hasTool('go', ['version'])) skipBecause(this, 'go is not installed');
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-improve-cli-'));
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    const bench = (runDir: string, extra: string[]): void => {
      const args = [CLI, 'bench', '--dataset', path.join(REPO_ROOT, 'examples/fixtures/tasks.jsonl'), '--manifest', path.join(REPO_ROOT, 'examples/fixtures/manifest.json'), '--lang', 'go', '--provider', 'baseline', '--executor', 'local', '--run-dir', runDir, '--no-progress', '--concurrency', '2', ...extra];
      const p = spawnSync(process.execPath, args, { encoding: 'utf8' });
      assert.equal(p.status, 0, p.stderr);
    };

    it('writes suites into the results, shows them beside the one-shot metrics with intervals, and compares with a one-shot run', () => {
      const oneShot = path.join(dir, 'one-shot');
      const better = path.join(dir, 'improved');
      bench(oneShot, []);
      bench(better, ['--improve-rounds', '2']);
      const results = fs.readFileSync(path.join(better, 'results.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as ResultRecord);
      assert.equal(results.length, 5, 'one row per slot');
      assert.ok(results.every((x) => x.xrt.suite), 'every passing slot has its suite');
      assert.ok(!fs.readFileSync(path.join(oneShot, 'results.jsonl'), 'utf8').includes('"suite"'));
      const md = fs.readFileSync(path.join(better, 'report.md'), 'utf8');
      assert.match(md, /## One-shot vs improved/);
      assert.match(md, /\| Language \| N \| TPR \| TPR \(improved\) \| TPR Δ \| Cov \| Cov \(improved\) \| Cov Δ \|/);
      assert.match(md, /\| go † \| 5 \| 100\.0 \[100\.0, 100\.0\] \| 100\.0 \[100\.0, 100\.0\] \| 0\.0 \[0\.0, 0\.0\] \| [\d.]+ \[[\d.]+, [\d.]+\] \| [\d.]+ \[[\d.]+, [\d.]+\] \| [\d.]+ \[[\d.]+, [\d.]+\] \|/);
      assert.match(md, /of 5 slots kept at least one test of an improvement round/);
      assert.match(fs.readFileSync(path.join(better, 'report.html'), 'utf8'), /id="improvement"/);
      assert.doesNotMatch(fs.readFileSync(path.join(oneShot, 'report.md'), 'utf8'), /improved/);
      const cmp = spawnSync(process.execPath, [CLI, 'report', '--compare', oneShot, better, '--format', 'markdown', '--resamples', '500'], { encoding: 'utf8' });
      assert.equal(cmp.status, 0, cmp.stderr);
      assert.match(cmp.stdout, /Paired comparison/);
      assert.match(cmp.stdout, /Cov \(improved\)/);
    });

    it('`generate --improve-rounds 2` writes every reply, and replaying them in `bench` rebuilds the same suites', () => {
      const gens = path.join(dir, 'generations.jsonl');
      const g = spawnSync(process.execPath, [CLI, 'generate', path.join(REPO_ROOT, 'examples/fixtures/tasks.jsonl'), '--out', gens, '--provider', 'baseline', '--improve-rounds', '2', '--executor', 'local', '--repos', path.join(REPO_ROOT, 'test/fixtures'), '--no-progress'], { encoding: 'utf8' });
      assert.equal(g.status, 0, g.stderr);
      const records = fs.readFileSync(gens, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { task_id: string; language: string; improve?: number; test_code: string });
      const goFirst = records.filter((r) => r.language === 'go' && !r.improve);
      const goImproving = records.filter((r) => r.language === 'go' && r.improve);
      assert.equal(goFirst.length, 5, 'one first test per Go task');
      assert.ok(goImproving.some((r) => r.improve === 1 && r.test_code.trim()), 'the improvement rounds\' replies are written, numbered');
      const baseline = path.join(dir, 'improved');
      const replayed = path.join(dir, 'replayed');
      bench(replayed, ['--improve-rounds', '2', '--provider', 'replay', '--replay', gens]);
      const suites = (runDir: string): Record<string, unknown> =>
        Object.fromEntries(
          fs.readFileSync(path.join(runDir, 'results.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as ResultRecord).map((r) => [r.id, r.xrt.suite && { tests: r.xrt.suite.tests, hash: r.xrt.suite.test_hash, kept: r.xrt.suite.rounds.map((x) => x.kept) }]),
        );
      assert.deepEqual(suites(replayed), suites(baseline), 'the replayed replies keep the same tests');
    });
  });
});

describe('suite merges build and run with the language\'s own toolchain', function () {
  this.timeout(600_000);
  for (const language of ['go', 'rust', 'php', 'ruby'] as const) {
    it(`${language}: two tests with colliding names merge into one file that passes and covers both`, async function () {
      const tool = { go: 'go', rust: 'cargo', php: 'phpunit', ruby: 'rspec' }[language];
      if (!hasTool(tool, ['--version']) && !hasTool(tool, ['version'])) return skipBecause(this, `${tool} is not installed`);
      const task = await fixtureTask(language);
      const pass = generatedTest(language, 'pass');
      // The same test twice: every name collides (Go functions, PHP methods, Rust fns, Ruby groups). PHP
      // leaves out a member identical to one it has, so its second copy's methods differ in spacing.
      const second = language === 'php' ? pass.replace(/assertSame\(/g, 'assertSame( ') : pass;
      const merged = await adapterFor(language).suite.merge([pass, second]);
      const e = await evaluateTest(task, language, merged, { executor: new LocalExecutor(), repoDir: fixture(FIXTURE_OF[language]) });
      assert.equal(e.score.passed, true, `${e.score.reason}\n${merged}`);
      const alone = await evaluateTest(task, language, pass, { executor: new LocalExecutor(), repoDir: fixture(FIXTURE_OF[language]) });
      assert.deepEqual(e.score.coverage.covered, alone.score.coverage.covered);
      const ran = e.testReport.cases.filter((c) => c.status === 'passed').length;
      assert.equal(ran, 2 * alone.testReport.cases.filter((c) => c.status === 'passed').length, 'both copies ran');
    });
  }
});
