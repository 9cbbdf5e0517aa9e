import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findProjectRoot, focalPathInRepo } from '../../src/engine/execute/sandbox';
import { adapterFor, type LanguageId } from '../../src/engine/languages';
import { runNativeSteps } from '../../src/engine/languages/native-steps';
import { FIXTURE_OF, fixtureTask, generatedTest, TOOLS_OF, treeDigest } from '../helpers/evaluate';
import { fixture } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';
import { FOCAL_RS, focalTask, makeCrate, passingTest } from '../helpers/rust-crates';

/*
 * The adapters' `native` parts (the benchmark's reference: the language's own test command with
 * coverage, bench/execute.ts) on the fixtures: the test lands where the language puts tests, with the
 * round's marker; a passing test's commands exit 0 and leave a coverage report naming the focal file;
 * a failing test's do not exit 0; `restore` gives the copy its sources back.
 */

/** What each language's coverage left, as text that must name the focal file (or hold its counts). */
const REPORT: Record<Exclude<LanguageId, 'julia'>, (outDir: string, stdout: string[]) => string> = {
  go: (out) => fs.readFileSync(path.join(out, 'cover.out'), 'utf8'),
  // llvm-cov export writes the lcov report on its standard output.
  rust: (_out, stdout) => stdout[stdout.length - 1],
  php: (out) => fs.readFileSync(path.join(out, 'clover.xml'), 'utf8'),
  ruby: (out) => fs.readFileSync(path.join(out, 'coverage.txt'), 'utf8'),
};

/** A digest of the copy's sources: build folders the runs make (Rust's target/) are theirs to keep. */
function sourcesDigest(dir: string): string {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-native-digest-'));
  try {
    fs.cpSync(dir, path.join(scratch, 'c'), { recursive: true, filter: (src) => path.basename(src) !== 'target' });
    return treeDigest(path.join(scratch, 'c'));
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

describe('native test commands (the benchmark reference)', function () {
  this.timeout(600_000);

  for (const language of ['go', 'rust', 'php', 'ruby'] as const) {
    describe(language, () => {
      let copy: string;
      let outDir: string;
      beforeEach(function () {
        const missing = TOOLS_OF[language].filter((t) => !hasTool(t, t === 'go' ? ['version'] : ['--version']));
        if (missing.length) skipBecause(this, `no ${missing.join(', ')}`);
        copy = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-native-'));
        fs.cpSync(fixture(FIXTURE_OF[language]), copy, { recursive: true, filter: (src) => !['target', '.xrt'].includes(path.basename(src)) });
        outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-native-out-'));
      });
      afterEach(() => {
        if (copy) fs.rmSync(copy, { recursive: true, force: true });
        if (outDir) fs.rmSync(outDir, { recursive: true, force: true });
      });

      async function prepared(test: 'pass' | 'fail', marker: string) {
        const adapter = adapterFor(language);
        const task = await fixtureTask(language);
        const focalFile = path.join(copy, focalPathInRepo(task));
        const projectRoot = findProjectRoot(copy, focalFile, adapter.toolchain.manifests);
        const run = await adapter.native.prepare({ projectRoot, focalFile, task, testCode: adapter.native.mark(generatedTest(language, test), marker), outDir });
        return { run, focalFile };
      }

      it('runs a passing test with coverage (exit 0, a report on the focal file), the marker in the written test, and restores the sources', async () => {
        const before = sourcesDigest(copy);
        const { run, focalFile } = await prepared('pass', 'xrt-marker-one');
        assert.ok(fs.readFileSync(run.testFile, 'utf8').includes('xrt-marker-one'), 'the marker is in the test as written');
        const covered = await runNativeSteps(run.withCoverage);
        assert.ok(covered.ok, covered.ok ? '' : `${covered.failed.argv.join(' ')}: ${covered.failed.output}`);
        if (run.report) assert.ok(fs.existsSync(run.report), `the coverage report ${run.report}`);
        const report = REPORT[language](outDir, covered.stdout);
        if (language === 'ruby') assert.match(report, /^\[.*\d.*\]$/, 'line counts of the focal file, not nil');
        else assert.ok(report.includes(path.basename(focalFile)), `the report names ${path.basename(focalFile)}`);
        const plain = await runNativeSteps(run.plain);
        assert.ok(plain.ok, plain.ok ? '' : plain.failed.output);
        run.restore();
        assert.equal(sourcesDigest(copy), before);
      });

      it('does not exit 0 for a failing test', async () => {
        const { run } = await prepared('fail', 'xrt-marker-two');
        try {
          assert.equal((await runNativeSteps(run.withCoverage)).ok, false);
          assert.equal((await runNativeSteps(run.plain)).ok, false);
        } finally {
          run.restore();
        }
      });
    });
  }

  it('rust: a focal function behind a Cargo feature is built with it, so the native command times a run of the test, not of 0 tests', async function () {
    if (!hasTool('cargo')) skipBecause(this, 'no cargo');
    const made = makeCrate('gated_native', '[features]\nextra = []\n', { 'src/lib.rs': `#[cfg(feature = "extra")]\n${FOCAL_RS}` });
    const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-native-out-'));
    try {
      const task = await focalTask(made.repo);
      const focalFile = path.join(made.repo, 'src', 'lib.rs');
      const run = await adapterFor('rust').native.prepare({ projectRoot: made.repo, focalFile, task, testCode: passingTest(), outDir });
      const plain = await runNativeSteps(run.plain);
      assert.ok(plain.ok, plain.ok ? '' : plain.failed.output);
      assert.match(plain.stdout.join('\n'), /test result: ok\. 1 passed/, 'the test ran (built with --features=extra)');
      const covered = await runNativeSteps(run.withCoverage);
      assert.ok(covered.ok, covered.ok ? '' : covered.failed.output);
      assert.match(covered.stdout[covered.stdout.length - 1], /SF:.*lib\.rs/, 'coverage of the focal file');
      run.restore();
    } finally {
      fs.rmSync(made.parent, { recursive: true, force: true });
      fs.rmSync(outDir, { recursive: true, force: true });
    }
  });
});
