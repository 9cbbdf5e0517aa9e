import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkRepository } from '../../src/engine/doctor-repo';
import { evaluateTest } from '../../src/engine/execute/evaluate';
import { localHostViewArgs, planHostView, probeHostFacts } from '../../src/engine/execute/host-view';
import { fetchArgv, fetchEnv, isResolutionFailure, unresolvableProblem } from '../../src/engine/languages/rust/dependencies';
import { focalTask, localCargoPerTest, makeCrate, passingTest } from '../helpers/rust-crates';
import { hasTool, skipBecause } from '../helpers/skip';

describe('Rust dependencies: what the sandbox and the trusted fetch see', () => {
  it("shows cargo's download caches read-only, never its home (credentials, configuration)", function () {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-cargo-home-'));
    try {
      fs.writeFileSync(path.join(home, 'credentials.toml'), '[registry]\ntoken = "secret"\n');
      const facts = probeHostFacts({ ...process.env, CARGO_HOME: home });
      if (!facts.executables.some((e) => path.basename(e.found) === 'cargo')) skipBecause(this, 'cargo is not installed');
      const real = fs.realpathSync(home);
      assert.ok(facts.toolchainDirs.includes(path.join(real, 'registry')));
      assert.ok(facts.toolchainDirs.includes(path.join(real, 'git')));
      assert.ok(!facts.toolchainDirs.includes(real), 'the whole cargo home is shown');
      const binds = planHostView({ ...facts, homes: [] }).mounts.filter((m) => m.kind === 'ro-bind').map((m) => m.path);
      assert.ok(binds.includes(path.join(real, 'registry')) && binds.includes(path.join(real, 'git')));
      assert.ok(!binds.some((b) => b === real || path.join(real, 'credentials.toml').startsWith(b + '/')), 'credentials.toml is reachable');
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it('fetches from outside the copy, with the network, writing only the copy and the caches', () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-cargo-home-'));
    try {
      const env = { ...process.env, CARGO_HOME: home };
      const argv = fetchArgv({ copyDir: '/tmp/xrt-sandbox-x', projectRoot: '/tmp/xrt-sandbox-x/crate', bwrap: '/usr/bin/bwrap', hostView: localHostViewArgs() }, '/tmp/xrt-fetch', env);
      const i = argv.indexOf('--');
      const cargo = argv.slice(i + 1);
      assert.deepEqual(cargo, ['cargo', 'fetch', '--manifest-path', '/tmp/xrt-sandbox-x/crate/Cargo.toml']);
      const chdir = argv[argv.indexOf('--chdir') + 1];
      assert.ok(!chdir.startsWith('/tmp/xrt-sandbox-x'), 'cargo would read the repository configuration from its working folder');
      assert.ok(!argv.includes('--unshare-net'));
      const writable = argv.flatMap((a, j) => (a === '--bind' ? [argv[j + 1]] : []));
      assert.deepEqual(writable.sort(), [path.join(home, '.package-cache'), path.join(home, 'git'), path.join(home, 'registry'), '/tmp/xrt-sandbox-x'].sort());
      assert.deepEqual(fetchArgv({ copyDir: '/c', projectRoot: '/c', bwrap: null }, '/x', env), ['cargo', 'fetch', '--manifest-path', '/c/Cargo.toml']);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it("passes the fetch toolchains, proxies and CA settings, not the host's secrets, and switches wrappers off", () => {
    const env = fetchEnv('/tmp/h', {
      PATH: '/usr/bin',
      HTTPS_PROXY: 'http://proxy:3128',
      SSL_CERT_FILE: '/etc/ca.pem',
      CARGO_REGISTRY_TOKEN: 'tok',
      AWS_SECRET_ACCESS_KEY: 'aws',
      SSH_AUTH_SOCK: '/run/agent',
      RUSTC_WRAPPER: '/usr/bin/sccache',
      CARGO_HOME: '/opt/cargo',
    });
    assert.equal(env.HTTPS_PROXY, 'http://proxy:3128');
    assert.equal(env.SSL_CERT_FILE, '/etc/ca.pem');
    assert.equal(env.CARGO_HOME, '/opt/cargo');
    assert.equal(env.HOME, '/tmp/h');
    assert.equal(env.RUSTC_WRAPPER, '');
    for (const k of ['CARGO_REGISTRY_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'SSH_AUTH_SOCK']) assert.equal(env[k], undefined, k);
  });

  it('names the cause and the fix of unresolvable dependencies from the trusted logs', () => {
    const cases: Array<[string, RegExp]> = [
      ['error: failed to get `outside` as a dependency of package `c v0.1.0 (/tmp/c)`\n\nCaused by:\n  failed to load source for dependency `outside`\n\nCaused by:\n  Unable to update /tmp/outside\n\nCaused by:\n  failed to read `/tmp/outside/Cargo.toml`\n\nCaused by:\n  No such file or directory (os error 2)', /path dependency is not inside the repository.*vendor it/],
      ['    Updating crates.io index\nerror: failed to select a version for the requirement `cfg-if = "=99.0.0"`\ncandidate versions found which didn\'t match: 1.0.4, 1.0.3', /no published version satisfies a requirement.*Cargo\.lock/],
      ['error: failed to download from `https://static.crates.io/crates/x/x-1.0.0.crate`\n\nCaused by:\n  [6] Couldn\'t resolve host name (Could not resolve host: static.crates.io)', /registry cannot be reached.*network access/],
      ['error: failed to get `s` as a dependency of package `c`\n\nCaused by:\n  failed to load source for dependency `s`\n\nCaused by:\n  Unable to update https://github.com/x/private.git\n\nCaused by:\n  failed to authenticate when downloading repository', /git dependency cannot be fetched/],
    ];
    for (const [log, want] of cases) {
      assert.ok(isResolutionFailure(log), log);
      const p = unresolvableProblem(log, 'REPO', { ok: false, output: log, argv: [], exitCode: 101, timedOut: false, durationMs: 1 });
      assert.equal(p.cause, 'dependencies-unresolvable');
      assert.match(p.reason, want);
      assert.match(p.reason, /xrepotest doctor --repo REPO/);
    }
    assert.equal(isResolutionFailure('error[E0425]: cannot find value `x` in this scope\nerror: could not compile `c`'), false);
  });
});

describe('Rust dependencies under the local executor (real cargo)', function () {
  this.timeout(600_000);
  const local = localCargoPerTest();

  it('a crate with a dev-dependency builds; its passing test passes, as natively; the next slot starts warm', async function () {
    const made = (local.crates.made = makeCrate('with_dev_dep', '[dependencies]\ncfg-if = { version = "1", optional = true }\n\n[dev-dependencies]\ncfg-if = "1"\n'));
    const task = await focalTask(made.repo);
    const test = passingTest('    cfg_if::cfg_if! { if #[cfg(test)] { const FROM_DEV_DEP: u32 = 6; } }\n    #[test]\n    fn test_digit_stats_dev_dep() { assert_eq!(digit_stats("123").1, FROM_DEV_DEP); }\n');
    const first = await evaluateTest(task, 'rust', test, { executor: local.executor(), repoDir: made.repo });
    if (first.environment) skipBecause(this, `crates.io is not reachable and cfg-if is not cached: ${first.environment.reason}`);
    assert.equal(first.score.compiled, true, first.score.reason ?? '');
    assert.equal(first.score.passed, true, first.score.reason ?? '');
    assert.equal(first.testReport.passed, 2);
    assert.ok(first.score.coverage.covered.length > 0);
    assert.ok(first.phases.some((p) => p.phase === 'warm-up'));

    // Native: the same test appended to the crate, `cargo test` in a copy of its own.
    const native = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-native-'));
    try {
      fs.cpSync(made.repo, native, { recursive: true });
      fs.appendFileSync(path.join(native, 'src', 'lib.rs'), '\n' + test);
      const r = spawnSync('cargo', ['test', '--lib', '--offline'], { cwd: native, encoding: 'utf8', env: { ...process.env, CARGO_TARGET_DIR: path.join(native, 'target') } });
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /test result: ok\. 2 passed/);
    } finally {
      fs.rmSync(native, { recursive: true, force: true });
    }

    const second = await evaluateTest(task, 'rust', test.replace('dev_dep()', 'dev_dep_again()'), { executor: local.executor(), repoDir: made.repo });
    assert.equal(second.score.passed, true, second.score.reason ?? '');
    assert.ok(!second.phases.some((p) => p.phase === 'warm-up'), 'the second slot built the warm target again');
    // The test's own compile started from the warm target: the dependency was not compiled again.
    const compile = second.phases.find((p) => p.phase === 'compile')!;
    assert.ok(!/"fresh":false[^\n]*cfg-if|Compiling cfg-if/.test(compile.output), 'cfg-if was compiled again');
  });

  it('an unresolvable dependency is an environment verdict naming cause and fix, never "does not compile"', async function () {
    const made = (local.crates.made = makeCrate('no_such_version', '[dev-dependencies]\ncfg-if = "=99.0.0"\n'));
    const task = await focalTask(made.repo);
    const ev = await evaluateTest(task, 'rust', passingTest(), { executor: local.executor(), repoDir: made.repo });
    assert.equal(ev.environment?.cause, 'dependencies-unresolvable', JSON.stringify(ev.score));
    assert.equal(ev.score.failure?.category, 'environment');
    assert.ok(!ev.phases.some((p) => p.phase === 'compile'), 'the test was compiled');
    assert.doesNotMatch(ev.score.reason ?? '', /does not compile/);
    assert.match(ev.environment!.reason, /cfg-if/);
  });

  it('a path dependency outside the repository: environment verdict, and doctor --repo reports it', async function () {
    const made = (local.crates.made = makeCrate('path_outside', '[dependencies]\nsibling = { path = "../sibling" }\n'));
    // The sibling exists next to the checkout, but a run copies only the repository.
    fs.mkdirSync(path.join(made.parent, 'sibling', 'src'), { recursive: true });
    fs.writeFileSync(path.join(made.parent, 'sibling', 'Cargo.toml'), '[package]\nname = "sibling"\nversion = "0.1.0"\nedition = "2021"\n');
    fs.writeFileSync(path.join(made.parent, 'sibling', 'src', 'lib.rs'), '');
    const task = await focalTask(made.repo);
    const ev = await evaluateTest(task, 'rust', passingTest(), { executor: local.executor(), repoDir: made.repo });
    assert.equal(ev.environment?.cause, 'dependencies-unresolvable', JSON.stringify(ev.score));
    assert.match(ev.environment!.reason, /path dependency is not inside the repository/);

    const doctor = await checkRepository(made.repo, { executor: local.executor(), languages: ['rust'] });
    assert.deepEqual(doctor.problems.map((p) => p.cause), ['dependencies-unresolvable']);
    assert.match(doctor.problems[0].reason, /path dependency/);
  });

  it("a rust-toolchain file naming a toolchain that is not installed: toolchain-missing, with the rustup command", async function () {
    if (!hasTool('rustup')) skipBecause(this, 'rustup is not installed');
    const made = (local.crates.made = makeCrate('pinned_toolchain', '', { 'rust-toolchain.toml': '[toolchain]\nchannel = "1.0.0"\n' }));
    const task = await focalTask(made.repo);
    const ev = await evaluateTest(task, 'rust', passingTest(), { executor: local.executor(), repoDir: made.repo });
    assert.equal(ev.environment?.cause, 'toolchain-missing', JSON.stringify(ev.score));
    assert.match(ev.environment!.reason, /rustup toolchain install 1\.0\.0/);
  });

  it('doctor --repo says the crate is fine only when its dependencies resolve and it builds', async function () {
    const made = (local.crates.made = makeCrate('doctor_ok', '[dev-dependencies]\ncfg-if = "1"\n'));
    const ok = await checkRepository(made.repo, { executor: local.executor(), languages: ['rust'] });
    if (ok.problems[0]?.cause === 'dependencies-unresolvable' && /reached/.test(ok.problems[0].reason)) skipBecause(this, ok.problems[0].reason);
    assert.deepEqual(ok.problems, []);
    assert.equal(ok.languages[0].build?.exitCode, 0);

    fs.writeFileSync(path.join(made.repo, 'src', 'lib.rs'), 'pub fn broken( {}\n');
    const broken = await checkRepository(made.repo, { executor: local.executor(), languages: ['rust'] });
    assert.deepEqual(broken.problems.map((p) => p.cause), ['project-does-not-build']);
  });
});
