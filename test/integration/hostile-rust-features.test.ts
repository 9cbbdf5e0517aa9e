import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { evaluateTest, runContext } from '../../src/engine/execute/evaluate';
import { LocalExecutor } from '../../src/engine/execute/local';
import { createSandbox, removeSandbox } from '../../src/engine/execute/sandbox';
import { extractRepository } from '../../src/engine/extract/extract';
import { rustToolchain } from '../../src/engine/languages/rust/toolchain';
import type { TaskRecord } from '../../src/engine/tasks/record';
import { extractGated, writeGatedCrate } from '../helpers/rust-gated';
import { hasTool, skipBecause } from '../helpers/skip';

/*
 * A dataset record and a repository are attacker-controlled: neither may put anything on cargo's
 * command line but `--features=<names the crate declares>` and `--no-default-features`; a generated
 * test may never turn its own failure into an environment verdict.
 */
describe('hostile Rust features', function () {
  this.timeout(600_000);
  let dir: string;
  let tasks: Map<string, TaskRecord>;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-hostile-features-'));
    writeGatedCrate(dir);
    // Feature names cargo would read as options or lists, declared by a hostile manifest.
    fs.appendFileSync(path.join(dir, 'Cargo.toml'), '"--config=build.rustc-wrapper=\'/bin/sh\'" = []\n"a,b" = []\n"x y" = []\n');
    tasks = new Map((await extractGated(dir)).tasks.map((t) => [t.function_name, t]));
  });
  after(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

  /** The compile command for a task as a record might carry it. */
  async function compileArgv(task: TaskRecord): Promise<string[]> {
    const sandbox = createSandbox(dir, task, rustToolchain.manifests);
    try {
      const ctx = runContext(task, 'rust', '#[test]\nfn t() {}\n', sandbox, true);
      const placement = await rustToolchain.place(ctx);
      return rustToolchain.compile(ctx, placement).argv;
    } finally {
      removeSandbox(sandbox);
    }
  }

  const BASE = ['cargo', 'test', '--no-run', '--offline', '--message-format=json-render-diagnostics'];

  it('a record\'s features that are options, lists, paths or undeclared never reach cargo', async () => {
    const task = structuredClone(tasks.get('boost')!);
    task.metadata.cargo_features = [
      'extra',
      "--config=build.rustc-wrapper='/bin/sh'",
      'a,b',
      'x y',
      'extra,std',
      '-Zunstable-options',
      '../../etc',
      'dep:serde',
      'serde/std',
      'undeclared',
      42,
      { toString: () => 'std' },
    ];
    assert.deepEqual(await compileArgv(task), [...BASE, '--features=extra']);
  });

  it('features that are not a list, and a no-default flag that is not "true", add nothing', async () => {
    const task = structuredClone(tasks.get('boost')!);
    task.metadata.cargo_features = 'extra --offline --config x';
    task.metadata.cargo_no_default_features = '--no-default-features --config x';
    assert.deepEqual(await compileArgv(task), BASE);
  });

  it('a placement whose arguments were tampered with is filtered again when the command is built', async () => {
    const task = tasks.get('plain')!;
    const sandbox = createSandbox(dir, task, rustToolchain.manifests);
    try {
      const ctx = runContext(task, 'rust', '#[test]\nfn t() {}\n', sandbox, true);
      const placement = await rustToolchain.place(ctx);
      placement.buildArgs = ['--config=x', '--features=a,b c', '--features=std', '-Zx', '--no-default-features'];
      assert.deepEqual(rustToolchain.compile(ctx, placement).argv, [...BASE, '--features=std', '--no-default-features']);
    } finally {
      removeSandbox(sandbox);
    }
  });

  it('extraction never records a feature name the manifest declares but cargo would read as something else', async () => {
    const crate = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-hostile-names-'));
    try {
      fs.mkdirSync(path.join(crate, 'src'));
      fs.writeFileSync(path.join(crate, 'Cargo.toml'), '[package]\nname = "h"\nversion = "0.1.0"\n[features]\n"--config=x" = []\n');
      fs.writeFileSync(path.join(crate, 'src/lib.rs'), '#[cfg(feature = "--config=x")]\npub fn f(x: u32) -> u32 {\n    let y = x + 1;\n    y\n}\n');
      const { tasks: found, summary } = await extractRepository(crate, { languages: ['rust'], filters: { minLines: 1 } });
      assert.equal(found.length, 0, JSON.stringify(found.map((t) => t.metadata)));
      assert.equal(summary.dropped['cfg-excluded'], 1, 'a feature cargo cannot be asked for: never compiled');
    } finally {
      fs.rmSync(crate, { recursive: true, force: true });
    }
  });

  it('a #[path] leaving the crate, or a module file that is a link, is not followed', async () => {
    const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-hostile-path-'));
    try {
      fs.mkdirSync(path.join(repo, 'crate/src'), { recursive: true });
      fs.mkdirSync(path.join(repo, 'shared'));
      fs.writeFileSync(path.join(repo, 'crate/Cargo.toml'), '[package]\nname = "p"\nversion = "0.1.0"\n[features]\nextra = []\n');
      const fn = (name: string) => `pub fn ${name}(x: u32) -> u32 {\n    let y = x + 1;\n    y\n}\n`;
      fs.writeFileSync(path.join(repo, 'crate/src/lib.rs'), '#[cfg(feature = "extra")]\n#[path = "../../shared/out.rs"]\nmod out;\n#[cfg(feature = "extra")]\nmod linked;\n');
      fs.writeFileSync(path.join(repo, 'shared/out.rs'), fn('outside'));
      fs.writeFileSync(path.join(repo, 'shared/target.rs'), fn('through_link'));
      fs.symlinkSync(path.join(repo, 'shared/target.rs'), path.join(repo, 'crate/src/linked.rs'));
      const { tasks: found } = await extractRepository(repo, { languages: ['rust'], filters: { minLines: 1 } });
      const outside = found.find((t) => t.function_name === 'outside');
      assert.ok(outside, 'shared/out.rs is a file of the repository');
      assert.equal(outside.metadata.cargo_features, undefined, 'not reached from the crate: nothing inherited');
      for (const t of found) assert.equal(t.metadata.cargo_features, undefined, `${t.function_name}: reached only through a link`);
    } finally {
      fs.rmSync(repo, { recursive: true, force: true });
    }
  });

  it('a test that compiles itself out (#![cfg(any())], #![cfg(windows)]) is not compiled, never environment', async function () {
    if (!hasTool('cargo')) skipBecause(this, 'cargo is not installed');
    const executor = new LocalExecutor();
    // A clean crate: cargo refuses the hostile manifest above as a whole.
    const clean = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-hostile-self-out-'));
    try {
      writeGatedCrate(clean);
      const plain = (await extractGated(clean)).tasks.find((t) => t.function_name === 'plain')!;
      for (const gate of ['#![cfg(any())]', '#![cfg(windows)]']) {
        const code = `${gate}\nuse super::*;\n#[test]\nfn t() { assert_eq!(plain(2), 4); }\n`;
        const e = await evaluateTest(plain, 'rust', code, { executor, repoDir: clean });
        assert.equal(e.environment, undefined, JSON.stringify(e.score));
        assert.equal(e.score.compiled, false, JSON.stringify(e.score));
        assert.notEqual(e.score.failure?.category, 'environment');
        assert.match(e.score.reason ?? '', /no test of the test module ran/);
      }
    } finally {
      fs.rmSync(clean, { recursive: true, force: true });
    }
  });
});
