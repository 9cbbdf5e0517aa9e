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

      if (language === 'go' || language === 'rust' || language === 'ruby') {
        it(`${language}: a reused container warms a checkout up once; later slots start from what it kept and score the same`, async function () {
          const task = await fixtureTask(language);
          const repo = fixture(FIXTURE_OF[language]);
          const code = generatedTest(language, 'pass');
          const first = await evaluateTest(task, language, code, { executor: docker, repoDir: repo, image });
          const second = await evaluateTest(task, language, code, { executor: docker, repoDir: repo, image });
          assert.deepEqual(verdict(second), verdict(first));
          assert.equal(second.score.passed, true);
          // Go's build cache stays in the container's image folder; Ruby's answer is replayed; Rust's warm target is copied from where the container keeps it.
          const warmUps = second.phases.filter((p) => p.phase === 'warm-up').map((p) => p.argv.join(' '));
          const said = (e: Evaluation): string => e.phases.filter((p) => p.phase === 'warm-up').map((p) => `[exit ${p.exitCode}] ${p.output.slice(-300)}`).join(' | ');
          const why = `the second slot warmed up again: ${warmUps.join(' | ')} (containers discarded: ${docker.discarded.join('; ') || 'none'}; first slot's warm-ups: ${said(first)}; second's: ${said(second)})`;
          if (language !== 'rust') assert.deepEqual(warmUps, [], why);
          else assert.ok(warmUps.length === 1 && / restore-target /.test(warmUps[0]), why);
        });
      }

      if (language === 'rust') {
        it('rust: a test that spoils its own target and reaches for the kept one changes nothing for the next slot', async function () {
          const task = await fixtureTask(language);
          const repo = fixture(FIXTURE_OF[language]);
          const pass = generatedTest(language, 'pass');
          await evaluateTest(task, language, pass, { executor: docker, repoDir: repo, image });
          // As the test user, with its target writable to it: every file of it overwritten, then the container's kept targets.
          const spoil = [
            '#[cfg(test)]',
            'mod tests {',
            '    fn spoil(d: &std::path::Path, n: &mut usize) {',
            '        if let Ok(rd) = std::fs::read_dir(d) { for e in rd.flatten() { let p = e.path(); if p.is_dir() { spoil(&p, n) } else if std::fs::write(&p, b"spoiled").is_ok() { *n += 1 } } }',
            '    }',
            '    #[test]',
            '    fn spoils() {',
            '        let mut n = 0;',
            '        spoil(std::path::Path::new(&std::env::var("CARGO_TARGET_DIR").unwrap()), &mut n);',
            '        let mut kept = 0;',
            '        spoil(std::path::Path::new("/xrt/warm"), &mut kept);',
            '        let planted = std::fs::write("/xrt/warm/planted", b"x").is_ok();',
            '        assert!(n > 0 && kept == 0 && !planted, "spoiled {n} files of its target, {kept} kept ones, planted: {planted}");',
            '    }',
            '}',
          ].join('\n');
          const attack = await evaluateTest(task, language, spoil, { executor: docker, repoDir: repo, image });
          assert.equal(attack.score.passed, true, attack.phases.map((p) => p.output.slice(-800)).join('\n'));
          const after = await evaluateTest(task, language, pass, { executor: docker, repoDir: repo, image });
          assert.equal(after.score.passed, true, after.phases.map((p) => `${p.phase}: ${p.output.slice(-800)}`).join('\n'));
          // It started from the container's kept target, which the attack could not reach.
          assert.ok(after.phases.some((p) => p.phase === 'warm-up' && p.argv.includes('restore-target') && p.exitCode === 0), after.phases.map((p) => p.argv.join(' ')).join('\n'));
          const onHost = await evaluateTest(task, language, pass, { executor: local, repoDir: repo });
          assert.deepEqual(verdict(after), verdict(onHost));
        });
      }
    });
  }
});
