import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { evaluateTest } from '../../src/engine/execute/evaluate';
import { extractRepository } from '../../src/engine/extract/extract';
import { formatRustFeatureNeeds, rustFeatureNeeds } from '../../src/engine/languages/rust/doctor';
import { LocalExecutor } from '../../src/engine/execute/local';
import type { TaskRecord } from '../../src/engine/tasks/record';
import { extractGated, writeGatedCrate } from '../helpers/rust-gated';
import { hasTool, skipBecause } from '../helpers/skip';

describe('Rust cfg gates and features', function () {

  describe('extraction', () => {
    let dir: string;
    before(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-gated-'));
      writeGatedCrate(dir);
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('records the features on the path from the crate root, and drops what no Linux test build compiles (counted)', async () => {
      const { tasks, dropped } = await extractGated(dir);
      const by = new Map(tasks.map((t) => [t.function_name, t]));
      const features = (name: string) => by.get(name)?.metadata.cargo_features;
      assert.deepEqual(features('boost'), ['extra']);
      assert.deepEqual(features('deep'), ['extra'], 'a file two mod declarations down');
      assert.deepEqual(features('sparkle'), ['fancy'], 'an inline module');
      assert.deepEqual(features('imp_value'), ['std'], 'a #[path] module');
      assert.deepEqual(features('linux_when_extra'), undefined, 'cfg_attr: holds without extra');
      assert.equal(features('hidden_area'), undefined);
      assert.equal(features('plain'), undefined);
      assert.equal(features('documented'), undefined);
      assert.equal(by.get('no_std_only')?.metadata.cargo_no_default_features, 'true');
      for (const gone of ['windows_only', 'miri_only', 'never_any', 'undeclared']) assert.ok(!by.has(gone), gone);
      assert.equal(dropped['cfg-excluded'], 4);
      // The record stays the release's shape: the features are one more metadata key, as JSON.
      const line = JSON.parse(JSON.stringify(by.get('boost')));
      assert.deepEqual(line.metadata, { module: '', class_name: '', class_signature: '', cargo_features: ['extra'] });
    });

    it('doctor --repo lists the features the tasks need and the functions dropped as cfg-excluded', async () => {
      const needs = rustFeatureNeeds(await extractRepository(dir, { languages: ['rust'] }));
      // The release's filters (20 lines): none of the small gated functions is a task.
      assert.deepEqual(needs, { tasks: 0, bySet: {}, cfgExcluded: 4 });
      const text = formatRustFeatureNeeds(needs).join('\n');
      assert.match(text, /0 task\(s\); features: none; 4 function\(s\) only another target or Miri compiles \(dropped: cfg-excluded\)/);
      const some = formatRustFeatureNeeds({ tasks: 3, bySet: { extra: 2, ' --no-default-features': 1 }, cfgExcluded: 0 }).join('\n');
      assert.match(some, /3 task\(s\); features: extra \(2\), --no-default-features \(1\)$/);
    });
  });

  describe('runs (cargo)', function () {
    this.timeout(600_000);
    let dir: string;
    let tasks: Map<string, TaskRecord>;
    const executor = new LocalExecutor();
    before(async function () {
      if (!hasTool('cargo')) skipBecause(this, 'cargo is not installed');
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-gated-run-'));
      writeGatedCrate(dir);
      tasks = new Map((await extractGated(dir)).tasks.map((t) => [t.function_name, t]));
    });
    after(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

    const test = (call: string, expected: number) => `#[cfg(test)]\nmod tests {\n    use super::*;\n    #[test]\n    fn works() {\n        assert_eq!(${call}, ${expected});\n    }\n}\n`;

    it('a test of a function behind a non-default feature compiles, passes and covers it (--features from the task)', async () => {
      const e = await evaluateTest(tasks.get('boost')!, 'rust', test('boost(1)', 101), { executor, repoDir: dir });
      assert.equal(e.score.passed, true, JSON.stringify(e.score));
      assert.ok(e.placement?.notes.some((n) => n.includes('--features=extra')), JSON.stringify(e.placement));
      assert.ok(e.score.coverage.covered.length > 0);
      assert.deepEqual(e.score.coverage.covered, e.score.coverage.executable);
    });

    it('a task without the field (the published release) gets the features from its gates (the test sits inside mod fancy)', async () => {
      const task = structuredClone(tasks.get('sparkle')!);
      delete task.metadata.cargo_features;
      const e = await evaluateTest(task, 'rust', test('sparkle(1)', 8), { executor, repoDir: dir });
      assert.equal(e.score.passed, true, JSON.stringify(e.score));
    });

    it('a task that turns the defaults off builds with --no-default-features', async () => {
      const e = await evaluateTest(tasks.get('no_std_only')!, 'rust', test('no_std_only(1)', 6), { executor, repoDir: dir });
      assert.equal(e.score.passed, true, JSON.stringify(e.score));
    });

    it('a failing test of gated code fails as the test\'s (logic), not as environment', async () => {
      const e = await evaluateTest(tasks.get('boost')!, 'rust', test('boost(1)', 7), { executor, repoDir: dir });
      assert.equal(e.score.compiled, true);
      assert.equal(e.score.passed, false);
      assert.equal(e.score.failure?.category, 'logic-assertion');
      assert.equal(e.environment, undefined);
    });

    it('focal code the task\'s features leave out: environment (focal-not-compiled) naming the gate and the fix, before the test mattered', async () => {
      const task = structuredClone(tasks.get('boost')!);
      task.metadata.cargo_features = [];
      for (const code of [test('boost(1)', 101), 'this is not rust {']) {
        const e = await evaluateTest(task, 'rust', code, { executor, repoDir: dir });
        assert.equal(e.environment?.cause, 'focal-not-compiled', JSON.stringify(e.score));
        assert.equal(e.score.failure?.category, 'environment');
        assert.match(e.score.reason ?? '', /#\[cfg\(feature = "extra"\)\]/);
        assert.match(e.score.reason ?? '', /xrepotest extract/);
      }
    });
  });
});
