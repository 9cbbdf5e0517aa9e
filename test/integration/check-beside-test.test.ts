import { strict as assert } from 'node:assert';
import { evaluateTest } from '../../src/engine/execute/evaluate';
import { LocalExecutor } from '../../src/engine/execute/local';
import type { PhaseCommand, Session, SessionSpec } from '../../src/engine/execute/types';
import { adapterFor } from '../../src/engine/languages';
import type { LanguageId } from '../../src/engine/parse/grammars';
import { FIXTURE_OF, TOOLS_OF, fixtureTask, generatedTest } from '../helpers/evaluate';
import { fixture } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';

/** An executor that records the commands the engine hands it, with when each started and ended. */
function recording(): { executor: LocalExecutor; seen: Array<{ cmd: PhaseCommand; start: number; end: number }> } {
  const seen: Array<{ cmd: PhaseCommand; start: number; end: number }> = [];
  class Recording extends LocalExecutor {
    override async open(spec: SessionSpec): Promise<Session> {
      const session = await super.open(spec);
      return {
        run: async (cmd, signal) => {
          const entry = { cmd, start: Date.now(), end: 0 };
          seen.push(entry);
          const r = await session.run(cmd, signal);
          entry.end = Date.now();
          return r;
        },
        close: () => session.close(),
      };
    }
  }
  return { executor: new Recording(), seen };
}

/**
 * A test that rewrites its own file into one that does not parse, then dies before any test runs:
 * the check that follows must read the file as placed (the test phase can only read it).
 */
const SELF_BREAKING: Partial<Record<LanguageId, string>> = {
  php: `<?php
@file_put_contents(__FILE__, "<?php this is ( not php");
exit(3);
`,
  ruby: `begin
  File.write(__FILE__, "def ( not ruby")
rescue StandardError
end
exit!(3)
`,
};

/** Parses, but fails while loading: no test runs, so the runner's report cannot answer the check. */
const FAILS_AT_LOAD: Partial<Record<LanguageId, string>> = {
  php: `<?php
use PHPUnit\\Framework\\TestCase;
final class LoadFailsTest extends NoSuchBaseClassAnywhere
{
    public function testNothing(): void { $this->assertTrue(true); }
}
`,
  ruby: `raise 'fails while loading'
RSpec.describe 'nothing' do
  it('never runs') { expect(1).to eq(1) }
end
`,
};

/*
 * PHP's `php -l` and Ruby's `ruby -c` only check the test. PHP and Ruby parse a whole file before any
 * of it runs, so the test phase runs first and the check only when the runner's report does not answer
 * it (execute/evaluate.ts, placeTestThenCheckIfNeeded). The slot must score exactly as when they ran
 * one after the other: a failed check is the compile verdict and no test phase is recorded; a check
 * that the report answers is recorded as passed and says why; the check reads the file as placed.
 * Julia, which runs a file's top-level code as it parses it, keeps the check beside the test phase
 * (placeAndCheckBesideTest): exercised here with PHP's toolchain told to use it.
 */
describe('a compile check only where the test run does not answer it (local executor)', function () {
  this.timeout(300_000);
  const executor = new LocalExecutor();

  for (const language of ['php', 'ruby'] as LanguageId[]) {
    describe(language, () => {
      before(function () {
        for (const t of TOOLS_OF[language]) if (!hasTool(t)) skipBecause(this, `${t} is not installed`);
      });

      it("a test that does not compile: the check runs after the test phase, its verdict decides, no test phase recorded", async () => {
        const progress: string[] = [];
        const e = await evaluateTest(await fixtureTask(language), language, generatedTest(language, 'nocompile'), { executor, repoDir: fixture(FIXTURE_OF[language]), onPhase: (p) => progress.push(p) });
        assert.deepEqual(e.phases.map((p) => p.phase).filter((p) => p !== 'warm-up'), ['compile']);
        const [check] = e.phases.filter((p) => p.phase === 'compile');
        assert.notEqual(check.exitCode, 0);
        assert.match(check.output, /syntax error|Parse error|SyntaxError|unexpected/i, 'the checker\'s own message');
        assert.doesNotMatch(check.output, /not run/);
        assert.deepEqual(progress.filter((p) => p !== 'warm-up'), ['test', 'compile']);
        assert.equal(e.score.compiled, false);
        assert.equal(e.score.failure?.category, 'syntactic-compilation');
        assert.match(e.score.reason ?? '', /does not compile/);
      });

      for (const which of ['pass', 'fail'] as const) {
        it(`a ${which}ing test: its tests ran, so the check is recorded as passed without running`, async () => {
          const { executor: rec, seen } = recording();
          const e = await evaluateTest(await fixtureTask(language), language, generatedTest(language, which), { executor: rec, repoDir: fixture(FIXTURE_OF[language]) });
          assert.deepEqual(e.phases.map((p) => p.phase).filter((p) => p !== 'warm-up'), ['compile', 'test']);
          const [check] = e.phases.filter((p) => p.phase === 'compile');
          assert.equal(check.exitCode, 0);
          assert.match(check.output, /not run: the test phase loaded this file and ran \d+ tests? from it/);
          assert.equal(seen.filter((s) => s.cmd.phase === 'compile').length, 0, 'no check command reached the executor');
          assert.equal(e.score.compiled, true);
          assert.equal(e.score.passed, which === 'pass', e.score.reason ?? '');
          if (which === 'fail') assert.equal(e.score.failure?.category === 'syntactic-compilation', false);
        });
      }

      it('a test that parses but fails while loading: no test ran, so the check runs, passes, and the test phase stands', async () => {
        const { executor: rec, seen } = recording();
        const e = await evaluateTest(await fixtureTask(language), language, FAILS_AT_LOAD[language]!, { executor: rec, repoDir: fixture(FIXTURE_OF[language]) });
        assert.deepEqual(e.phases.map((p) => p.phase).filter((p) => p !== 'warm-up'), ['compile', 'test']);
        const check = seen.find((s) => s.cmd.phase === 'compile');
        const test = seen.find((s) => s.cmd.phase === 'test');
        assert.ok(check && test, 'both commands ran');
        assert.ok(test.end <= check.start, 'the check started after the test phase ended');
        assert.deepEqual(check.cmd.sandboxWritable, test.cmd.sandboxWritable, "the check has the test phase's read-only view");
        assert.equal(e.score.compiled, true, e.phases.map((p) => p.output).join('\n'));
        assert.equal(e.score.passed, false);
      });

      it('attack: a test that rewrites its own file into one that does not parse, then dies before any test: the check reads the file as placed', async () => {
        const e = await evaluateTest(await fixtureTask(language), language, SELF_BREAKING[language]!, { executor, repoDir: fixture(FIXTURE_OF[language]), keepSandbox: true });
        try {
          const check = e.phases.find((p) => p.phase === 'compile')!;
          assert.equal(check.exitCode, 0, `the check saw a changed file: ${check.output}`);
          assert.doesNotMatch(check.output, /not run/, 'no test ran, so the check did run');
          assert.equal(e.score.compiled, true);
          assert.equal(e.score.passed, false);
          assert.notEqual(e.score.failure?.category, 'syntactic-compilation');
        } finally {
          if (e.sandboxDir) (await import('node:fs')).rmSync(e.sandboxDir, { recursive: true, force: true });
        }
      });
    });
  }

  describe("beside the test phase (Julia's way), with PHP's toolchain told to use it", () => {
    const toolchain = adapterFor('php').toolchain;
    before(function () {
      for (const t of TOOLS_OF.php) if (!hasTool(t)) skipBecause(this, `${t} is not installed`);
      toolchain.checkOnlyWithoutTests = false;
    });
    after(() => {
      toolchain.checkOnlyWithoutTests = true;
    });

    it('a test that does not compile: the check\'s verdict, and no test phase recorded', async () => {
      const e = await evaluateTest(await fixtureTask('php'), 'php', generatedTest('php', 'nocompile'), { executor, repoDir: fixture(FIXTURE_OF.php) });
      assert.deepEqual(e.phases.map((p) => p.phase).filter((p) => p !== 'warm-up'), ['compile']);
      assert.equal(e.score.compiled, false);
      assert.equal(e.score.failure?.category, 'syntactic-compilation');
    });

    it('a passing test: the check runs on the read-only view, started before the test phase ends, then the test phase', async () => {
      const { executor: rec, seen } = recording();
      const e = await evaluateTest(await fixtureTask('php'), 'php', generatedTest('php', 'pass'), { executor: rec, repoDir: fixture(FIXTURE_OF.php) });
      assert.equal(e.score.passed, true, e.score.reason ?? '');
      assert.deepEqual(e.phases.map((p) => p.phase).filter((p) => p !== 'warm-up'), ['compile', 'test']);
      const check = seen.find((s) => s.cmd.phase === 'compile')!;
      const test = seen.find((s) => s.cmd.phase === 'test')!;
      assert.equal(e.phases.find((p) => p.phase === 'compile')!.exitCode, 0);
      assert.deepEqual(check.cmd.sandboxWritable, test.cmd.sandboxWritable, 'the same writable folders as the test phase');
      assert.ok(check.cmd.sandboxWritable?.length, 'a read-only copy but for those');
      assert.ok(test.start <= check.end, 'the test phase started before the check ended');
    });
  });
});
