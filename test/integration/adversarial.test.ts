import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { evaluateTest, type Evaluation } from '../../src/engine/execute/evaluate';
import { DockerExecutor } from '../../src/engine/execute/docker';
import type { ConnectedEngine } from '../../src/engine/execute/docker-engine';
import { LocalExecutor } from '../../src/engine/execute/local';
import type { Executor } from '../../src/engine/execute/types';
import { engineForTests, languageImageForTests } from '../helpers/engine';
import { fixtureTask, treeDigest } from '../helpers/evaluate';
import { fixture } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';

/**
 * Generated tests are hostile until proven otherwise. Each of these Go tests attacks the machine in
 * one way; each must end as a scored failure with a clear reason, leave the user's tree as it was,
 * and leave no process behind.
 */
const MARK = `xrt-hostile-${process.pid}`;

function hostile(body: string, imports: string[]): string {
  return `package inventory\n\nimport (\n${imports.map((i) => `\t"${i}"`).join('\n')}\n)\n\nfunc TestHostile(t *testing.T) {\n${body}\n}\n`;
}

function fileHashes(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.set(path.relative(dir, p), createHash('sha256').update(fs.readFileSync(p)).digest('hex'));
    }
  };
  walk(dir);
  return out;
}

function processesWithMark(): string[] {
  const r = spawnSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  return r.stdout.split('\n').filter((l) => l.includes(MARK) && !l.includes('ps -eo'));
}

for (const kind of ['local', 'docker'] as const) describe(`hostile generated tests (${kind} executor)`, function () {
  this.timeout(600_000);
  let executor: Executor;
  let image: string | undefined;
  let engine: ConnectedEngine | undefined;
  let outside: string;
  let listener: net.Server;
  let port = 0;
  let connections = 0;

  before(async function () {
    if (kind === 'local') {
      if (!hasTool('go', ['version'])) skipBecause(this, 'go is not installed');
      const local = new LocalExecutor();
      if (!local.isolated) skipBecause(this, 'bubblewrap is not installed: the local executor cannot isolate (apt-get install bubblewrap)');
      executor = local;
    } else {
      engine = await engineForTests(this);
      image = await languageImageForTests(this, 'go');
      executor = await DockerExecutor.create({ engine });
    }
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-outside-'));
    listener = net.createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    port = (listener.address() as net.AddressInfo).port;
  });
  after(() => {
    listener?.close();
    if (outside) fs.rmSync(outside, { recursive: true, force: true });
  });

  async function attack(code: string, testTimeoutS = 30, memoryMb = 512): Promise<Evaluation> {
    const task = await fixtureTask('go');
    const repo = fixture('inventory-go');
    const before = treeDigest(repo);
    const e = await evaluateTest(task, 'go', code, {
      executor,
      image,
      repoDir: repo,
      timeouts: { testMs: testTimeoutS * 1000 },
      limits: { memoryBytes: memoryMb * 1024 * 1024, pids: 256, outputBytes: 256 * 1024 },
    });
    assert.equal(treeDigest(repo), before, "the user's tree is unchanged");
    assert.deepEqual(processesWithMark(), [], 'no process is left behind');
    if (engine) {
      // A reused container stays for the next slot until the executor closes (docker-pool.test.ts attacks
      // what one slot could leave for the next): closed here, nothing of ours may remain.
      await executor.close?.();
      executor = await DockerExecutor.create({ engine });
      const left = await engine.docker.listContainers({ all: true, filters: JSON.stringify({ label: [`xrepotest.owner-pid=${process.pid}`] }) });
      assert.deepEqual(left.map((c) => c.Id), [], 'no container is left behind');
    }
    assert.equal(e.score.passed, false, 'a hostile test never passes');
    assert.ok(e.score.reason, 'the failure has a reason');
    return e;
  }

  it('loops forever: killed at the test timeout', async () => {
    const e = await attack(hostile(`\tfor {\n\t}`, ['testing']), 10);
    assert.match(e.score.reason!, /timed out after 10 s/);
  });

  it('forks without bound: stopped by the process limit', async () => {
    const e = await attack(
      hostile(`\tfor i := 0; i < 100000; i++ {\n\t\tc := exec.Command("sleep", "30", "${MARK}")\n\t\tif err := c.Start(); err != nil {\n\t\t\tt.Fatalf("fork %d failed: %v", i, err)\n\t\t}\n\t}`, ['os/exec', 'testing']),
      60,
    );
    assert.match(e.score.reason!, /fork \d+ failed|timed out|killed/);
  });

  it('allocates 10 GB: killed by the memory limit', async () => {
    const e = await attack(hostile(`\tb := make([]byte, 10<<30)\n\tfor i := range b {\n\t\tb[i] = 1\n\t}\n\tt.Log(len(b))`, ['testing']), 120);
    assert.match(e.score.reason!, /memory|killed|out of memory|cannot allocate/i);
  });

  it('prints 1 GB: the output is capped and the run still ends', async () => {
    const e = await attack(
      hostile(`\tline := strings.Repeat("x", 1023) + "\\n"\n\tfor i := 0; i < 1<<20; i++ {\n\t\tos.Stdout.WriteString(line)\n\t}\n\tt.Fatal("printed 1 GB")`, ['os', 'strings', 'testing']),
      240,
    );
    const test = e.phases.find((p) => p.phase === 'test')!;
    assert.equal(test.outputTruncated, true);
    assert.ok(test.output.length < 1024 * 1024, `kept ${test.output.length} characters`);
  });

  it('opens a network connection: there is no network', async () => {
    const e = await attack(
      hostile(`\tc, err := net.Dial("tcp", "127.0.0.1:${port}")\n\tif err != nil {\n\t\tt.Fatalf("no network: %v", err)\n\t}\n\tc.Close()`, ['net', 'testing']),
    );
    assert.equal(connections, 0, 'nothing reached the listener on the host');
    assert.match(e.score.reason!, /failed/);
  });

  it('writes outside its copy: nothing lands on the host', async () => {
    const target = path.join(outside, 'pwned.txt');
    const inRepo = path.join(fixture('inventory-go'), 'pwned.txt');
    await attack(
      hostile(
        `\tfor _, p := range []string{${JSON.stringify(target)}, ${JSON.stringify(inRepo)}} {\n\t\tif err := os.WriteFile(p, []byte("x"), 0o644); err != nil {\n\t\t\tt.Fatalf("write %s: %v", p, err)\n\t\t}\n\t}`,
        ['os', 'testing'],
      ),
    );
    assert.equal(fs.existsSync(target), false);
    assert.equal(fs.existsSync(inRepo), false);
  });

  // Only the local executor shares a build cache between tasks; a container's writes vanish with it.
  if (kind === 'local') it('writes into the build cache: the cache the next task uses is unchanged', async function () {
    const shared = executor.sharedCache?.('go');
    assert.ok(shared, 'the local executor shares a Go build cache');
    const before = fileHashes(shared.dir);
    const e = await attack(
      hostile(
        `\twritten, denied := 0, 0\n\tfilepath.WalkDir(os.Getenv("GOCACHE"), func(p string, d fs.DirEntry, err error) error {\n\t\tif err == nil && !d.IsDir() {\n\t\t\tos.Chmod(p, 0o666)\n\t\t\tif f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0); err == nil {\n\t\t\t\tf.WriteString("poison")\n\t\t\t\tf.Close()\n\t\t\t\twritten++\n\t\t\t} else {\n\t\t\t\tdenied++\n\t\t\t}\n\t\t}\n\t\treturn nil\n\t})\n\tt.Fatalf("overwrote %d cache files, denied %d", written, denied)`,
        ['io/fs', 'os', 'path/filepath', 'testing'],
      ),
    );
    // Its own new entries it may overwrite; every shared one must be denied.
    const denied = Number(/denied (\d+)/.exec(e.score.reason!)?.[1]);
    assert.ok(denied > 100, `the shared entries were all tried and denied: ${e.score.reason}`);
    // The trusted warm-up may add entries; no entry that was there may change.
    const after = fileHashes(shared.dir);
    const changed = [...before].filter(([f, h]) => after.get(f) !== h).map(([f]) => f);
    assert.deepEqual(changed, [], 'every shared cache file is byte for byte the same');
  });

  it('leaves a background process behind: it is gone when the run ends', async () => {
    await attack(
      hostile(
        `\tc := exec.Command("sh", "-c", "setsid sleep 300 ${MARK} >/dev/null 2>&1 &")\n\tif err := c.Run(); err != nil {\n\t\tt.Fatal(err)\n\t}\n\ttime.Sleep(200 * time.Millisecond)\n\tt.Fatal("left a daemon")`,
        ['os/exec', 'testing', 'time'],
      ),
    );
  });
});
