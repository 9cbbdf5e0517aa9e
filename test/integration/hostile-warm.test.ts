import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { evaluateTest, type Evaluation } from '../../src/engine/execute/evaluate';
import { LocalExecutor } from '../../src/engine/execute/local';
import { forgetWarmOutcomes } from '../../src/engine/execute/warm-environment';
import type { LanguageId } from '../../src/engine/parse/grammars';
import { FIXTURE_OF, TOOLS_OF, fixtureTask, generatedTest, treeDigest } from '../helpers/evaluate';
import { fixture } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';

/**
 * The local executor keeps one warm environment per key (Go's build cache, Rust's target folder) and
 * shows it to every slot copy-on-write (docs/execution.md, "Warm environments"). A generated test is
 * hostile: whatever it does to the cache or target it sees — overwrite, add forged entries, replace a
 * file by a link, chmod, write the overlay's layers or the entry's host path — must leave the entry
 * byte for byte as it was and the next slot's score as it would have been. And a slot whose key is
 * ready runs no warm-up.
 */

/** A marker folder outside every copy, under the home folder (empty in the sandbox's view). */
function hostMarkerDir(): string {
  const base = path.join(os.homedir(), '.cache');
  fs.mkdirSync(base, { recursive: true });
  return fs.mkdtempSync(path.join(base, 'xrt-hostile-warm-mark-'));
}

/** The one warm entry's folder of a language (`<root>/<lang>/<key>/<content>`). */
function entryContent(cacheRoot: string, language: LanguageId, content: string): string {
  const dir = path.join(cacheRoot, language);
  const keys = fs.readdirSync(dir).filter((n) => /^[0-9a-f]{24}$/.test(n));
  assert.equal(keys.length, 1, `one warm entry for the fixture: ${keys.join(', ')}`);
  return path.join(dir, keys[0], content);
}

function scoreOf(e: Evaluation): unknown {
  const { compiled, passed, coverage, coverageRatio, failure } = e.score;
  return { compiled, passed, coverage, coverageRatio, failure };
}

function warmUps(e: Evaluation): number {
  return e.phases.filter((p) => p.phase === 'warm-up').length;
}

const GO_POISON = (lowerHost: string, markDir: string): string => `package inventory

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestStatusPoison(t *testing.T) {
	if (Item{Quantity: 5}).Status(10) != "ok" {
		t.Fatal("focal")
	}
	c := os.Getenv("GOCACHE")
	n := 0
	filepath.WalkDir(c, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		n++
		switch n % 3 {
		case 0:
			os.Chmod(p, 0o777)
			os.WriteFile(p, []byte("poison"), 0o777)
		case 1:
			os.Remove(p)
			os.Symlink("/etc/passwd", p)
		default:
			if f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0); err == nil {
				f.WriteString("poison")
				f.Close()
			}
		}
		return nil
	})
	// Forged entries in every shard of the cache, the overlay's own layers, the entry on the host.
	for i := 0; i < 256; i++ {
		os.WriteFile(filepath.Join(c, fmt.Sprintf("%02x", i), fmt.Sprintf("%02x00000000000000000000000000000000000000000000000000000000000000-a", i)), []byte("v1 forged"), 0o666)
	}
	layers := filepath.Join(filepath.Dir(c), ".overlay-"+filepath.Base(c))
	for _, p := range []string{filepath.Join(layers, "upper", "forged"), filepath.Join(layers, "work", "forged"), ${JSON.stringify(lowerHost)} + "/forged", ${JSON.stringify(markDir)} + "/escaped"} {
		os.WriteFile(p, []byte("x"), 0o666)
	}
	t.Logf("touched %d cache files", n)
}
`.replace('"io/fs"', '"fmt"\n\t"io/fs"');

const RUST_POISON = (lowerHost: string, markDir: string): string => `#[cfg(test)]
mod tests {
    use super::*;
    fn spoil(dir: &std::path::Path, n: &mut u32) {
        if let Ok(entries) = std::fs::read_dir(dir) {
            for e in entries.flatten() {
                let p = e.path();
                if p.is_dir() { spoil(&p, n); continue; }
                *n += 1;
                match *n % 3 {
                    0 => { let _ = std::fs::remove_file(&p); let _ = std::os::unix::fs::symlink("/etc/passwd", &p); }
                    1 => { use std::os::unix::fs::PermissionsExt; let _ = std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o000)); }
                    _ => { let _ = std::fs::write(&p, b"poisoned"); }
                }
            }
        }
    }
    #[test]
    fn classifies_poison() {
        assert_eq!(classify_triangle(3.0, 4.0, 5.0), TriangleKind::Right);
        let exe = std::env::current_exe().unwrap();
        let target = exe.parent().unwrap().parent().unwrap().parent().unwrap().to_path_buf();
        let _ = std::fs::write(target.join("debug").join(".fingerprint").join("forged"), b"{}");
        let layers = target.parent().unwrap().join(".overlay-target");
        for p in [layers.join("upper").join("forged"), layers.join("work").join("forged"), std::path::PathBuf::from("${lowerHost}/forged"), std::path::PathBuf::from("${markDir}/escaped")] {
            let _ = std::fs::write(p, b"x");
        }
        let mut n = 0;
        spoil(&target, &mut n);
        assert!(n > 0);
    }
}
`;

describe('hostile tests and the shared warm environments (local executor)', function () {
  this.timeout(900_000);
  let cacheRoot: string;
  let markDir: string;

  beforeEach(() => {
    cacheRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-test-warm-env-'));
    markDir = hostMarkerDir();
    forgetWarmOutcomes();
  });
  afterEach(() => {
    fs.rmSync(cacheRoot, { recursive: true, force: true });
    fs.rmSync(markDir, { recursive: true, force: true });
    forgetWarmOutcomes();
  });

  const cases: Array<{ language: LanguageId; content: string; poison: (lower: string, mark: string) => string }> = [
    { language: 'go', content: 'gocache', poison: GO_POISON },
    { language: 'rust', content: 'target', poison: RUST_POISON },
  ];
  for (const { language, content, poison } of cases) {
    it(`${language}: a test that spoils its view of the warm ${content} leaves the entry and the next slot's score unchanged; no warm-up once the key is ready`, async function () {
      const missing = TOOLS_OF[language].find((t) => !hasTool(t, t === 'go' ? ['version'] : undefined));
      if (missing) skipBecause(this, `${missing} is not installed`);
      if (!hasTool('bwrap')) skipBecause(this, 'bubblewrap is not installed (the local executor confines nothing without it)');
      const executor = new LocalExecutor({ cacheRoot, isolation: 'bubblewrap' });
      const task = await fixtureTask(language);
      const repoDir = fixture(FIXTURE_OF[language]);
      const honest = generatedTest(language, 'pass');

      const first = await evaluateTest(task, language, honest, { executor, repoDir });
      assert.equal(first.score.passed, true, first.score.reason ?? '');
      const lower = entryContent(cacheRoot, language, content);
      const digest = treeDigest(lower);

      // A second slot with the same key: no warm-up, the entry seen as it is.
      const again = await evaluateTest(task, language, honest + '\n', { executor, repoDir });
      assert.equal(warmUps(again), 0, `phases: ${again.phases.map((p) => p.phase).join(', ')}`);
      assert.deepEqual(scoreOf(again), scoreOf(first));

      const hostile = await evaluateTest(task, language, poison(lower, markDir), { executor, repoDir, keepSandbox: true });
      assert.equal(hostile.score.compiled, true, hostile.score.reason ?? '');
      if (executor.overlayMounts) {
        // The attack's writes went to the slot's own upper layer, which goes with its sandbox.
        const upper = path.join(hostile.sandboxDir!, '.xrt', `.overlay-${content}`, 'upper');
        assert.ok(fs.readdirSync(upper).length > 0, 'the overlay took the writes');
      }
      fs.rmSync(hostile.sandboxDir!, { recursive: true, force: true });
      assert.equal(warmUps(hostile), 0);
      assert.equal(treeDigest(lower), digest, `the warm ${content} changed`);
      assert.equal(fs.existsSync(path.join(lower, 'forged')), false);
      assert.deepEqual(fs.readdirSync(markDir), [], 'nothing written outside the sandbox');

      const after = await evaluateTest(task, language, honest + '\n\n', { executor, repoDir });
      assert.equal(warmUps(after), 0);
      assert.deepEqual(scoreOf(after), scoreOf(first), 'the next slot scores as before the attack');
      assert.equal(treeDigest(lower), digest);
    });
  }

  it("an overlay folder replaced by a link is the slot's failure, never a mount through the link", async function () {
    if (!hasTool('bwrap')) skipBecause(this, 'bubblewrap is not installed');
    const executor = new LocalExecutor({ cacheRoot, isolation: 'bubblewrap' });
    if (!executor.overlayMounts) skipBecause(this, 'no overlay can be mounted here (needs root)');
    const sandbox = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-sandbox-test-')));
    try {
      const lower = path.join(cacheRoot, 'lower');
      fs.mkdirSync(lower, { recursive: true });
      fs.writeFileSync(path.join(lower, 'warm'), 'warm');
      const dest = path.join(sandbox, '.xrt', 'gocache');
      const overlay = executor.sharedCache('go').share(lower, dest, { rewritesInPlace: false });
      assert.ok(overlay);
      const session = await executor.open({ language: 'go', sandboxDir: sandbox, limits: { memoryBytes: 512 * 1024 ** 2, cpus: 1, pids: 64, outputBytes: 65536 } });
      const cmd = { phase: 'test' as const, argv: ['cat', path.join(dest, 'warm')], cwd: sandbox, env: {}, timeoutMs: 30_000, overlays: [overlay] };
      const seen = await session.run(cmd);
      assert.equal(seen.exitCode, 0, seen.output);
      assert.equal(seen.output.trim(), 'warm', 'the phase sees the entry at the mount point');
      // What a hostile earlier phase might leave: the upper layer replaced by a link to a host folder.
      fs.rmSync(overlay.upper, { recursive: true });
      fs.symlinkSync(markDir, overlay.upper);
      const r = await session.run({ ...cmd, argv: ['sh', '-c', `echo x > ${dest}/planted`] });
      await session.close();
      assert.notEqual(r.exitCode, 0);
      assert.match(r.output, /replaced or removed/);
      assert.deepEqual(fs.readdirSync(markDir), [], 'nothing reached the link\'s target');
    } finally {
      fs.rmSync(sandbox, { recursive: true, force: true });
    }
  });

  it('unconfined (isolation none), a slot gets its own copy of the entry: no overlay, no shared inode', () => {
    const executor = new LocalExecutor({ cacheRoot, isolation: 'none' });
    const lower = path.join(cacheRoot, 'lower');
    fs.mkdirSync(path.join(lower, 'ab'), { recursive: true });
    fs.writeFileSync(path.join(lower, 'ab', 'entry-a'), 'warm');
    const target = path.join(cacheRoot, 'sandbox', '.xrt', 'gocache');
    for (const rewritesInPlace of [false, true]) {
      assert.equal(executor.sharedCache('go').share(lower, target, { rewritesInPlace }), null);
      assert.equal(fs.readFileSync(path.join(target, 'ab', 'entry-a'), 'utf8'), 'warm');
      assert.notEqual(fs.statSync(path.join(target, 'ab', 'entry-a')).ino, fs.statSync(path.join(lower, 'ab', 'entry-a')).ino, 'a copy, not a hard link root could change');
    }
  });

  it('a fresh process with the same key runs no warm-up (the entry persists on disk)', async function () {
    if (!hasTool('go', ['version'])) skipBecause(this, 'go is not installed');
    const task = await fixtureTask('go');
    const repoDir = fixture(FIXTURE_OF.go);
    const first = await evaluateTest(task, 'go', generatedTest('go', 'pass'), { executor: new LocalExecutor({ cacheRoot }), repoDir });
    assert.equal(warmUps(first), 1);
    forgetWarmOutcomes(); // as a new process would start
    const second = await evaluateTest(task, 'go', generatedTest('go', 'fail'), { executor: new LocalExecutor({ cacheRoot }), repoDir });
    assert.equal(warmUps(second), 0, `phases: ${second.phases.map((p) => p.phase).join(', ')}`);
    assert.equal(second.score.compiled, true);
    assert.equal(second.score.passed, false);
  });

  it("go: the warm-up runs none of the repository's code, so a repository cannot spoil the entry that later repositories' entries start from", async function () {
    if (!hasTool('go', ['version'])) skipBecause(this, 'go is not installed');
    // A repository whose test files plant and spoil what they find in GOCACHE when they run. Its warm
    // entry is the one every later Go entry of the family starts from (hard links, as root), and it is
    // sealed once ready: anything planted there would be in every later repository's build (a spoiled
    // `testing` archive forges their tests' results). Only the go tool may fill it.
    const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-hostile-warm-repo-'));
    try {
      fs.cpSync(fixture(FIXTURE_OF.go), repo, { recursive: true });
      fs.writeFileSync(
        path.join(repo, 'zz_warm_test.go'),
        `package inventory

import (
	"io/fs"
	"os"
	"path/filepath"
)

func init() {
	c := os.Getenv("GOCACHE")
	if c == "" {
		return
	}
	os.WriteFile(filepath.Join(c, "planted-by-the-repository"), []byte("x"), 0o644)
	filepath.WalkDir(c, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == "" && len(filepath.Base(p)) > 60 {
			os.WriteFile(p, []byte("poison"), 0o644)
		}
		return nil
	})
}
`,
      );
      const task = await fixtureTask('go');
      const e = await evaluateTest(task, 'go', generatedTest('go', 'pass'), { executor: new LocalExecutor({ cacheRoot }), repoDir: repo });
      assert.equal(warmUps(e), 1, `phases: ${e.phases.map((p) => p.phase).join(', ')}`);
      const entry = entryContent(cacheRoot, 'go', 'gocache');
      const files = (fs.readdirSync(entry, { recursive: true }) as string[]).filter((f) => fs.lstatSync(path.join(entry, f)).isFile());
      assert.ok(files.length > 100, `the warm-up filled the cache (${files.length} files)`);
      assert.deepEqual(files.filter((f) => f.includes('planted')), [], 'nothing the repository planted is in the entry');
      const spoiled = files.filter((f) => fs.statSync(path.join(entry, f)).size === 6 && fs.readFileSync(path.join(entry, f), 'utf8') === 'poison');
      assert.deepEqual(spoiled, [], 'no file of the entry was rewritten by the repository');
      assert.equal(e.score.passed, true, e.score.reason ?? '');
    } finally {
      fs.rmSync(repo, { recursive: true, force: true });
    }
  });
});
