import { strict as assert } from 'node:assert';
import { chooseFeatures, evaluateCfg, gateOfAttribute, parseCfg, type CfgEnvironment, type Gate } from '../../src/engine/languages/rust/cfg';
import { closeFeatures, parseCargoFeatures } from '../../src/engine/languages/rust/manifest';

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

});
