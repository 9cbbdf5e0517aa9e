import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { evaluateTest } from '../../src/engine/execute/evaluate';
import { localHostViewArgs } from '../../src/engine/execute/host-view';
import { hostCargoHome } from '../../src/engine/languages/rust/cargo-home';
import { LocalExecutor } from '../../src/engine/execute/local';
import { fetchDependencies, fetchEnv } from '../../src/engine/languages/rust/dependencies';
import { forgetWarmOutcomes } from '../../src/engine/languages/rust/warm-target';
import { treeDigest } from '../helpers/evaluate';
import { focalTask, makeCrate, passingTest, type MadeCrate } from '../helpers/rust-crates';
import { hasTool, skipBecause } from '../helpers/skip';

/**
 * A repository is hostile input: its Cargo.toml, build.rs, .cargo/config.toml and rust-toolchain.toml
 * must not turn the engine's trusted, networked `cargo fetch` into code execution or a write outside,
 * and a generated test must not poison the warm target folder later slots start from.
 */

const bwrap = ((): string | null => {
  const r = spawnSync('sh', ['-c', 'command -v bwrap'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
})();

/** A marker folder outside every copy, under the home folder (empty in the sandbox's view). */
function hostMarkerDir(): string {
  const base = path.join(os.homedir(), '.cache');
  fs.mkdirSync(base, { recursive: true });
  return fs.mkdtempSync(path.join(base, 'xrt-hostile-rust-mark-'));
}

/** A script that leaves a marker named after itself and its first argument, then fails. */
function evilScript(file: string, markDir: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `#!/bin/sh\ntouch "${markDir}/ran-$(basename "$0")"\necho pwned > "${markDir}/pwned"\nexit 1\n`, { mode: 0o755 });
}

/** A crate whose configuration tries every way to run code, or fetch elsewhere, during a fetch. */
function hostileCrate(markDir: string): MadeCrate {
  const made = makeCrate('hostile_fetch', '[dependencies]\ncfg-if = "1"\n', {
    'build.rs': `fn main() { std::fs::write("${markDir}/build-rs-ran", b"x").ok(); }\n`,
  });
  const evil = path.join(made.repo, 'evil.sh');
  evilScript(evil, markDir);
  // rustup runs a path toolchain's own cargo and rustc: the host would run the repository's binaries.
  evilScript(path.join(made.repo, 'tc', 'bin', 'cargo'), markDir);
  evilScript(path.join(made.repo, 'tc', 'bin', 'rustc'), markDir);
  fs.mkdirSync(path.join(made.repo, 'tc', 'lib'), { recursive: true });
  fs.writeFileSync(path.join(made.repo, 'rust-toolchain.toml'), `[toolchain]\npath = "${path.join(made.repo, 'tc')}"\n`);
  fs.mkdirSync(path.join(made.repo, '.cargo'), { recursive: true });
  fs.writeFileSync(
    path.join(made.repo, '.cargo', 'config.toml'),
    [
      '[build]',
      `rustc = "${evil}"`,
      `rustc-wrapper = "${evil}"`,
      '[target.x86_64-unknown-linux-gnu]',
      `runner = "${evil}"`,
      '[registry]',
      `global-credential-providers = ["cargo:token-from-stdout ${evil}"]`,
      '[source.crates-io]',
      'replace-with = "evil"',
      '[source.evil]',
      'registry = "sparse+http://127.0.0.1:9/index/"',
      '[net]',
      'git-fetch-with-cli = true',
      '[alias]',
      `fetch = "!${evil}"`,
      '',
    ].join('\n'),
  );
  return made;
}

function markers(dir: string): string[] {
  return fs.readdirSync(dir);
}

describe('hostile repositories and the trusted Rust fetch', function () {
  this.timeout(300_000);
  let made: MadeCrate | undefined;
  let markDir: string;

  beforeEach(function () {
    if (!hasTool('cargo')) skipBecause(this, 'cargo is not installed');
    markDir = hostMarkerDir();
  });
  afterEach(() => {
    if (made) fs.rmSync(made.parent, { recursive: true, force: true });
    made = undefined;
    fs.rmSync(markDir, { recursive: true, force: true });
  });

  it('the attack is real: cargo fetch run inside such a repository runs its scripts (control)', function () {
    if (!hasTool('rustup')) skipBecause(this, 'rustup is not installed (the path-toolchain attack needs its proxies)');
    made = hostileCrate(markDir);
    // What a naive engine would do: fetch in the repository with the host's environment.
    spawnSync('cargo', ['fetch'], { cwd: made.repo, env: fetchEnv(os.homedir()), encoding: 'utf8', timeout: 120_000 });
    assert.ok(markers(markDir).length > 0, 'the hostile configuration did not run anything: this test would prove nothing');
  });

  for (const confined of [true, false]) {
    it(`runs nothing of the repository, reads none of its configuration (${confined ? 'bubblewrap' : 'unconfined'})`, async function () {
      if (confined && !bwrap) skipBecause(this, 'bubblewrap is not installed');
      made = hostileCrate(markDir);
      const r = await fetchDependencies({ copyDir: made.repo, projectRoot: made.repo, bwrap: confined ? bwrap : null, hostView: localHostViewArgs(), timeoutMs: 120_000 });
      assert.deepEqual(markers(markDir), [], `the fetch ran the repository's code:\n${r.output}`);
      assert.ok(!r.argv.includes('--unshare-net'), 'the fetch needs the network');
      if (!r.ok) {
        // Only the network may stop it here (the repository's source replacement would, if it were read).
        assert.match(r.output, /(download|resolve|network|connect|index)/i, r.output);
        skipBecause(this, `crates.io is not reachable from here: ${r.output.split('\n').find((l) => /error/.test(l))}`);
      }
      const lock = fs.readFileSync(path.join(made.repo, 'Cargo.lock'), 'utf8');
      // Fetched from crates.io, not the replacement the repository configured.
      assert.match(lock, /name = "cfg-if"[\s\S]*?source = "registry\+https:\/\/github\.com\/rust-lang\/crates\.io-index"/);
    });
  }

  it('a git dependency on a private repository of the host is not fetched into the shared caches', async function () {
    if (!bwrap) skipBecause(this, 'bubblewrap is not installed');
    if (!hasTool('git')) skipBecause(this, 'git is not installed');
    // A "private" repository under the home folder, as a user's own projects are.
    const secret = fs.mkdtempSync(path.join(os.homedir(), '.cache', 'xrt-secret-crate-'));
    try {
      fs.mkdirSync(path.join(secret, 'src'));
      fs.writeFileSync(path.join(secret, 'Cargo.toml'), '[package]\nname = "xrtsecret"\nversion = "0.1.0"\nedition = "2021"\n');
      fs.writeFileSync(path.join(secret, 'src', 'lib.rs'), 'pub const SECRET: &str = "hunter2";\n');
      const git = (args: string[]): void => {
        const r = spawnSync('git', args, { cwd: secret, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 'x', GIT_AUTHOR_EMAIL: 'x@x', GIT_COMMITTER_NAME: 'x', GIT_COMMITTER_EMAIL: 'x@x' } });
        assert.equal(r.status, 0, r.stderr);
      };
      git(['init', '-q']);
      git(['add', '.']);
      git(['commit', '-qm', 'secret']);
      made = makeCrate('hostile_git', `[dependencies]\nxrtsecret = { git = "file://${secret}" }\n`);
      const before = fs.existsSync(path.join(hostCargoHome(), 'git', 'db')) ? fs.readdirSync(path.join(hostCargoHome(), 'git', 'db')) : [];
      const r = await fetchDependencies({ copyDir: made.repo, projectRoot: made.repo, bwrap, hostView: localHostViewArgs(), timeoutMs: 120_000 });
      assert.equal(r.ok, false, `the host's repository was fetched:\n${r.output}`);
      const after = fs.existsSync(path.join(hostCargoHome(), 'git', 'db')) ? fs.readdirSync(path.join(hostCargoHome(), 'git', 'db')) : [];
      assert.deepEqual(after.filter((d) => d.startsWith('xrtsecret') && !before.includes(d)), []);
    } finally {
      fs.rmSync(secret, { recursive: true, force: true });
    }
  });
});

describe('hostile code and the shared warm target', function () {
  this.timeout(600_000);
  let made: MadeCrate | undefined;
  let cacheRoot: string;
  let markDir: string;

  beforeEach(function () {
    if (!hasTool('cargo')) skipBecause(this, 'cargo is not installed');
    if (!bwrap) skipBecause(this, 'bubblewrap is not installed (the local executor confines nothing without it)');
    cacheRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-test-warm-'));
    markDir = hostMarkerDir();
    forgetWarmOutcomes();
  });
  afterEach(() => {
    if (made) fs.rmSync(made.parent, { recursive: true, force: true });
    made = undefined;
    fs.rmSync(cacheRoot, { recursive: true, force: true });
    fs.rmSync(markDir, { recursive: true, force: true });
  });

  it('a test that rewrites its target folder spoils only its own copy: the next slot builds and passes', async function () {
    made = makeCrate('poison_target', '[dev-dependencies]\ncfg-if = "1"\n');
    const task = await focalTask(made.repo);
    const executor = new LocalExecutor({ cacheRoot, isolation: 'bubblewrap' });
    const honest = passingTest('    cfg_if::cfg_if! { if #[cfg(test)] { const _X: u8 = 1; } }\n');
    const first = await evaluateTest(task, 'rust', honest, { executor, repoDir: made.repo });
    if (first.environment) skipBecause(this, `the crate's dependencies are not available here: ${first.environment.reason}`);
    assert.equal(first.score.passed, true, first.score.reason ?? '');
    const entries = fs.readdirSync(path.join(cacheRoot, 'rust')).filter((n) => /^[0-9a-f]{24}$/.test(n));
    assert.equal(entries.length, 1, 'one warm entry for the repository');
    const shared = path.join(cacheRoot, 'rust', entries[0]);
    const digest = treeDigest(path.join(shared, 'target'));

    // Overwrites every file of the target folder it can reach (dependencies' libraries, fingerprints,
    // the lock), plants a forged executable, and tries the shared entry's own path.
    const poison = `#[cfg(test)]
mod tests {
    use super::*;
    fn spoil(dir: &std::path::Path) {
        if let Ok(entries) = std::fs::read_dir(dir) {
            for e in entries.flatten() {
                let p = e.path();
                if p.is_dir() { spoil(&p); } else { let _ = std::fs::write(&p, b"poisoned"); }
            }
        }
    }
    #[test]
    fn test_digit_stats_poison() {
        assert_eq!(digit_stats("7"), (1, 7));
        let exe = std::env::current_exe().unwrap();
        let target = exe.parent().unwrap().parent().unwrap().parent().unwrap().to_path_buf();
        let _ = std::fs::write(target.join("debug").join("deps").join("forged"), b"#!/bin/sh\\necho ok\\n");
        let _ = std::fs::write("${shared}/target/poisoned", b"x");
        let _ = std::fs::write("${markDir}/escaped", b"x");
        spoil(&target);
    }
}
`;
    const second = await evaluateTest(task, 'rust', poison, { executor, repoDir: made.repo });
    assert.equal(second.score.compiled, true, second.score.reason ?? '');
    assert.equal(treeDigest(path.join(shared, 'target')), digest, 'the shared warm target changed');
    assert.deepEqual(markers(markDir), []);

    const third = await evaluateTest(task, 'rust', honest.replace('counts_and_sums', 'counts_and_sums_again'), { executor, repoDir: made.repo });
    assert.equal(third.score.compiled, true, third.score.reason ?? '');
    assert.equal(third.score.passed, true, third.score.reason ?? '');
    assert.ok(!third.phases.some((p) => p.phase === 'warm-up'), 'the warm target was built again');
  });

  it("a build script runs confined in the warm-up: no write outside, no network", async function () {
    made = makeCrate('hostile_build_rs', '[dev-dependencies]\ncfg-if = "1"\n', {
      'build.rs': `use std::io::Write;
fn main() {
    let _ = std::fs::write("${markDir}/build-rs-escaped", b"x");
    let net = std::net::TcpStream::connect("1.1.1.1:443").is_ok();
    let mut f = std::fs::File::create(std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("net")).unwrap();
    writeln!(f, "{}", net).unwrap();
    if net { let _ = std::fs::write("${markDir}/build-rs-network", b"x"); }
}
`,
    });
    const task = await focalTask(made.repo);
    const executor = new LocalExecutor({ cacheRoot, isolation: 'bubblewrap' });
    const r = await evaluateTest(task, 'rust', passingTest(), { executor, repoDir: made.repo });
    if (r.environment?.cause === 'dependencies-unresolvable') skipBecause(this, r.environment.reason);
    assert.equal(r.score.passed, true, r.score.reason ?? '');
    assert.ok(r.phases.some((p) => p.phase === 'warm-up'), 'the warm-up ran the build script');
    assert.deepEqual(markers(markDir), []);
  });
});
