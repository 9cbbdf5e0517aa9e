import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { extractRepository, type ExtractResult } from '../../src/engine/extract/extract';
import { hostRustChannel } from '../../src/engine/languages/rust/channel';
import { skipBecause } from '../helpers/skip';

/*
 * Issue 32, item 7: benchmark, documentation, example and tooling folders are not library code, and
 * on a stable toolchain a crate's `#![feature]` code does not compile. Both are left out by named,
 * counted rules (`scaffolding-folder`, `nightly-only`).
 */

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}

const rb = (name: string): string => `module M\n  def self.${name}(n)\n    n + 1\n  end\nend\n`;
const go = (pkg: string, name: string): string => `package ${pkg}\n\nfunc ${name}(n int) int {\n\treturn n + 1\n}\n`;
const php = (ns: string, name: string): string => `<?php\nnamespace ${ns};\n\nfunction ${name}($n)\n{\n    return $n + 1;\n}\n`;
const jl = (name: string): string => `function ${name}(n)\n    return n + 1\nend\n`;
const rs = (name: string, attrs = ''): string => `${attrs}pub fn ${name}(n: u32) -> u32 {\n    n + 1\n}\n`;
const cargo = (name: string, features = ''): string => `[package]\nname = "${name}"\nversion = "0.1.0"\nedition = "2021"\n${features}`;

const FILES: Record<string, string> = {
  // Ruby: the gem's code is under lib/ (a lib/tools/ folder is library code).
  'lib/gem.rb': rb('kept_lib'),
  'lib/gem/tools/helper.rb': rb('kept_lib_tools'),
  'benchmarks/speed.rb': rb('bench_rb'),
  'benchmark/other.rb': rb('bench_rb2'),
  'experiments/try.rb': rb('experiment_rb'),
  'website/site.rb': rb('website_rb'),
  'docs/conf.rb': rb('docs_rb'),
  'tools/release.rb': rb('tools_rb'),
  // Go: no source root; cmd/ is program code and stays.
  'go.mod': 'module example.com/lib\n\ngo 1.21\n',
  'lib.go': go('lib', 'KeptGo'),
  'cmd/app/run.go': go('main', 'KeptCmd'),
  'benchmarks/bench.go': go('benchmarks', 'BenchGo'),
  'bench/b.go': go('bench', 'BenchGo2'),
  'tools/gen/gen.go': go('gen', 'ToolsGo'),
  'internal/Docs/d.go': go('docs', 'DocsGo'),
  // PHP: src/ is a source root (src/Tools is library code); the folder names match in any case.
  'src/Tools/Kept.php': php('Lib\\Tools', 'keptPhp'),
  'Tools/phpunit/run.php': php('Tools', 'toolsPhp'),
  'Website/page.php': php('Site', 'websitePhp'),
  // Julia: PkgBenchmark's benchmark/ and Documenter's docs/.
  'Pkg/src/Pkg.jl': `module Pkg\n${jl('kept_jl')}end\n`,
  'Pkg/benchmark/benchmarks.jl': jl('bench_jl'),
  'Pkg/docs/make.jl': jl('docs_jl'),
  // Rust: a tools crate and an xtask crate are scaffolding; src/bench/ inside a crate is a module.
  'crate/Cargo.toml': cargo('crate', '\n[features]\nnightly = []\n'),
  'crate/src/lib.rs':
    '#![cfg_attr(feature = "nightly", feature(core_intrinsics))]\n#![cfg_attr(docsrs, feature(doc_cfg))]\n' +
    'pub mod bench;\n\n' + rs('kept_rs') + '\n' + rs('nightly_rs', '#[cfg(feature = "nightly")]\n'),
  'crate/src/bench/mod.rs': rs('kept_rs_bench_module'),
  'nightly/Cargo.toml': cargo('nightly'),
  'nightly/src/lib.rs': '#![feature(test)]\n\npub mod inner;\n\n' + rs('nightly_crate_rs'),
  'nightly/src/inner.rs': rs('nightly_crate_inner_rs'),
  'testonly/Cargo.toml': cargo('testonly'),
  'testonly/src/lib.rs': '#![cfg_attr(test, feature(test))]\n\n' + rs('nightly_for_tests_rs'),
  'tools/gen/Cargo.toml': cargo('gen'),
  'tools/gen/src/lib.rs': rs('tools_rs'),
  'xtask/Cargo.toml': cargo('xtask'),
  'xtask/src/lib.rs': rs('xtask_rs'),
};

const SCAFFOLDING = ['bench_rb', 'bench_rb2', 'experiment_rb', 'website_rb', 'docs_rb', 'tools_rb', 'BenchGo', 'BenchGo2', 'ToolsGo', 'DocsGo', 'toolsPhp', 'websitePhp', 'bench_jl', 'docs_jl', 'tools_rs', 'xtask_rs'];
const NIGHTLY = ['nightly_rs', 'nightly_crate_rs', 'nightly_crate_inner_rs', 'nightly_for_tests_rs'];
const KEPT = ['kept_lib', 'kept_lib_tools', 'KeptGo', 'KeptCmd', 'keptPhp', 'kept_jl', 'kept_rs', 'kept_rs_bench_module'];

describe('extraction leaves out scaffolding folders and nightly-only Rust, counted by rule', () => {
  let repo = '';
  before(() => {
    repo = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-scaffold-'));
    write(repo, FILES);
  });
  after(() => {
    if (repo) fs.rmSync(repo, { recursive: true, force: true });
  });

  const extract = (rustChannel?: 'stable' | 'nightly'): Promise<ExtractResult> =>
    extractRepository(repo, { repository: { name: 'mixed', url: repo, commit: null }, filters: { minLines: 1, ...(rustChannel ? { rustChannel } : {}) } });
  const names = (r: ExtractResult): string[] => r.tasks.map((t) => t.function_name).sort();

  it('on a stable toolchain keeps only library code, and counts what each rule left out', async () => {
    const r = await extract('stable');
    assert.deepEqual(names(r), [...KEPT].sort());
    assert.equal(r.summary.dropped['scaffolding-folder'], SCAFFOLDING.length, 'one per scaffolding function');
    assert.equal(r.summary.dropped['nightly-only'], NIGHTLY.length, 'the #![feature] crate, its module, the feature-gated item, the test-only feature');
    assert.equal(r.summary.languages.ruby!.dropped['scaffolding-folder'], 6);
    assert.equal(r.summary.languages.go!.dropped['scaffolding-folder'], 4);
    assert.equal(r.summary.languages.php!.dropped['scaffolding-folder'], 2);
    assert.equal(r.summary.languages.julia!.dropped['scaffolding-folder'], 2);
    assert.equal(r.summary.languages.rust!.dropped['scaffolding-folder'], 2);
    assert.equal(r.summary.seen, r.summary.kept + Object.values(r.summary.dropped).reduce((a, b) => a + b, 0));
  });

  it('on a nightly toolchain keeps the #![feature] code (and still leaves out scaffolding)', async () => {
    const r = await extract('nightly');
    assert.deepEqual(names(r), [...KEPT, ...NIGHTLY].sort());
    assert.equal(r.summary.dropped['nightly-only'], 0);
    assert.equal(r.summary.dropped['scaffolding-folder'], SCAFFOLDING.length);
  });

  it('with no channel given, asks the host rustc (rustc -vV)', async function () {
    const channel = hostRustChannel();
    if (channel === 'nightly') skipBecause(this, 'the host rustc is a nightly or dev build: nothing is nightly-only here');
    const r = await extract();
    assert.equal(r.summary.dropped['nightly-only'], NIGHTLY.length, `host rustc is ${channel}`);
  });

  it('can be switched off (excludeScaffolding: false) for the paper-faithful extraction', async () => {
    const r = await extractRepository(repo, { repository: { name: 'mixed', url: repo, commit: null }, filters: { minLines: 1, excludeScaffolding: false, rustChannel: 'nightly' } });
    assert.equal(r.summary.dropped['scaffolding-folder'], 0);
    for (const n of SCAFFOLDING) assert.ok(names(r).includes(n), `${n} kept when the rule is off`);
  });
});

describe('the rustc asked for the channel is never one the checkout chooses (attack)', () => {
  let repo = '';
  after(() => {
    if (repo) fs.rmSync(repo, { recursive: true, force: true });
  });

  it('a rust-toolchain.toml naming a path toolchain neither runs its rustc nor makes #![feature] code kept', async function () {
    repo = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-scaffold-attack-'));
    const marker = path.join(repo, 'RAN');
    write(repo, {
      'rust-toolchain.toml': `[toolchain]\npath = "${path.join(repo, 'evil')}"\n`,
      'evil/bin/rustc': `#!/bin/sh\ntouch '${marker}'\necho 'rustc 1.99.0-nightly'\necho 'release: 1.99.0-nightly'\n`,
      'nightly/Cargo.toml': cargo('nightly'),
      'nightly/src/lib.rs': '#![feature(test)]\n\n' + rs('nightly_crate_rs'),
    });
    fs.chmodSync(path.join(repo, 'evil/bin/rustc'), 0o755);
    // The attack is real where rustup reads the file: a rustc started inside the checkout runs the planted one.
    const naive = spawnSync('rustc', ['-vV'], { cwd: path.join(repo, 'nightly'), encoding: 'utf8' });
    if (!fs.existsSync(marker)) skipBecause(this, `rustc here does not follow a path toolchain file (${(naive.stderr || naive.stdout || String(naive.error)).trim().split('\n')[0]})`);
    fs.rmSync(marker);
    const hostChannel = hostRustChannel();
    if (hostChannel === 'nightly') skipBecause(this, 'the host rustc is a nightly or dev build: a planted nightly would not change the verdict');
    // A fresh process (the channel is asked once per process), started inside the checkout.
    const script = `require(${JSON.stringify(path.resolve(__dirname, '../../src/engine/extract/extract.js'))}).extractRepository('.', { repository: { name: 'x', url: '.', commit: null }, filters: { minLines: 1 } }).then((r) => process.stdout.write(JSON.stringify(r.summary.dropped)))`;
    const child = spawnSync(process.execPath, ['-e', script], { cwd: path.join(repo, 'nightly'), encoding: 'utf8', timeout: 60_000 });
    assert.equal(child.status, 0, child.stderr);
    assert.equal(fs.existsSync(marker), false, 'the planted rustc ran');
    assert.equal((JSON.parse(child.stdout) as Record<string, number>)['nightly-only'], 1, 'the #![feature] crate is nightly-only on the host\'s stable rustc');
  });
});
