import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { strict as assert } from 'node:assert';
import { evaluateTest, type Evaluation } from '../../src/engine/execute/evaluate';
import { LocalExecutor } from '../../src/engine/execute/local';
import { forgetLineTracer, localLineTracer, tracerSupported } from '../../src/engine/tracer/build';
import { FIXTURE_OF, TOOLS_OF, fixtureTask } from '../helpers/evaluate';
import { fixture } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';

/**
 * Rust tests that go after the line tracer itself (src/engine/tracer): it runs the test binary under
 * ptrace, and its report is what the coverage is checked against. Each attack must end in a failure
 * or a tampering verdict, never a forged line, a pass with the forged coverage, or a hang; an honest
 * test that does odd things (forks a sleeper, execs, blocks SIGTRAP, asks to be traced) still passes,
 * with no tampering verdict.
 */

// Every counter of the binary's coverage section set to 1 (the attack of hostile-score.test.ts).
const FORGE_COUNTERS = `
    extern "C" {
        #[link_name = "__start___llvm_prf_cnts"]
        static mut FIRST: u64;
        #[link_name = "__stop___llvm_prf_cnts"]
        static mut LAST: u64;
    }

    fn forge() {
        unsafe {
            let mut at = std::ptr::addr_of_mut!(FIRST);
            let end = std::ptr::addr_of_mut!(LAST);
            while at < end {
                *at = 1;
                at = at.add(1);
            }
        }
    }
`;

// The counters forged, and a tracer report claiming every line written wherever a report could go:
// descriptor 3, every /proc/<pid>/fd/3 it can open, stdout and stderr.
const FORGED_REPORT = `#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::FromRawFd;
${FORGE_COUNTERS}
    #[test]
    fn scalene() {
        assert_eq!(classify_triangle(3.0, 4.0, 6.0), TriangleKind::Scalene);
        forge();
        let all: Vec<u32> = (19..=49).collect();
        let line = format!("{{\\"hit\\":{:?},\\"lines\\":{:?},\\"planted\\":74}}\\n", all, all);
        let mut three = unsafe { std::fs::File::from_raw_fd(3) };
        let _ = three.write_all(line.as_bytes());
        std::mem::forget(three);
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let fd3 = entry.path().join("fd").join("3");
            if let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(&fd3) {
                let _ = f.write_all(line.as_bytes());
            }
        }
        print!("{}", line);
        eprint!("{}", line);
    }
}
`;

// The counters forged, then the tracer killed (found by its name in /proc), so that no report exists.
const KILLS_TRACER = `#[cfg(test)]
mod tests {
    use super::*;

    extern "C" {
        fn syscall(n: i64, ...) -> i64;
    }
${FORGE_COUNTERS}
    #[test]
    fn scalene() {
        assert_eq!(classify_triangle(3.0, 4.0, 6.0), TriangleKind::Scalene);
        forge();
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let comm = std::fs::read_to_string(entry.path().join("comm")).unwrap_or_default();
            if comm.trim() == "linetrace" {
                let pid: i64 = entry.file_name().to_string_lossy().parse().unwrap_or(0);
                unsafe { syscall(62, pid, 9i64) };
            }
        }
    }
}
`;

// The counters forged, then the shell that runs the test binaries (the tracer's child) killed.
const KILLS_PARENT = `#[cfg(test)]
mod tests {
    use super::*;

    extern "C" {
        fn syscall(n: i64, ...) -> i64;
        fn getppid() -> i32;
    }
${FORGE_COUNTERS}
    #[test]
    fn scalene() {
        assert_eq!(classify_triangle(3.0, 4.0, 6.0), TriangleKind::Scalene);
        forge();
        unsafe { syscall(62, getppid() as i64, 9i64) };
    }
}
`;

// Honest, but odd: asks to be traced (refused: it already is), blocks SIGTRAP in its thread, forks a
// child that sleeps forever, and runs another program; then calls the focal function.
const ODD_BUT_HONEST = `#[cfg(test)]
mod tests {
    use super::*;

    extern "C" {
        fn ptrace(request: i64, ...) -> i64;
        fn pthread_sigmask(how: i32, set: *const u64, old: *mut u64) -> i32;
        fn fork() -> i32;
        fn sleep(seconds: u32) -> u32;
    }

    #[test]
    fn scalene_and_right() {
        unsafe {
            ptrace(0, 0i64, 0i64, 0i64);
            let set = [1u64 << 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
            pthread_sigmask(0, set.as_ptr(), std::ptr::null_mut());
            if fork() == 0 {
                loop {
                    sleep(1000);
                }
            }
        }
        assert!(std::process::Command::new("true").status().map(|s| s.success()).unwrap_or(true));
        assert_eq!(classify_triangle(3.0, 4.0, 6.0), TriangleKind::Scalene);
        assert_eq!(classify_triangle(3.0, 4.0, 5.0), TriangleKind::Right);
    }
}
`;

// A test that never ends: the phase's limit ends it, tracer and all.
const SLEEPS_FOREVER = `#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalene() {
        assert_eq!(classify_triangle(3.0, 4.0, 6.0), TriangleKind::Scalene);
        loop {
            std::thread::sleep(std::time::Duration::from_secs(1000));
        }
    }
}
`;

const executor = new LocalExecutor();

describe('hostile tests against the line tracer (Rust, local executor)', function () {
  this.timeout(600_000);

  async function score(ctx: Mocha.Context, code: string, testMs = 120_000): Promise<{ e: Evaluation; why: string }> {
    const missing = TOOLS_OF.rust.filter((t) => !hasTool(t));
    if (missing.length) skipBecause(ctx, `${missing.join(', ')} not installed here`);
    if (!hasTool('go', ['version'])) skipBecause(ctx, 'go is not installed: the line tracer cannot be built');
    if (!tracerSupported()) skipBecause(ctx, 'the line tracer runs on Linux x86-64 only');
    if (!executor.isolated) skipBecause(ctx, 'bubblewrap is not installed: the local executor cannot isolate (apt-get install bubblewrap)');
    const e = await evaluateTest(await fixtureTask('rust'), 'rust', code, { executor, repoDir: fixture(FIXTURE_OF.rust), timeouts: { testMs } });
    const why = `\n${e.phases.map((p) => `$ ${p.argv.join(' ')} -> ${p.exitCode}${p.timedOut ? ' (timed out)' : ''}\n${p.output.slice(-1500)}\nsealed: ${p.sealed ?? '(none)'}`).join('\n')}\nscore: ${JSON.stringify(e.score)}`;
    const test = e.phases.find((p) => p.phase === 'test');
    assert.ok(test, 'the test phase ran' + why);
    assert.match(test.argv[0], /linetrace$/, 'the test phase ran under the tracer' + why);
    if (process.env.XRT_SHOW_REASONS) process.stdout.write(`      ${e.score.failure?.rule}: ${e.score.reason}\n`);
    return { e, why };
  }

  function refused(e: Evaluation, why: string): void {
    assert.equal(e.score.compiled, true, 'the attack compiles (else it proves nothing)' + why);
    assert.equal(e.score.passed, false, 'no pass' + why);
    assert.equal(e.score.coverageRatio, 0, 'no coverage' + why);
  }

  it('a forged tracer report written to descriptor 3, to every /proc/<pid>/fd/3 and to the output is not believed', async function () {
    const { e, why } = await score(this, FORGED_REPORT);
    refused(e, why);
    assert.equal(e.score.failure?.rule, 'rust-coverage-rewritten', why);
  });

  it('a test that kills the tracer: tampering, not the forged coverage', async function () {
    const { e, why } = await score(this, KILLS_TRACER);
    refused(e, why);
    assert.equal(e.score.failure?.category, 'tampering', why);
  });

  it('a test that kills the shell running it (the tracer\'s child): a failure, not the forged coverage', async function () {
    const { e, why } = await score(this, KILLS_PARENT);
    refused(e, why);
  });

  it('an honest test that asks to be traced, blocks SIGTRAP, forks a sleeper and execs a program: passes, untouched by the tracer', async function () {
    const { e, why } = await score(this, ODD_BUT_HONEST);
    const test = e.phases.find((p) => p.phase === 'test')!;
    assert.equal(test.timedOut, false, 'the sleeper did not hold the phase to its limit' + why);
    assert.equal(e.score.failure, null, why);
    assert.equal(e.score.passed, true, why);
    assert.ok(e.score.coverage.covered.length > 0, why);
  });

  it('a test that sleeps forever is ended by the phase\'s limit: a failure', async function () {
    const { e, why } = await score(this, SLEEPS_FOREVER, 5_000);
    const test = e.phases.find((p) => p.phase === 'test')!;
    assert.equal(test.timedOut, true, why);
    assert.equal(e.score.passed, false, why);
  });

  it("the editor's executor does not hold a first score back for the tracer's first build: that score says so, later slots are traced", async function () {
    const missing = TOOLS_OF.rust.filter((t) => !hasTool(t));
    if (missing.length) skipBecause(this, `${missing.join(', ')} not installed here`, { tools: missing });
    if (!hasTool('go', ['version'])) skipBecause(this, 'go is not installed: the line tracer cannot be built', { tools: ['go'] });
    if (!tracerSupported()) skipBecause(this, 'the line tracer runs on Linux x86-64 only');
    const background = new LocalExecutor({ toolsInBackground: true });
    if (!background.isolated) skipBecause(this, 'bubblewrap is not installed: the local executor cannot isolate (apt-get install bubblewrap)', { tools: ['bwrap'] });
    // A machine where the tracer was never built: an empty cache folder, and this process's build forgotten.
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-linetrace-home-'));
    const before = process.env.XRT_LINETRACE_HOME;
    process.env.XRT_LINETRACE_HOME = home;
    forgetLineTracer();
    try {
      const task = await fixtureTask('rust');
      const honest = '#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn scalene() {\n        assert_eq!(classify_triangle(3.0, 4.0, 6.0), TriangleKind::Scalene);\n    }\n}\n';
      const run = () => evaluateTest(task, 'rust', honest, { executor: background, repoDir: fixture(FIXTURE_OF.rust), timeouts: { testMs: 120_000 } });
      const first = await run();
      const firstTest = first.phases.find((p) => p.phase === 'test');
      assert.ok(firstTest && !/linetrace$/.test(firstTest.argv[0]), 'the first slot did not wait for the build');
      assert.ok(first.placement?.notes.some((n) => /not cross-checked: the line tracer is still being built/.test(n)), JSON.stringify(first.placement?.notes));
      assert.equal(first.score.passed, true);
      // The build the first slot started goes on, and serves the next slots.
      assert.ok('dir' in (await localLineTracer()));
      const second = await run();
      assert.match(second.phases.find((p) => p.phase === 'test')?.argv[0] ?? '', /linetrace$/);
      assert.equal(second.score.passed, true);
      assert.ok(!second.placement?.notes.some((n) => /not cross-checked/.test(n)));
    } finally {
      if (before === undefined) delete process.env.XRT_LINETRACE_HOME;
      else process.env.XRT_LINETRACE_HOME = before;
      forgetLineTracer();
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
