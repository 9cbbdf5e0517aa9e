import { strict as assert } from 'node:assert';
import { DockerExecutor } from '../../src/engine/execute/docker';
import { evaluateTest, type Evaluation } from '../../src/engine/execute/evaluate';
import { LocalExecutor } from '../../src/engine/execute/local';
import type { LanguageId } from '../../src/engine/parse/grammars';
import { FIXTURE_OF, TOOLS_OF, fixtureTask, generatedTest, treeDigest } from '../helpers/evaluate';
import { engineForTests, languageImageForTests } from '../helpers/engine';
import { fixture } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';

/** What must not depend on where a test ran. */
function verdict(e: Evaluation): Record<string, unknown> {
  return {
    compiled: e.score.compiled,
    passed: e.score.passed,
    invoked: e.score.invocation.invoked,
    strict: e.score.invocation.strict,
    executable: e.score.coverage.executable,
    covered: e.score.coverage.covered,
    category: e.score.failure?.category ?? null,
    ran: e.testReport.ran,
    failed: e.testReport.failed + e.testReport.errored,
  };
}

const CASES = ['pass', 'fail', 'nocompile', 'noinvoke'] as const;
const LANGUAGES: LanguageId[] = ['go', 'rust', 'php', 'ruby', 'julia'];

describe('the docker executor scores like the local executor', function () {
  this.timeout(900_000);
  const local = new LocalExecutor();

  for (const language of LANGUAGES) {
    describe(language, () => {
      let docker: DockerExecutor;
      let image: string;
      before(async function () {
        const engine = await engineForTests(this);
        image = await languageImageForTests(this, language);
        docker = await DockerExecutor.create({ engine });
      });
      // Its reused containers end with the language's cases (later files check none is left).
      after(async () => docker?.close());

      for (const name of CASES) {
        it(`${name}: the same verdict in a container and on the host`, async function () {
          const missing = TOOLS_OF[language].filter((t) => !hasTool(t, t === 'go' ? ['version'] : ['--version']));
          if (missing.length) skipBecause(this, `the local side needs ${missing.join(', ')}`);
          const task = await fixtureTask(language);
          const repo = fixture(FIXTURE_OF[language]);
          const before = treeDigest(repo);
          const code = generatedTest(language, name);
          const inContainer = await evaluateTest(task, language, code, { executor: docker, repoDir: repo, image });
          const onHost = await evaluateTest(task, language, code, { executor: local, repoDir: repo });
          const logs = `\n--- docker:\n${inContainer.phases.map((p) => `$ ${p.argv.join(' ')} -> ${p.exitCode}\n${p.output.slice(-1200)}`).join('\n')}`;
          assert.deepEqual(verdict(inContainer), verdict(onHost), logs);
          assert.equal(inContainer.executor.kind, 'docker');
          assert.match(inContainer.executor.engine, /image /);
          assert.equal(treeDigest(repo), before, 'the fixture is unchanged');
        });
      }
    });
  }
});
