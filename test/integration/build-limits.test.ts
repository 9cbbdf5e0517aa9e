import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { evaluateTest } from '../../src/engine/execute/evaluate';
import { LocalExecutor } from '../../src/engine/execute/local';
import { prepareEnvironment } from '../../src/engine/execute/prepare-environment';
import { DEFAULT_LIMITS, type PhaseCommand, type Session } from '../../src/engine/execute/types';
import { DockerExecutor } from '../../src/engine/execute/docker';
import { baseImageForTests, engineForTests, languageImageForTests } from '../helpers/engine';
import { forgetWarmOutcomes } from '../../src/engine/execute/warm-environment';
import { focalTask, localCargoPerTest, makeCrate, passingTest, type MadeCrate } from '../helpers/rust-crates';
import { hasTool, skipBecause } from '../helpers/skip';

/**
 * Issue 30: a build is measured against its progress, not a fixed clock. A command that keeps printing
 * outlives its silence limit; one that prints nothing is stopped as stalled; a build cut short is kept
 * and the next try continues it, and a healthy slow build is never called a project that does not build.
 */
const command = (argv: string[], cwd: string, over: Partial<PhaseCommand> = {}): PhaseCommand => ({ phase: 'warm-up', argv, cwd, env: {}, timeoutMs: 120_000, ...over });

/** Prints a line every 0.3 s for about 4 s: alive all along, and longer than a 1.5 s silence limit. */
const CHATTY = ['sh', '-c', 'i=0; while [ $i -lt 13 ]; do echo "built unit $i"; i=$((i+1)); sleep 0.3; done'];

/** `survivesKill`: the local executor kills the command only; the docker executor its container, and the session says so. */
function limitsBehave(open: (sandbox: string) => Promise<Session>, survivesKill: boolean): void {
  let sandbox: string;
  let session: Session;
  beforeEach(async () => {
    sandbox = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-build-limits-'));
    session = await open(sandbox);
  });
  afterEach(async () => {
    await session?.close();
    fs.rmSync(sandbox, { recursive: true, force: true });
  });

  it('a command that keeps printing outlives its silence limit and ends on its own', async () => {
    const r = await session.run(command(CHATTY, sandbox, { silenceMs: 1500 }));
    assert.equal(r.timedOut, false, r.output);
    assert.equal(r.exitCode, 0);
    assert.equal(r.stalled, undefined);
    assert.match(r.output, /built unit 12/);
    assert.ok(r.durationMs > 1500, 'it ran longer than its silence limit (else this test shows nothing)');
  });

  it('a command that prints nothing is stopped as stalled', async () => {
    const r = await session.run(command(['sh', '-c', 'echo starting; sleep 60'], sandbox, { silenceMs: 1500 }));
    assert.equal(r.timedOut, true);
    assert.equal(r.stalled, true);
    assert.equal(r.exitCode, null);
    assert.match(r.output, /starting/);
    if (survivesKill) assert.equal((await session.run(command(['echo', 'alive'], sandbox))).exitCode, 0);
    else await assert.rejects(session.run(command(['true'], sandbox)), /printed nothing for 1500 ms.*open a new session/);
  });

  it('the wall limit still ends a command that keeps printing forever', async () => {
    const r = await session.run(command(['sh', '-c', 'while true; do echo tick; sleep 0.2; done'], sandbox, { silenceMs: 1500, timeoutMs: 2500 }));
    assert.equal(r.timedOut, true);
    assert.equal(r.stalled, undefined, 'ended by its wall time, not by silence');
  });

  it('tells an observer the output as it arrives, and records the same output', async () => {
    const seen: string[] = [];
    const r = await session.run(command(CHATTY, sandbox, { onOutput: (c) => seen.push(c) }));
    assert.equal(seen.join(''), r.output);
  });
}

describe('build limits: progress, not a fixed clock', function () {
  this.timeout(300_000);

  describe('local executor', function () {
    before(function () {
      if (!hasTool('bwrap')) skipBecause(this, 'bubblewrap is not installed');
    });
    limitsBehave((sandbox) => new LocalExecutor({ isolation: 'bubblewrap' }).open({ language: 'go', sandboxDir: sandbox, limits: DEFAULT_LIMITS }), true);
  });

  describe('docker executor', function () {
    let executor: DockerExecutor;
    let image: string;
    before(async function () {
      const engine = await engineForTests(this);
      image = await baseImageForTests(this);
      executor = await DockerExecutor.create({ engine });
    });
    limitsBehave((sandbox) => executor.open({ language: 'go', sandboxDir: sandbox, limits: { ...DEFAULT_LIMITS, memoryBytes: 256 * 1024 ** 2 }, image }), false);
  });
});

/**
 * A chain of `n` path dependencies (each needs the one before it), each with a build script that sleeps
 * `seconds`: a build that takes at least n × seconds on any number of cores, while cargo names a crate
 * every `seconds` or so.
 */
function slowCrate(n: number, seconds: number): MadeCrate {
  const deps = Array.from({ length: n }, (_, i) => `dep${String(i).padStart(2, '0')}`);
  const files: Record<string, string> = {};
  deps.forEach((d, i) => {
    // A build-dependency: this crate's build script waits for the one before it (its script ran, its library built).
    const before = i ? `[build-dependencies]\n${deps[i - 1]} = { path = "../${deps[i - 1]}" }\n` : '';
    files[`deps/${d}/Cargo.toml`] = `[package]\nname = "${d}"\nversion = "0.1.0"\nedition = "2021"\nbuild = "build.rs"\n\n${before}`;
    files[`deps/${d}/build.rs`] = `fn main() { std::thread::sleep(std::time::Duration::from_millis(${seconds * 1000})); }\n`;
    files[`deps/${d}/src/lib.rs`] = `pub fn one() -> u32 { 1 }\n`;
  });
  return makeCrate('slow_build', `[dependencies]\n${deps[n - 1]} = { path = "deps/${deps[n - 1]}" }\n`, files);
}

describe('a slow first build of a real crate (local executor, real cargo)', function () {
  this.timeout(600_000);
  const local = localCargoPerTest();
  const executor = (): LocalExecutor => local.executor();

  it('outlasts the old fixed limit while it prints crates, and still scores', async () => {
    const made = (local.crates.made = slowCrate(10, 1));
    const task = await focalTask(made.repo);
    const silence = 6_000;
    const counted: number[] = [];
    const prepared = await prepareEnvironment(task, 'rust', { executor: executor(), repoDir: made.repo, timeouts: { compileMs: silence }, onProgress: (p) => counted.push(p.built) });
    assert.ok(prepared.ready, prepared.ready ? '' : prepared.problem.reason);
    assert.ok(prepared.durationMs > silence, `the build took ${prepared.durationMs} ms: longer than the ${silence} ms a fixed limit would have allowed`);
    assert.ok(Math.max(...counted) >= 10, `the crates counted as they compiled: ${counted.join(',')}`);
    // The slot after it finds the build done: no warm-up, a passing score.
    const e = await evaluateTest(task, 'rust', passingTest(), { executor: executor(), repoDir: made.repo, timeouts: { compileMs: silence } });
    assert.equal(e.score.passed, true, e.score.reason ?? '');
    assert.ok(!e.phases.some((p) => p.phase === 'warm-up'), 'the build ran again');
  });

  it('a build cut short is an unfinished build, not a broken project; the retry continues what it built', async () => {
    const made = (local.crates.made = slowCrate(12, 1));
    const task = await focalTask(made.repo);
    const cut = await evaluateTest(task, 'rust', passingTest(), { executor: executor(), repoDir: made.repo, timeouts: { buildMs: 6_000 } });
    assert.equal(cut.score.failure?.category, 'environment');
    assert.equal(cut.environment?.cause, 'build-unfinished', cut.environment?.reason);
    assert.match(cut.environment!.reason, /first build of slow_build was still going after \d+ s and was stopped/);
    assert.doesNotMatch(cut.environment!.reason, /does not build/);
    const firstBuild = cut.phases.find((p) => p.phase === 'warm-up')!;
    const builtFirst = [...firstBuild.output.matchAll(/Compiling (dep\d+) v/g)].map((m) => m[1]);
    assert.ok(builtFirst.length > 0, `the first try compiled some crates: ${firstBuild.output.slice(-500)}`);

    // The same process tries again (a retry is not answered with the remembered failure), from what was kept.
    const again = await evaluateTest(task, 'rust', passingTest(), { executor: executor(), repoDir: made.repo });
    assert.equal(again.score.passed, true, again.score.reason ?? '');
    const secondBuild = again.phases.find((p) => p.phase === 'warm-up')!;
    const finished = builtFirst.filter((d) => !new RegExp(`Compiling ${d} v`).test(secondBuild.output));
    assert.ok(finished.length > 0, `every crate the first try compiled was compiled again: ${builtFirst.join(', ')}`);
  });

  it('a first build cancelled half-way is kept, not remembered as a failure: the next try continues it', async () => {
    const made = (local.crates.made = slowCrate(8, 1));
    const task = await focalTask(made.repo);
    const controller = new AbortController();
    const built: string[] = [];
    // Cancelled once two crates have started (as the status bar's Cancel does).
    const first = prepareEnvironment(task, 'rust', {
      executor: executor(),
      repoDir: made.repo,
      signal: controller.signal,
      onProgress: (p) => {
        if (/Compiling (dep\d+)/.test(p.lastLine)) built.push(p.lastLine);
        if (p.built >= 3) controller.abort(new Error('cancelled'));
      },
    });
    await assert.rejects(first, /cancelled|abort/i);
    const again = await evaluateTest(task, 'rust', passingTest(), { executor: executor(), repoDir: made.repo });
    assert.equal(again.score.passed, true, again.score.reason ?? '');
    const rebuilt = again.phases.find((p) => p.phase === 'warm-up')!;
    assert.doesNotMatch(rebuilt.output, /Compiling dep00 v/, 'the first crate, built before the cancellation, was built again');
  });
});

describe('a slow first build in a container is kept on the host (docker executor, real cargo)', function () {
  this.timeout(900_000);
  let engine: Awaited<ReturnType<typeof engineForTests>>;
  let image: string;
  let cacheRoot: string;
  let made: MadeCrate | undefined;
  before(async function () {
    engine = await engineForTests(this);
    image = await languageImageForTests(this, 'rust');
  });
  beforeEach(() => {
    cacheRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-test-kept-'));
    forgetWarmOutcomes();
  });
  afterEach(() => {
    if (made) fs.rmSync(made.parent, { recursive: true, force: true });
    made = undefined;
    fs.rmSync(cacheRoot, { recursive: true, force: true });
    forgetWarmOutcomes();
  });
  /** A new executor with nothing remembered in the process: what a restarted editor or a new CLI run has. */
  const restarted = async (): Promise<DockerExecutor> => {
    forgetWarmOutcomes();
    return DockerExecutor.create({ engine, cacheRoot });
  };

  it('a build cut short by its limit is kept: a new process continues it and scores', async () => {
    made = slowCrate(12, 1);
    const task = await focalTask(made.repo);
    const first = await restarted();
    let builtFirst: string[];
    try {
      const cut = await evaluateTest(task, 'rust', passingTest(), { executor: first, repoDir: made.repo, image, timeouts: { buildMs: 8_000 } });
      assert.equal(cut.environment?.cause, 'build-unfinished', cut.environment?.reason ?? cut.score.reason ?? '');
      builtFirst = [...cut.phases.find((p) => p.phase === 'warm-up')!.output.matchAll(/Compiling (dep\d+) v/g)].map((m) => m[1]);
      assert.ok(builtFirst.length > 1, `the first try compiled some crates: ${builtFirst.join(', ')}`);
    } finally {
      await first.close();
    }
    const entries = fs.readdirSync(path.join(cacheRoot, 'rust')).filter((n) => fs.existsSync(path.join(cacheRoot, 'rust', n, 'partial.json')));
    assert.equal(entries.length, 1, 'an unfinished entry is kept on the host');
    const second = await restarted();
    try {
      const again = await evaluateTest(task, 'rust', passingTest(), { executor: second, repoDir: made.repo, image });
      assert.equal(again.score.passed, true, again.score.reason ?? '');
      const rebuilt = again.phases.find((p) => p.phase === 'warm-up')!;
      // The last crate the first try started may have been cut mid-compile; those before it were finished.
      const finished = builtFirst.slice(0, -1).filter((d) => !new RegExp(`Compiling ${d} v`).test(rebuilt.output));
      assert.deepEqual(finished, builtFirst.slice(0, -1), `crates the first try finished were compiled again:\n${rebuilt.output.slice(-1500)}`);
    } finally {
      await second.close();
    }
    const third = await restarted();
    try {
      const warm = await evaluateTest(task, 'rust', passingTest(), { executor: third, repoDir: made.repo, image });
      assert.equal(warm.score.passed, true, warm.score.reason ?? '');
      assert.ok(!warm.phases.some((p) => p.phase === 'warm-up'), 'a third process built again');
    } finally {
      await third.close();
    }
  });

  it('a first build cancelled half-way is kept: the next try continues it', async () => {
    made = slowCrate(8, 1);
    const task = await focalTask(made.repo);
    const executor = await restarted();
    try {
      const controller = new AbortController();
      const first = prepareEnvironment(task, 'rust', {
        executor,
        repoDir: made.repo,
        image,
        signal: controller.signal,
        onProgress: (p) => {
          if (p.built >= 3) controller.abort(new Error('cancelled'));
        },
      });
      await assert.rejects(first, /cancelled|abort/i);
    } finally {
      await executor.close();
    }
    const next = await restarted();
    try {
      const again = await evaluateTest(task, 'rust', passingTest(), { executor: next, repoDir: made.repo, image });
      assert.equal(again.score.passed, true, again.score.reason ?? '');
      assert.doesNotMatch(again.phases.find((p) => p.phase === 'warm-up')!.output, /Compiling dep00 v/, 'the first crate, built before the cancellation, was built again');
    } finally {
      await next.close();
    }
  });
});
