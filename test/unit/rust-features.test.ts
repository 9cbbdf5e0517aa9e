import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { evaluateTest } from '../../src/engine/execute/evaluate';
import { extractRepository } from '../../src/engine/extract/extract';
import { formatRustFeatureNeeds, rustFeatureNeeds } from '../../src/engine/languages/rust/doctor';
import { LocalExecutor } from '../../src/engine/execute/local';
import { chooseFeatures, evaluateCfg, gateOfAttribute, parseCfg, type CfgEnvironment, type Gate } from '../../src/engine/languages/rust/cfg';
import { closeFeatures, parseCargoFeatures } from '../../src/engine/languages/rust/manifest';
import type { TaskRecord } from '../../src/engine/tasks/record';
import { extractGated, writeGatedCrate } from '../helpers/rust-gated';
import { hasTool, skipBecause } from '../helpers/skip';

const LINUX: CfgEnvironment = { features: new Set(['std']), customCfgs: false, arch: 'x86_64' };

function gate(attr: string): Gate {
  const g = gateOfAttribute(attr);
  assert.ok(g, attr);
  return g;
}

describe('Rust cfg gates and features', function () {
  describe('predicates', () => {
    it('reads cfg, cfg_attr with a cfg, and ignores attributes that gate nothing', () => {
      assert.deepEqual(parseCfg('feature = "std"'), { kind: 'value', key: 'feature', value: 'std' });
      assert.equal(gateOfAttribute('#[derive(Debug)]'), null);
      assert.equal(gateOfAttribute('#[cfg_attr(docsrs, doc(cfg(feature = "std")))]'), null);
      assert.equal(gateOfAttribute('#[cfg_attr(feature = "no-panic", no_panic)]'), null);
      const ca = gate('#[cfg_attr(feature = "x", cfg(windows))]');
      assert.equal(evaluateCfg(ca.cfg, LINUX), true, 'x off: the cfg is not applied');
      assert.equal(evaluateCfg(ca.cfg, { ...LINUX, features: new Set(['x']) }), false, 'x on: cfg(windows) applies');
      assert.equal(gate('#[cfg(feature = "std" /* why */)]').cfg.kind, 'value');
      assert.equal(gate('#[cfg(version("1.80"))]').cfg.kind, 'opaque');
    });

    it('evaluates for a Linux test build: other targets, Miri and any() are false, test is true, build-script cfgs unknown', () => {
      const ev = (t: string, env: CfgEnvironment = LINUX) => evaluateCfg(parseCfg(t), env);
      assert.equal(ev('windows'), false);
      assert.equal(ev('target_os = "macos"'), false);
      assert.equal(ev('all(unix, target_os = "linux")'), true);
      assert.equal(ev('miri'), false);
      assert.equal(ev('not(miri)'), true);
      assert.equal(ev('any()'), false);
      assert.equal(ev('all()'), true);
      assert.equal(ev('test'), true);
      assert.equal(ev('not(test)'), false);
      assert.equal(ev('FALSE'), false);
      assert.equal(ev('has_foo'), false, 'no build script: nothing sets it');
      assert.equal(ev('has_foo', { ...LINUX, customCfgs: true }), undefined, 'a build script may set it');
      assert.equal(ev('any(windows, has_foo)', { ...LINUX, customCfgs: true }), undefined);
      assert.equal(ev('all(windows, has_foo)', { ...LINUX, customCfgs: true }), false);
      assert.equal(ev('target_feature = "avx2"'), undefined);
      assert.equal(ev('feature = "std"', { ...LINUX, features: null }), undefined);
    });

    it('chooses the features gates need, turning the defaults off only when a gate asks', () => {
      const manifest = parseCargoFeatures('[features]\ndefault = ["std"]\nstd = ["alloc"]\nalloc = []\ncs = ["dep:cs", "portable"]\nportable = []\n[dependencies.cs]\noptional = true\n[dependencies]\nserde = { version = "1", optional = true }\n', false);
      assert.deepEqual([...manifest.declared].sort(), ['alloc', 'cs', 'default', 'portable', 'serde', 'std'], 'cs is named as dep:, serde is implicit');
      const close = (f: Iterable<string>, d: boolean) => closeFeatures(manifest, f, d);
      const base = { customCfgs: false, arch: 'x86_64' };
      const choose = (...attrs: string[]) => chooseFeatures(attrs.map(gate), manifest.declared, close, base);
      assert.deepEqual(choose('#[cfg(feature = "serde")]'), { features: ['serde'], noDefaultFeatures: false, verdict: 'compiled' });
      assert.deepEqual(choose('#[cfg(any(feature = "std", feature = "cs"))]').features, [], 'already holds with the defaults');
      const cs = choose('#[cfg(all(feature = "cs", not(feature = "std")))]');
      assert.deepEqual([cs.features, cs.noDefaultFeatures, cs.verdict], [['cs'], true, 'compiled']);
      assert.equal(choose('#[cfg(all(feature = "std", not(feature = "alloc")))]').verdict, 'excluded', 'std enables alloc');
      assert.equal(choose('#[cfg(feature = "nope")]').verdict, 'excluded', 'not a feature of the crate');
      assert.equal(choose('#[cfg(target_os = "windows")]').verdict, 'excluded');
    });
  });

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
