import { strict as assert } from 'node:assert';
import { evaluateTest } from '../../src/engine/execute/evaluate';
import { LocalExecutor } from '../../src/engine/execute/local';
import { baselineTest } from '../../src/engine/generate/baseline';
import { type LanguageId } from '../../src/engine/parse/grammars';
import { FIXTURE_OF, TOOLS_OF } from '../helpers/evaluate';
import { fixture } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';
import { fixtureTasks } from '../helpers/fixture-tasks';

describe('baseline tests run with the local executor', function () {
  this.timeout(1_200_000);
  const executor = new LocalExecutor();
  /** Measured on the fixtures: 5 of 5 compile (and pass) in each language; one per language may slip. */
  const MIN_COMPILED: Partial<Record<LanguageId, number>> = { go: 4, rust: 4, php: 4, ruby: 4 };
  const compiledTotal = new Map<LanguageId, number>();

  for (const language of ['go', 'rust', 'php', 'ruby'] as const) {
    it(`${language}: the baseline tests of every fixture task compile and invoke the focal function`, async function () {
      const missing = TOOLS_OF[language].filter((t) => !hasTool(t, t === 'go' ? ['version'] : ['--version']));
      if (missing.length) skipBecause(this, `${missing.join(', ')} not installed here`);
      const tasks = await fixtureTasks(language);
      let compiled = 0;
      let passed = 0;
      let invoked = 0;
      const failures: string[] = [];
      for (const task of tasks) {
        const test = await baselineTest(task, language);
        const e = await evaluateTest(task, language, test, { executor, repoDir: fixture(FIXTURE_OF[language]) });
        if (e.score.compiled) compiled++;
        if (e.score.passed) passed++;
        if (e.score.invocation.invoked) invoked++;
        if (!e.score.passed) {
          const last = e.phases[e.phases.length - 1];
          failures.push(`${task.function_name}: ${e.score.reason}\n${last?.output.slice(-800) ?? ''}`);
        }
      }
      compiledTotal.set(language, compiled);
      process.stdout.write(`      ${language}: compiled ${compiled}/${tasks.length}, passed ${passed}/${tasks.length}, invoked ${invoked}/${tasks.length}\n`);
      for (const f of failures) process.stdout.write(`        not passed: ${f.split('\n')[0]}\n`);
      assert.equal(tasks.length, 5, 'the fixture keeps five tasks');
      assert.ok(compiled >= MIN_COMPILED[language]!, `compiled ${compiled}/${tasks.length}\n${failures.join('\n')}`);
      assert.equal(invoked, tasks.length, 'every baseline test calls the focal function');
    });
  }

  it('compiles for most fixture functions over Go, Rust, PHP and Ruby together', function () {
    if (compiledTotal.size < 4) skipBecause(this, 'not every language ran here');
    const compiled = [...compiledTotal.values()].reduce((a, b) => a + b, 0);
    process.stdout.write(`      compiled ${compiled} of 20\n`);
    assert.ok(compiled >= 18, `compiled ${compiled} of 20 (measured: 20)`);
  });
});
