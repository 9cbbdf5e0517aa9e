import { strict as assert } from 'node:assert';
import { evaluateTest } from '../../src/engine/execute/evaluate';
import { LocalExecutor } from '../../src/engine/execute/local';
import type { PhaseCommand, Session, SessionSpec } from '../../src/engine/execute/types';
import type { LanguageId } from '../../src/engine/parse/grammars';
import { FIXTURE_OF, TOOLS_OF, fixtureTask, generatedTest } from '../helpers/evaluate';
import { fixture } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';

/*
 * PHP's `php -l` and Ruby's `ruby -c` only check the test: with the local executor they run beside the
 * test phase (execute/evaluate.ts, placeAndCheckBesideTest). The slot must look exactly as when they
 * ran one after the other: a failed check is the compile verdict and no test phase is recorded; a
 * passed one is followed by the test phase's own result; and the check runs on the test phase's
 * read-only view, where a test that could run at the same time changes nothing it reads.
 */
describe('a compile check beside the test phase (local executor)', function () {
  this.timeout(300_000);
  const executor = new LocalExecutor();

  for (const language of ['php', 'ruby'] as LanguageId[]) {
    describe(language, () => {
      before(function () {
        for (const t of TOOLS_OF[language]) if (!hasTool(t)) skipBecause(this, `${t} is not installed`);
      });

      it('a test that does not compile: the check\'s verdict, and no test phase recorded', async () => {
        const e = await evaluateTest(await fixtureTask(language), language, generatedTest(language, 'nocompile'), { executor, repoDir: fixture(FIXTURE_OF[language]) });
        assert.deepEqual(e.phases.map((p) => p.phase).filter((p) => p !== 'warm-up'), ['compile']);
        assert.equal(e.score.compiled, false);
        assert.equal(e.score.failure?.category, 'syntactic-compilation');
        assert.match(e.score.reason ?? '', /does not compile/);
      });

      it('a passing test: the check, then the test phase, each with its own result', async () => {
        const phases: string[] = [];
        const e = await evaluateTest(await fixtureTask(language), language, generatedTest(language, 'pass'), { executor, repoDir: fixture(FIXTURE_OF[language]), onPhase: (p) => phases.push(p) });
        assert.deepEqual(e.phases.map((p) => p.phase).filter((p) => p !== 'warm-up'), ['compile', 'test']);
        assert.deepEqual(phases.filter((p) => p !== 'warm-up'), ['compile', 'test'], 'progress says compile, then test');
        const [check, test] = e.phases.filter((p) => p.phase !== 'warm-up');
        assert.equal(check.exitCode, 0, check.output);
        assert.notEqual(check.output, test.output, "the check's output is its own");
        assert.equal(e.score.passed, true, e.score.reason ?? '');
      });

      it('the check runs on the test phase\'s read-only view, started before the test phase ends', async () => {
        // The commands as the engine hands them to the executor, with when each started and ended.
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
        const e = await evaluateTest(await fixtureTask(language), language, generatedTest(language, 'pass'), { executor: new Recording(), repoDir: fixture(FIXTURE_OF[language]) });
        assert.equal(e.score.passed, true, e.score.reason ?? '');
        const check = seen.find((s) => s.cmd.phase === 'compile')!;
        const test = seen.find((s) => s.cmd.phase === 'test')!;
        assert.deepEqual(check.cmd.sandboxWritable, test.cmd.sandboxWritable, 'the same writable folders as the test phase');
        assert.ok(check.cmd.sandboxWritable?.length, 'a read-only copy but for those');
        assert.ok(test.start <= check.end, 'the test phase started before the check ended');
      });
    });
  }
});
