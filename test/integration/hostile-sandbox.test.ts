import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { copyRepository } from '../../src/engine/execute/copy-repository';
import { confinesTests, DockerExecutor } from '../../src/engine/execute/docker';
import { evaluateTest, type Evaluation } from '../../src/engine/execute/evaluate';
import { LocalExecutor } from '../../src/engine/execute/local';
import { listSandboxDir, readSandboxFile, renameInSandbox, SandboxFileError, writeSandboxFile } from '../../src/engine/execute/safe-fs';
import { createSandbox, pidNamespace, reapStaleSandboxes, removeSandbox } from '../../src/engine/execute/sandbox';
import type { Executor, PhaseCommand, PhaseResult, Session, SessionSpec } from '../../src/engine/execute/types';
import type { LanguageId } from '../../src/engine/parse/grammars';
import { runMutationTesting } from '../../src/engine/mutate/run';
import type { TaskRecord } from '../../src/engine/tasks/record';
import { engineForTests, languageImageForTests } from '../helpers/engine';
import { fixtureTask, generatedTest, TOOLS_OF, treeDigest } from '../helpers/evaluate';
import { fixture } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';

/**
 * A generated test runs as the user, in a copy of the user's repository; the engine then reads its
 * reports and, during mutation testing, rewrites files in that copy. These attacks turn the copy
 * against the engine: links to host files where the engine reads or writes, FIFOs that block whoever
 * opens them, folders and huge files where a report is expected, and repositories whose own links
 * lead out of them. Each must end as a scored failure (or be harmless), within its timeouts, with
 * the host's files unchanged.
 */

function sha(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

function tmp(prefix: string): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

function mkfifo(p: string): void {
  const r = spawnSync('mkfifo', [p]);
  assert.equal(r.status, 0, `mkfifo ${p}: ${r.stderr}`);
}

/** Real disk blocks a file or tree uses (du), in KiB. */
function diskKiB(p: string): number {
  return Number(spawnSync('du', ['-sk', p], { encoding: 'utf8' }).stdout.split('\t')[0]);
}

/** A pid that belonged to a process that has exited. */
function deadPid(): number {
  const r = spawnSync('sh', ['-c', 'echo $$']);
  return Number(String(r.stdout).trim());
}

describe('hostile sandboxes: the safe reader and writer', () => {
  let root: string;
  let outside: string;
  let victim: string;
  beforeEach(() => {
    root = tmp('xrt-safefs-');
    outside = tmp('xrt-victim-');
    victim = path.join(outside, 'victim.txt');
    fs.writeFileSync(victim, 'precious\n');
    fs.mkdirSync(path.join(root, 'out'));
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });

  it('reads a regular file, and says null for one that is absent', () => {
    fs.writeFileSync(path.join(root, 'out', 'r.xml'), '<ok/>');
    assert.equal(readSandboxFile(root, 'out/r.xml'), '<ok/>');
    assert.equal(readSandboxFile(root, 'out/none.xml'), null);
    assert.equal(readSandboxFile(root, 'nofolder/none.xml'), null);
  });

  it('refuses a report replaced by a link to a host file, in the last or any earlier component', () => {
    fs.symlinkSync(victim, path.join(root, 'out', 'r.xml'));
    fs.symlinkSync(outside, path.join(root, 'linked'));
    assert.throws(() => readSandboxFile(root, 'out/r.xml'), SandboxFileError);
    assert.throws(() => readSandboxFile(root, 'linked/victim.txt'), /symbolic link/);
  });

  it('refuses a FIFO without blocking (no writer ever comes)', () => {
    mkfifo(path.join(root, 'out', 'r.xml'));
    assert.throws(() => readSandboxFile(root, 'out/r.xml'), /FIFO/);
    assert.throws(() => writeSandboxFile(root, 'out/r.xml', 'x'), /FIFO/);
  });

  it('refuses a folder and a 2 GB sparse file where a report is expected', () => {
    fs.mkdirSync(path.join(root, 'out', 'dir.xml'));
    assert.throws(() => readSandboxFile(root, 'out/dir.xml'), /folder/);
    fs.writeFileSync(path.join(root, 'out', 'sparse.xml'), '');
    fs.truncateSync(path.join(root, 'out', 'sparse.xml'), 2 * 1024 ** 3);
    assert.throws(() => readSandboxFile(root, 'out/sparse.xml'), /over the \d+-byte limit/);
    fs.writeFileSync(path.join(root, 'out', 'small.xml'), 'x'.repeat(100));
    assert.throws(() => readSandboxFile(root, 'out/small.xml', 10), /limit/);
  });

  it('refuses paths that leave the root: .., absolute, empty components', () => {
    for (const bad of ['../victim.txt', '/etc/passwd', 'out//r.xml', 'out/./r.xml', '']) {
      assert.throws(() => readSandboxFile(root, bad), SandboxFileError, bad);
      assert.throws(() => writeSandboxFile(root, bad, 'x'), SandboxFileError, bad);
    }
  });

  it('never writes through a link, a hard link or a linked folder: the victim is unchanged', () => {
    const before = sha(victim);
    fs.symlinkSync(victim, path.join(root, 'out', 'script.sh'));
    assert.throws(() => writeSandboxFile(root, 'out/script.sh', 'pwned'), /symbolic link/);
    fs.symlinkSync(outside, path.join(root, 'linked'));
    assert.throws(() => writeSandboxFile(root, 'linked/victim.txt', 'pwned'), /symbolic link/);
    assert.throws(() => writeSandboxFile(root, 'linked/new.txt', 'pwned'), /symbolic link/);
    // A second name of a file outside (possible on one file system without bind mounts in between).
    const hard = path.join(root, 'out', 'hard.txt');
    fs.linkSync(victim, hard);
    assert.throws(() => writeSandboxFile(root, 'out/hard.txt', 'pwned'), /hard links/);
    assert.equal(sha(victim), before);
    assert.equal(fs.existsSync(path.join(outside, 'new.txt')), false);
    writeSandboxFile(root, 'out/fresh.txt', 'ours');
    writeSandboxFile(root, 'out/fresh.txt', 'ours again');
    assert.equal(fs.readFileSync(path.join(root, 'out', 'fresh.txt'), 'utf8'), 'ours again');
  });

  it('renames only inside the root, moving a link and never its target', () => {
    fs.symlinkSync(outside, path.join(root, 'linked'));
    assert.throws(() => renameInSandbox(root, 'linked/victim.txt', 'out/v.txt'), /symbolic link/);
    fs.symlinkSync(victim, path.join(root, 'out', 'a_test.go'));
    renameInSandbox(root, 'out/a_test.go', 'out/a_test.go.aside');
    assert.equal(fs.lstatSync(path.join(root, 'out', 'a_test.go.aside')).isSymbolicLink(), true);
    assert.equal(fs.existsSync(victim), true);
    assert.deepEqual(listSandboxDir(root, 'out'), ['a_test.go.aside']);
    assert.throws(() => listSandboxDir(root, 'linked'), /symbolic link|not a folder/);
  });
});

describe('hostile sandboxes: copying a repository', () => {
  let base: string;
  let repo: string;
  let victim: string;
  beforeEach(() => {
    base = tmp('xrt-copyrepo-');
    repo = path.join(base, 'repo');
    fs.mkdirSync(path.join(repo, 'pkg-real'), { recursive: true });
    fs.writeFileSync(path.join(repo, 'pkg-real', 'code.txt'), 'code\n');
    fs.writeFileSync(path.join(repo, 'README'), 'readme\n');
    victim = path.join(base, 'victim.txt');
    fs.writeFileSync(victim, 'precious\n');
    fs.symlinkSync('pkg-real', path.join(repo, 'pkg'));
    fs.symlinkSync('../README', path.join(repo, 'pkg-real', 'readme-link'));
    fs.symlinkSync(victim, path.join(repo, 'absolute-out'));
    fs.symlinkSync('../victim.txt', path.join(repo, 'relative-out'));
    fs.symlinkSync('.', path.join(repo, 'here'));
    // Leaves the repository through another link (`here/..` is the repository's parent).
    fs.symlinkSync('here/../victim.txt', path.join(repo, 'chained-out'));
    fs.symlinkSync('missing', path.join(repo, 'dangling'));
    mkfifo(path.join(repo, 'fifo'));
    fs.writeFileSync(path.join(repo, 'sparse.bin'), '');
    fs.truncateSync(path.join(repo, 'sparse.bin'), 1024 ** 3);
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  it('copies links inside the repository verbatim and leaves out those leaving it, FIFOs and huge files', () => {
    const before = treeDigest(repo);
    const target = path.join(base, 'copy');
    fs.mkdirSync(target);
    const { skipped } = copyRepository(repo, target);
    assert.equal(fs.readlinkSync(path.join(target, 'pkg')), 'pkg-real', 'relative link copied verbatim, not made absolute');
    assert.equal(fs.readlinkSync(path.join(target, 'pkg-real', 'readme-link')), '../README');
    assert.equal(fs.readlinkSync(path.join(target, 'here')), '.');
    const left = new Map(skipped.map((s) => [s.path, s.reason]));
    assert.match(left.get('absolute-out') ?? '', /absolute/);
    assert.match(left.get('relative-out') ?? '', /leaving the repository/);
    assert.match(left.get('chained-out') ?? '', /leaving the repository/);
    assert.match(left.get('dangling') ?? '', /does not resolve/);
    assert.match(left.get('fifo') ?? '', /FIFO/);
    assert.match(left.get('sparse.bin') ?? '', /over the \d+-byte limit/);
    for (const name of ['absolute-out', 'relative-out', 'chained-out', 'fifo', 'sparse.bin']) {
      assert.equal(fs.lstatSync(path.join(target, name), { throwIfNoEntry: false }), undefined, name);
    }
    assert.ok(diskKiB(target) < 10 * 1024, `the copy uses ${diskKiB(target)} KiB`);
    // A write through the copied link lands in the copy, never in the checkout.
    fs.writeFileSync(path.join(target, 'pkg', 'placed.txt'), 'test');
    assert.equal(fs.existsSync(path.join(target, 'pkg-real', 'placed.txt')), true);
    assert.equal(treeDigest(repo), before, 'the checkout is unchanged');
    assert.equal(fs.readFileSync(victim, 'utf8'), 'precious\n');
  });
});

describe('hostile sandboxes: stale-sandbox reaping', () => {
  it('removes only dead sandboxes of its own PID namespace', () => {
    const parent = tmp('xrt-reap-');
    try {
      const dead = deadPid();
      const ns = pidNamespace();
      const mine = path.join(parent, `xrt-sandbox-ns${ns}-${dead}-aaaaaa`);
      const otherNs = path.join(parent, `xrt-sandbox-ns${Number(ns) + 1}-${dead}-bbbbbb`);
      const legacy = path.join(parent, `xrt-sandbox-${dead}-cccccc`);
      const alive = path.join(parent, `xrt-sandbox-ns${ns}-${process.pid}-dddddd`);
      for (const d of [mine, otherNs, legacy, alive]) fs.mkdirSync(d);
      assert.equal(reapStaleSandboxes(parent), 1);
      assert.equal(fs.existsSync(mine), false, 'a dead owner of our namespace');
      assert.equal(fs.existsSync(otherNs), true, 'a pid of another namespace says nothing about its owner');
      assert.equal(fs.existsSync(legacy), true, 'no namespace in the name: not judged');
      assert.equal(fs.existsSync(alive), true);
    } finally {
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });
});

/**
 * The local executor, with a hook run on the host right after a phase: what a process the test left
 * behind could do in a container (the docker executor keeps one per task) or an in-process hook after
 * the runner wrote its report. Both are out of the engine's hands; what the engine does next is not.
 */
class TamperingExecutor implements Executor {
  readonly kind = 'local' as const;
  // Host toolchains, but no shared warm target (Rust): each run builds in its own copy, as the hook expects.
  readonly capabilities = { hostToolchains: true };
  constructor(
    private readonly inner: LocalExecutor,
    private readonly after: (phase: PhaseCommand['phase'], sandboxDir: string, runs: number) => void,
  ) {}
  sharedCache(language: LanguageId) {
    return this.inner.sharedCache(language);
  }
  info(language: LanguageId) {
    return this.inner.info(language);
  }
  unavailable(language: LanguageId) {
    return this.inner.unavailable(language);
  }
  async open(spec: SessionSpec): Promise<Session> {
    const session = await this.inner.open(spec);
    let tests = 0;
    return {
      run: async (cmd: PhaseCommand, signal?: AbortSignal): Promise<PhaseResult> => {
        const r = await session.run(cmd, signal);
        if (cmd.phase === 'test') tests++;
        this.after(cmd.phase, spec.sandboxDir, tests);
        return r;
      },
      close: () => session.close(),
    };
  }
}

/** The report folder (`.xrt/out-…`) of a sandbox, as the host sees it. */
function outFolder(sandboxDir: string): string {
  const xrt = path.join(sandboxDir, '.xrt');
  const name = fs.readdirSync(xrt).find((n) => n.startsWith('out-'));
  assert.ok(name, 'a report folder exists');
  return path.join(xrt, name);
}

type Damage = 'fifo' | 'folder' | 'sparse' | 'link' | 'garbage';

function damage(file: string, how: Damage, victim: string): void {
  fs.rmSync(file, { recursive: true, force: true });
  if (how === 'fifo') mkfifo(file);
  else if (how === 'folder') fs.mkdirSync(file);
  else if (how === 'sparse') {
    fs.writeFileSync(file, '');
    fs.truncateSync(file, 2 * 1024 ** 3);
  } else if (how === 'link') fs.symlinkSync(victim, file);
  else fs.writeFileSync(file, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)));
}

const REPORT_OF: Record<Exclude<LanguageId, 'julia'>, string> = {
  go: 'cover.out',
  php: 'junit.xml',
  ruby: 'rspec.json',
  rust: 'coverage.lcov',
};

describe('hostile sandboxes: the engine after the test phase (local executor)', function () {
  this.timeout(600_000);
  let local: LocalExecutor;
  let outside: string;
  let victim: string;
  let victimHash: string;

  before(function () {
    local = new LocalExecutor();
    if (!local.isolated) skipBecause(this, 'bubblewrap is not installed: the local executor cannot isolate (apt-get install bubblewrap)');
  });
  beforeEach(() => {
    outside = tmp('xrt-victim-');
    victim = path.join(outside, 'victim.txt');
    // Shaped like a report of every kind, so a reader that followed the link would find a "pass".
    fs.writeFileSync(victim, 'mode: count\nexample.com/inventory/item.go:7.40,9.2 2 1\n');
    victimHash = sha(victim);
  });
  afterEach(() => {
    assert.equal(sha(victim), victimHash, 'the victim outside the sandbox is unchanged');
    fs.rmSync(outside, { recursive: true, force: true });
  });

  function needs(ctx: Mocha.Context, language: LanguageId): void {
    for (const tool of TOOLS_OF[language]) if (!hasTool(tool, tool === 'go' ? ['version'] : ['--version'])) skipBecause(ctx, `${tool} is not installed`);
  }

  async function damaged(language: Exclude<LanguageId, 'julia'>, how: Damage): Promise<Evaluation> {
    const task = await fixtureTask(language);
    const repo = fixture(task.file_path.split('/')[0]);
    const before = treeDigest(repo);
    const executor = new TamperingExecutor(local, (phase, dir) => {
      // After the last phase that writes it: the report is in place, and now it is not.
      const last = language === 'rust' ? 'coverage' : 'test';
      if (phase === last) damage(path.join(outFolder(dir), REPORT_OF[language]), how, victim);
    });
    const e = await evaluateTest(task, language, generatedTest(language, 'pass'), { executor, repoDir: repo, timeouts: { testMs: 120_000 } });
    assert.equal(treeDigest(repo), before, "the user's checkout is unchanged");
    return e;
  }

  for (const how of ['fifo', 'folder', 'sparse', 'link'] as const) {
    it(`go: the cover profile replaced by a ${how} is the slot's failure, and the run ends`, async function () {
      needs(this, 'go');
      const e = await damaged('go', how);
      assert.equal(e.score.passed, false);
      assert.equal(e.score.coverageRatio, 0, 'no coverage from a damaged profile');
      assert.match(e.score.reason ?? '', /could not use the test's sandbox: .*cover\.out/);
    });
  }

  it('go: garbage in the cover profile gives no coverage and no crash', async function () {
    needs(this, 'go');
    const e = await damaged('go', 'garbage');
    assert.equal(e.score.coverageRatio, 0);
    assert.equal(e.error, undefined);
  });

  it('php: the junit report replaced by a FIFO is the slot\'s failure', async function () {
    needs(this, 'php');
    const e = await damaged('php', 'fifo');
    assert.equal(e.score.passed, false);
    assert.match(e.score.reason ?? '', /junit\.xml is a FIFO/);
  });

  it('ruby: the rspec report replaced by a link to a host file is the slot\'s failure', async function () {
    needs(this, 'ruby');
    const e = await damaged('ruby', 'link');
    assert.equal(e.score.passed, false);
    assert.match(e.score.reason ?? '', /rspec\.json.*symbolic link/);
  });

  it('ruby: garbage in the rspec report is the slot\'s failure, not a crash', async function () {
    needs(this, 'ruby');
    const e = await damaged('ruby', 'garbage');
    assert.equal(e.score.passed, false);
    assert.ok(e.score.reason, 'a reason');
  });

  it('rust: the lcov report replaced by a folder is the slot\'s failure', async function () {
    needs(this, 'rust');
    const e = await damaged('rust', 'folder');
    assert.equal(e.score.passed, false);
    assert.equal(e.score.coverageRatio, 0);
    assert.match(e.score.reason ?? '', /coverage\.lcov is a folder/);
  });

  it("rust: the engine's coverage script replaced by a link before it is written: nothing is written through it", async function () {
    needs(this, 'rust');
    const task = await fixtureTask('rust');
    const repo = fixture('geometry-rs');
    const executor = new TamperingExecutor(local, (phase, dir) => {
      if (phase === 'test') fs.symlinkSync(victim, path.join(dir, '.xrt', 'coverage.sh'));
    });
    const e = await evaluateTest(task, 'rust', generatedTest('rust', 'pass'), { executor, repoDir: repo });
    assert.equal(e.score.passed, false);
    assert.match(e.score.reason ?? '', /coverage\.sh.*symbolic link/);
  });

  it('go: a test replacing its report folder and scratch files is stopped by the read-only copy', async function () {
    needs(this, 'go');
    const task = await fixtureTask('go');
    const repo = fixture('inventory-go');
    // The report folder's name is in the runner's arguments (the test binary's own, or go test's); the
    // test finds it and the copy's root, and tries to replace the engine's script and test binary
    // there (they run again for every mutant; the events are read by the engine, outside).
    const code = `package inventory

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func profileIn(args []string) string {
	for _, a := range args {
		for _, flag := range []string{"-coverprofile=", "-test.coverprofile="} {
			if strings.HasPrefix(a, flag) {
				return strings.TrimPrefix(a, flag)
			}
		}
	}
	return ""
}

func TestTamper(t *testing.T) {
	pid := os.Getppid()
	profile := profileIn(os.Args)
	for i := 0; i < 8 && pid > 1 && profile == ""; i++ {
		raw, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		profile = profileIn(strings.Split(string(raw), "\\x00"))
		stat, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		f := strings.Fields(string(stat))
		if len(f) < 4 {
			break
		}
		pid, _ = strconv.Atoi(f[3])
	}
	if profile == "" {
		t.Fatal("no profile path found")
	}
	xrt := filepath.Dir(filepath.Dir(profile))
	var errs []string
	if err := os.Symlink(${JSON.stringify(victim)}, filepath.Join(xrt, "pkg.test.link")); err != nil {
		errs = append(errs, err.Error())
	}
	if err := os.Rename(filepath.Join(xrt, ".."), filepath.Join(xrt, "..", "moved")); err != nil {
		errs = append(errs, err.Error())
	}
	if err := os.WriteFile("item.go", []byte("package inventory\\n"), 0o644); err != nil {
		errs = append(errs, err.Error())
	}
	for _, tool := range []string{"go-test.sh", "pkg.test"} {
		if err := os.WriteFile(filepath.Join(xrt, tool), []byte("#!/bin/sh\\necho forged\\n"), 0o755); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		t.Fatalf("blocked: %s", strings.Join(errs, "; "))
	}
}
`;
    const before = treeDigest(repo);
    const e = await evaluateTest(task, 'go', code, { executor: local, repoDir: repo, keepSandbox: true });
    try {
      assert.equal(treeDigest(repo), before);
      assert.equal(e.score.passed, false);
      // Its code also shows the tricks (reading the runner's command line), so the slot may be failed
      // as tampering first; the writes themselves must have met the read-only copy.
      assert.match(e.phases.find((p) => p.phase === 'test')?.output ?? '', /read-only file system/);
      const dir = e.sandboxDir!;
      assert.equal(fs.readFileSync(path.join(dir, 'item.go'), 'utf8'), task.file_content, 'the focal file in the copy is the task\'s');
      for (const tool of ['go-test.sh', 'pkg.test']) {
        assert.doesNotMatch(fs.readFileSync(path.join(dir, '.xrt', tool)).subarray(0, 64).toString('latin1'), /forged/, `the engine's ${tool} is not replaced`);
      }
    } finally {
      if (e.sandboxDir) fs.rmSync(e.sandboxDir, { recursive: true, force: true });
    }
  });

  it('go, mutation testing: the focal file replaced by a link to a host file is never written through', async function () {
    needs(this, 'go');
    const task = await fixtureTask('go');
    const repo = fixture('inventory-go');
    const before = treeDigest(repo);
    const executor = new TamperingExecutor(local, (phase, dir, tests) => {
      if (phase === 'test' && tests === 1) {
        fs.rmSync(path.join(dir, 'item.go'));
        fs.symlinkSync(victim, path.join(dir, 'item.go'));
      }
    });
    const result = await runMutationTesting(task, 'go', generatedTest('go', 'pass'), { executor, repoDir: repo, maxMutants: 3 });
    assert.equal(treeDigest(repo), before);
    assert.match(result.error ?? '', /item\.go.*symbolic link/);
    assert.equal(result.score, 0);
  });

  it("go: a repository whose package is reached through a link: placement and the rename stay in the copy", async function () {
    needs(this, 'go');
    const base = tmp('xrt-linkrepo-');
    try {
      const repo = path.join(base, 'shop');
      const real = path.join(repo, 'real');
      fs.mkdirSync(real, { recursive: true });
      fs.copyFileSync(fixture('inventory-go/go.mod'), path.join(repo, 'go.mod'));
      for (const f of fs.readdirSync(fixture('inventory-go'))) {
        if (f.endsWith('.go')) fs.copyFileSync(fixture(`inventory-go/${f}`), path.join(real, f));
      }
      fs.symlinkSync('real', path.join(repo, 'pkg'));
      fs.symlinkSync(victim, path.join(repo, 'victim-link'));
      fs.symlinkSync('../../' + path.basename(outside), path.join(repo, 'outside-link'));
      const task: TaskRecord = { ...(await fixtureTask('go')), file_path: 'shop/pkg/item.go' };
      const before = treeDigest(repo);
      const checkoutTests = sha(path.join(real, 'inventory_test.go'));
      // The hand-written passing test redeclares TestStatus: ours is renamed, the package's tests stay.
      const e = await evaluateTest(task, 'go', generatedTest('go', 'pass'), { executor: local, repoDir: repo });
      assert.equal(treeDigest(repo), before, 'nothing placed, renamed or written in the checkout');
      assert.equal(sha(path.join(real, 'inventory_test.go')), checkoutTests);
      assert.deepEqual(fs.readdirSync(real).filter((f) => f.includes('xrepotest') || f.includes('aside')), []);
      assert.equal(e.score.compiled, true, e.phases.map((p) => p.output).join('\n'));
      assert.equal(e.score.passed, true, e.score.reason ?? '');
      assert.ok(e.placement?.notes.some((n) => /TestStatus -> TestStatus_xrt1/.test(n)), 'our test was renamed, in the copy');
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });

  it('a sparse 1 GiB file in a repository is not copied into the sandbox', async function () {
    const base = tmp('xrt-sparserepo-');
    try {
      const repo = path.join(base, 'inventory-go');
      fs.cpSync(fixture('inventory-go'), repo, { recursive: true });
      fs.writeFileSync(path.join(repo, 'big.bin'), '');
      fs.truncateSync(path.join(repo, 'big.bin'), 1024 ** 3);
      const task = await fixtureTask('go');
      const sandbox = createSandbox(repo, task, ['go.mod']);
      try {
        assert.equal(fs.existsSync(path.join(sandbox.dir, 'big.bin')), false);
        assert.ok(sandbox.skipped.some((s) => s.path === 'big.bin'));
        assert.ok(diskKiB(sandbox.dir) < 10 * 1024, `the sandbox uses ${diskKiB(sandbox.dir)} KiB`);
      } finally {
        removeSandbox(sandbox);
      }
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });
});

/**
 * During mutation testing the engine rewrites the focal file between runs. A test that replaces it by
 * a link to a host file during a mutant's run (it tells the clean run from a mutant's by the focal
 * file's content, kept in its scratch folder) would make the engine's restore write through it. Under
 * the docker executor the container's link is followed on the host, so this is a real attack there
 * where the copy is writable to the test (engine not root); under the local executor, and the docker
 * executor run as root, the copy is read-only to the test and the attack fails inside the test.
 */
for (const kind of ['local', 'docker'] as const) describe(`hostile sandboxes: mutation testing against a swapped focal file (${kind} executor)`, function () {
  this.timeout(1_200_000);
  let executor: Executor;
  let image: string | undefined;
  let outside: string;

  before(async function () {
    if (!hasTool('go', ['version'])) skipBecause(this, 'go is not installed');
    if (kind === 'local') {
      const local = new LocalExecutor();
      if (!local.isolated) skipBecause(this, 'bubblewrap is not installed');
      executor = local;
    } else {
      const engine = await engineForTests(this);
      image = await languageImageForTests(this, 'go');
      executor = await DockerExecutor.create({ engine });
    }
  });
  // Its reused containers: a later suite counts the containers this process leaves.
  after(async () => executor?.close?.());
  beforeEach(() => {
    outside = tmp('xrt-victim-');
  });
  afterEach(() => fs.rmSync(outside, { recursive: true, force: true }));

  it('the victim outside is never written, and the run ends with a reason or a score', async () => {
    const victim = path.join(outside, 'victim.txt');
    fs.writeFileSync(victim, 'precious\n');
    const before = sha(victim);
    const task = await fixtureTask('go');
    const repo = fixture('inventory-go');
    const repoBefore = treeDigest(repo);
    const code = `package inventory

import (
	"os"
	"testing"
)

func TestStatusSwap(t *testing.T) {
	if got := (Item{Quantity: 0}).Status(1); got != "out-of-stock" {
		t.Fatalf("Status = %q", got)
	}
	src, _ := os.ReadFile("item.go")
	seen := os.Getenv("TMPDIR") + "/clean-item.go"
	clean, err := os.ReadFile(seen)
	if err != nil {
		os.WriteFile(seen, src, 0o644)
		return
	}
	if string(clean) != string(src) {
		os.Remove("item.go")
		if err := os.Symlink(${JSON.stringify(victim)}, "item.go"); err != nil {
			t.Fatalf("swap blocked: %v", err)
		}
	}
}
`;
    const result = await runMutationTesting(task, 'go', code, { executor, image, repoDir: repo, maxMutants: 4, coveredLines: [7, 8, 9, 10, 11, 12] });
    assert.equal(sha(victim), before, 'the victim is unchanged');
    assert.equal(treeDigest(repo), repoBefore, "the user's checkout is unchanged");
    // Where the copy is writable to the test (docker, engine not root), the swap happens and the engine refuses the link.
    if (kind === 'docker' && !confinesTests()) assert.match(result.error ?? '', /item\.go.*symbolic link/, JSON.stringify(result));
    // Elsewhere the swap is refused (a read-only copy), so the test fails whenever item.go differs from
    // the clean text it kept: it reads the source, and a sentinel (mutate/sentinels.ts, run among the
    // mutants) says so.
    else assert.ok(result.readsSource === true && /differs from the original only in/.test(result.error ?? ''), JSON.stringify(result));
  });
});

/**
 * Under the docker executor one container serves every phase of a task, so the copy cannot be
 * mounted read-only for the test phase alone. When the engine is root, the test and coverage phases
 * run as `nobody` on a copy that belongs to root; only the runner's folders are writable to it.
 * These tests write where a test must not, and leave a process behind for the next phase.
 */
describe('hostile sandboxes: a test writing into its copy (docker executor)', function () {
  this.timeout(900_000);
  let executor: DockerExecutor;
  let image: string;

  before(async function () {
    if (!confinesTests()) skipBecause(this, 'the engine is not root: the docker executor cannot run the test as another user than the copy\'s owner');
    const engine = await engineForTests(this);
    image = await languageImageForTests(this, 'go');
    executor = await DockerExecutor.create({ engine });
  });
  after(async () => executor?.close());

  it('go: writes to the focal file, go.mod and next to the focal file fail inside the container; nothing is written', async () => {
    const task = await fixtureTask('go');
    const repo = fixture('inventory-go');
    const before = treeDigest(repo);
    // The attacker expects its writes to work: a blocked write fails the test (a scored failure).
    const code = `package inventory

import (
	"os"
	"strings"
	"testing"
)

func TestTamper(t *testing.T) {
	var errs []string
	if err := os.WriteFile("item.go", []byte("package inventory\\n// forged\\n"), 0o644); err != nil {
		errs = append(errs, err.Error())
	}
	if err := os.WriteFile("go.mod", []byte("module forged\\n"), 0o644); err != nil {
		errs = append(errs, err.Error())
	}
	if err := os.WriteFile("planted.go", []byte("package inventory\\n"), 0o644); err != nil {
		errs = append(errs, err.Error())
	}
	if err := os.Chmod(".", 0o777); err != nil {
		errs = append(errs, err.Error())
	}
	if len(errs) > 0 {
		t.Fatalf("blocked: %s", strings.Join(errs, "; "))
	}
}
`;
    const goMod = fs.readFileSync(path.join(repo, 'go.mod'), 'utf8');
    const e = await evaluateTest(task, 'go', code, { executor, image, repoDir: repo, keepSandbox: true });
    try {
      assert.equal(treeDigest(repo), before, "the user's checkout is unchanged");
      assert.equal(e.score.compiled, true, JSON.stringify(e.score));
      assert.equal(e.score.passed, false, JSON.stringify(e.score));
      assert.match(e.score.reason ?? '', /permission denied/, JSON.stringify(e.score));
      const dir = e.sandboxDir!;
      assert.equal(fs.readFileSync(path.join(dir, 'item.go'), 'utf8'), task.file_content, "the focal file in the copy is the task's");
      assert.equal(fs.readFileSync(path.join(dir, 'go.mod'), 'utf8'), goMod);
      assert.equal(fs.existsSync(path.join(dir, 'planted.go')), false, 'no file was planted next to the focal file');
    } finally {
      if (e.sandboxDir) fs.rmSync(e.sandboxDir, { recursive: true, force: true });
    }
  });

  it('ruby: a spec rewriting the focal file and the Gemfile is refused inside the container', async function () {
    const rubyImage = await languageImageForTests(this, 'ruby');
    const task = await fixtureTask('ruby');
    const repo = fixture('bookshelf-rb');
    const before = treeDigest(repo);
    const code = `require 'rspec'

RSpec.describe Bookshelf::Catalog do
  it 'rewrites its own copy' do
    File.write(${JSON.stringify(task.file_path.split('/').slice(1).join('/'))}, "module Bookshelf; end\\n")
    File.write('Gemfile', "# forged\\n")
    File.write('planted.rb', "# planted\\n")
    expect(true).to eq(true)
  end
end
`;
    const e = await evaluateTest(task, 'ruby', code, { executor, image: rubyImage, repoDir: repo, keepSandbox: true });
    try {
      assert.equal(treeDigest(repo), before, "the user's checkout is unchanged");
      assert.equal(e.score.passed, false, JSON.stringify(e.score));
      assert.match(e.score.reason ?? '', /Permission denied/, JSON.stringify(e.score));
      const dir = e.sandboxDir!;
      assert.equal(fs.readFileSync(path.join(dir, task.file_path.split('/').slice(1).join('/')), 'utf8'), task.file_content);
      assert.equal(fs.readFileSync(path.join(dir, 'Gemfile'), 'utf8'), fs.readFileSync(path.join(repo, 'Gemfile'), 'utf8'));
      assert.equal(fs.existsSync(path.join(dir, 'planted.rb')), false);
    } finally {
      if (e.sandboxDir) fs.rmSync(e.sandboxDir, { recursive: true, force: true });
    }
  });

  it('go: a process the test leaves running does not live on into the next phase', async () => {
    const task = await fixtureTask('go');
    const repo = fixture('inventory-go');
    // Leaves a detached process (its own session: the in-container timeout's group kill misses it).
    const code = `package inventory

import (
	"os/exec"
	"syscall"
	"testing"
)

func TestLeaveBehind(t *testing.T) {
	cmd := exec.Command("sleep", "1000")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start: %v", err)
	}
}
`;
    let seen = '';
    const spy: Executor = {
      kind: 'docker',
      capabilities: executor.capabilities,
      info: (l) => executor.info(l),
      async open(spec: SessionSpec): Promise<Session> {
        const s = await executor.open(spec);
        return {
          async run(cmd: PhaseCommand, signal?: AbortSignal): Promise<PhaseResult> {
            const r = await s.run(cmd, signal);
            if (cmd.phase === 'test') {
              const ps = await s.run({ ...cmd, phase: 'coverage', argv: ['sh', '-c', 'for p in /proc/[0-9]*/cmdline; do tr "\\\\0" " " < $p; echo; done'], timeoutMs: 30_000 });
              seen = ps.output;
            }
            return r;
          },
          close: () => s.close(),
        };
      },
    };
    const e = await evaluateTest(task, 'go', code, { executor: spy, image, repoDir: repo });
    assert.equal(e.score.passed, true, JSON.stringify(e.score));
    assert.ok(seen.includes('sleep infinity'), `the listing saw the container's processes: ${seen}`);
    assert.doesNotMatch(seen, /sleep 1000/, 'the test\'s background process was reaped');
  });
});
