import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DockerExecutor } from '../../src/engine/execute/docker';
import { evaluateTest, type Evaluation } from '../../src/engine/execute/evaluate';
import { LocalExecutor } from '../../src/engine/execute/local';
import { forgetWarmOutcomes } from '../../src/engine/execute/warm-environment';
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
      // Where the executor keeps warm-ups' builds across processes: this block's own.
      let cacheRoot: string;
      before(async function () {
        const engine = await engineForTests(this);
        image = await languageImageForTests(this, language);
        cacheRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-test-kept-'));
        docker = await DockerExecutor.create({ engine, cacheRoot });
      });
      // Its reused containers end with the language's cases (later files check none is left).
      after(async () => {
        await docker?.close();
        if (cacheRoot) fs.rmSync(cacheRoot, { recursive: true, force: true });
      });

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
          // Go's build cache stays in the container's image folder; Ruby's answer is replayed; Rust's kept target is copied from the host before the test exists.
          const warmUps = second.phases.filter((p) => p.phase === 'warm-up').map((p) => p.argv.join(' '));
          const said = (e: Evaluation): string => e.phases.filter((p) => p.phase === 'warm-up').map((p) => `[exit ${p.exitCode}] ${p.output.slice(-300)}`).join(' | ');
          const why = `the second slot warmed up again: ${warmUps.join(' | ')} (containers discarded: ${docker.discarded.join('; ') || 'none'}; first slot's warm-ups: ${said(first)}; second's: ${said(second)})`;
          assert.deepEqual(warmUps, [], why);
        });
      }

      if (language === 'rust') {
        /** The kept target's files and links, as bytes and modes (read on the host, never following a link). */
        const keptDigest = (): string => treeDigest(path.join(cacheRoot, 'rust'));

        it('rust: a new process (a new executor, nothing remembered) starts from the kept build: its first slot runs no warm-up, in a reused container or one of its own', async function () {
          const task = await fixtureTask(language);
          const repo = fixture(FIXTURE_OF[language]);
          const pass = generatedTest(language, 'pass');
          await evaluateTest(task, language, pass, { executor: docker, repoDir: repo, image });
          assert.ok(fs.readdirSync(path.join(cacheRoot, 'rust')).some((n) => fs.existsSync(path.join(cacheRoot, 'rust', n, 'ready.json'))), 'a ready entry is kept on the host');
          for (const reuse of [true, false]) {
            forgetWarmOutcomes();
            const restarted = await DockerExecutor.create({ engine: docker.engine, cacheRoot, reuse });
            try {
              const e = await evaluateTest(task, language, pass, { executor: restarted, repoDir: repo, image });
              assert.equal(e.score.passed, true, e.phases.map((p) => `${p.phase}: ${p.output.slice(-600)}`).join('\n'));
              assert.deepEqual(e.phases.map((p) => p.phase), ['compile', 'test', 'coverage'], `reuse ${reuse}: the build was not taken from the kept one`);
            } finally {
              await restarted.close();
            }
          }
        });

        it('rust: a test that spoils its own target and reaches for the kept build writes nothing into it; the next slot, in this process or a new one, starts from it unchanged', async function () {
          const task = await fixtureTask(language);
          const repo = fixture(FIXTURE_OF[language]);
          const pass = generatedTest(language, 'pass');
          await evaluateTest(task, language, pass, { executor: docker, repoDir: repo, image });
          const before = keptDigest();
          // As the test user, with its target writable to it: every file of it overwritten and a file
          // planted; then every folder mounted into its container but its sandbox and the system's, the
          // engine's cache folders by their usual names, and the old in-container keeping place.
          const spoil = [
            '#[cfg(test)]',
            'mod tests {',
            '    fn spoil(d: &std::path::Path, n: &mut usize) {',
            '        if let Ok(rd) = std::fs::read_dir(d) { for e in rd.flatten() { let p = e.path(); if p.is_dir() { spoil(&p, n) } else if std::fs::write(&p, b"spoiled").is_ok() { *n += 1 } } }',
            '    }',
            '    #[test]',
            '    fn spoils() {',
            '        let target = std::env::var("CARGO_TARGET_DIR").unwrap();',
            '        let mut n = 0;',
            '        spoil(std::path::Path::new(&target), &mut n);',
            '        let planted = std::fs::write(format!("{target}/planted"), b"x").is_ok();',
            '        let sandbox = std::env::current_dir().unwrap();',
            '        let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();',
            '        let mut elsewhere = 0;',
            '        let mut tried = vec![];',
            '        for line in mounts.lines() {',
            '            let at = line.split(\' \').nth(4).unwrap_or("/");',
            '            if ["/", "/proc", "/sys", "/dev"].iter().any(|s| at == *s || at.starts_with(&format!("{s}/"))) || sandbox.starts_with(at) || std::path::Path::new(at).starts_with(&sandbox) { continue; }',
            '            tried.push(at.to_string());',
            '            spoil(std::path::Path::new(at), &mut elsewhere);',
            '            if std::fs::write(format!("{at}/planted"), b"x").is_ok() { elsewhere += 1 }',
            '        }',
            // The cache's usual places (under the test user's HOME and root's, from /etc/passwd) and the old keeping place.
            '        let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();',
            '        let root_home = passwd.lines().find(|l| l.starts_with("root:")).and_then(|l| l.split(\':\').nth(5)).unwrap_or_default().to_string();',
            '        let mut dirs = vec!["/xrt/warm".to_string(), "/xrt".to_string()];',
            '        for home in [std::env::var("HOME").unwrap_or_default(), root_home] { dirs.push(format!("{home}/.cache/xrepotest/docker")); dirs.push(format!("{home}/.cache/xrepotest")); }',
            '        for dir in dirs {',
            '            spoil(std::path::Path::new(&dir), &mut elsewhere);',
            '            if std::fs::write(format!("{dir}/planted"), b"x").is_ok() { elsewhere += 1 }',
            '        }',
            '        assert!(n > 0 && planted && elsewhere == 0, "spoiled {n} files of its target (planted: {planted}), {elsewhere} elsewhere; mounts tried: {tried:?}");',
            '    }',
            '}',
          ].join('\n');
          const attack = await evaluateTest(task, language, spoil, { executor: docker, repoDir: repo, image });
          assert.equal(attack.score.passed, true, attack.phases.map((p) => p.output.slice(-800)).join('\n'));
          assert.equal(keptDigest(), before, 'the kept build changed while the attack ran');
          const after = await evaluateTest(task, language, pass, { executor: docker, repoDir: repo, image, keepSandbox: true });
          try {
            assert.equal(after.score.passed, true, after.phases.map((p) => `${p.phase}: ${p.output.slice(-800)}`).join('\n'));
            assert.deepEqual(after.phases.map((p) => p.phase), ['compile', 'test', 'coverage'], 'it started from the kept build');
            assert.ok(!fs.existsSync(path.join(after.sandboxDir!, '.xrt', 'target', 'planted')), 'the planted file reached a later slot');
          } finally {
            if (after.sandboxDir) fs.rmSync(after.sandboxDir, { recursive: true, force: true });
          }
          // A new process, from the same kept build.
          forgetWarmOutcomes();
          const restarted = await DockerExecutor.create({ engine: docker.engine, cacheRoot });
          try {
            const fresh = await evaluateTest(task, language, pass, { executor: restarted, repoDir: repo, image });
            assert.equal(fresh.score.passed, true);
            const onHost = await evaluateTest(task, language, pass, { executor: local, repoDir: repo });
            assert.deepEqual(verdict(fresh), verdict(onHost));
          } finally {
            await restarted.close();
          }
          assert.equal(keptDigest(), before, 'the kept build changed');
        });
      }
    });
  }
});
