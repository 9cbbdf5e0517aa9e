import { strict as assert } from 'node:assert';
import { testTargetArgs } from '../../src/engine/languages/rust/test-targets';

/** What `cargo metadata --no-deps` says about a package at /w (only the fields read). */
function metadata(targets: Array<{ kind: string[]; src_path: string }>, manifest = '/w/Cargo.toml'): string {
  return JSON.stringify({ packages: [{ manifest_path: '/w/other/Cargo.toml', targets: [{ kind: ['lib'], src_path: '/w/other/src/lib.rs' }] }, { manifest_path: manifest, targets }] });
}

describe('Rust: which targets a slot builds (cargo metadata from the warm-up)', () => {
  const lib = { kind: ['lib'], src_path: '/w/src/lib.rs' };
  const bin = { kind: ['bin'], src_path: '/w/src/main.rs' };
  const tests = { kind: ['test'], src_path: '/w/tests/api.rs' };
  const bench = { kind: ['bench'], src_path: '/w/benches/parse.rs' };

  it('a focal file under the library\'s folder: only the library\'s test harness (and the binaries\', where there are some)', () => {
    assert.deepEqual(testTargetArgs(metadata([lib, tests, bench]), '/w/Cargo.toml', '/w/src/parse.rs'), ['--lib']);
    assert.deepEqual(testTargetArgs(metadata([lib, bin, tests]), '/w/Cargo.toml', '/w/src/deep/x.rs'), ['--lib', '--bins']);
    assert.deepEqual(testTargetArgs(metadata([bin, tests]), '/w/Cargo.toml', '/w/src/main.rs'), ['--bins']);
    assert.deepEqual(testTargetArgs(metadata([{ kind: ['rlib', 'cdylib'], src_path: '/w/src/lib.rs' }]), '/w/Cargo.toml', '/w/src/lib.rs'), ['--lib']);
  });

  it('anything it cannot use builds every target, as cargo test does', () => {
    for (const text of [null, '', 'not json', '{}', '{"packages": 3}', JSON.stringify({ packages: [null, { manifest_path: '/w/Cargo.toml', targets: 'x' }] })]) {
      assert.deepEqual(testTargetArgs(text, '/w/Cargo.toml', '/w/src/lib.rs'), [], String(text));
    }
    // Another package's answer, a file outside every library or binary folder, a root outside the package.
    assert.deepEqual(testTargetArgs(metadata([lib], '/x/Cargo.toml'), '/w/Cargo.toml', '/w/src/lib.rs'), []);
    assert.deepEqual(testTargetArgs(metadata([lib, bench]), '/w/Cargo.toml', '/w/benches/helpers.rs'), []);
    assert.deepEqual(testTargetArgs(metadata([{ kind: ['lib'], src_path: '/etc/lib.rs' }]), '/w/Cargo.toml', '/etc/x.rs'), []);
    assert.deepEqual(testTargetArgs(metadata([{ kind: [7, null] as unknown as string[], src_path: '/w/src/lib.rs' }]), '/w/Cargo.toml', '/w/src/lib.rs'), []);
  });
});
