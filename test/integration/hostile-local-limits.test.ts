import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cgroupSupport } from '../../src/engine/execute/command-cgroup';
import { LocalExecutor } from '../../src/engine/execute/local';
import { memorySandboxParent } from '../../src/engine/execute/memory-folder';
import type { ExecLimits, PhaseCommand, Session } from '../../src/engine/execute/types';
import { hasTool, skipBecause } from '../helpers/skip';

/**
 * The local executor keeps emptied cgroups for later commands (command-cgroup.ts). Each attack is a
 * command trying to leave its cgroup worse for the next one: memory still charged to it, or limits the
 * next command would inherit instead of its own.
 */
const MiB = 1024 ** 2;

function phase(script: string, cwd: string): PhaseCommand {
  return { phase: 'test', argv: ['sh', '-c', script], cwd, env: {}, timeoutMs: 60_000 };
}

describe('local executor: limits per command, with cgroups kept for reuse (attacks)', function () {
  let parent: string;
  const made: string[] = [];

  before(function () {
    if (!cgroupSupport()) skipBecause(this, 'this process cannot make cgroups here (not root, or no memory and pids controllers): limits are rlimits, nothing is reused');
    if (!hasTool('bwrap')) skipBecause(this, 'bubblewrap is not installed');
    if (!hasTool('python3')) skipBecause(this, 'python3 is not installed (the test allocates memory with it)');
    const inMemory = memorySandboxParent();
    if (!inMemory) skipBecause(this, 'no tmpfs for sandboxes in memory here: a file a command writes is not charged to its memory cgroup');
    parent = inMemory!;
  });

  after(function () {
    for (const d of made) fs.rmSync(d, { recursive: true, force: true });
  });

  async function session(ex: LocalExecutor, limits: Partial<ExecLimits>): Promise<{ s: Session; dir: string }> {
    const dir = fs.mkdtempSync(path.join(parent, 'xrt-sandbox-limits-'));
    made.push(dir);
    const s = await ex.open({ language: 'go', sandboxDir: dir, limits: { memoryBytes: 256 * MiB, cpus: 1, pids: 64, outputBytes: 64 * 1024, ...limits } });
    return { s, dir };
  }

  it('every process and thread a command starts is in its own memory and pids cgroups (the shell that joins moves only itself)', async function () {
    const ex = new LocalExecutor();
    // The command's shell, a background child and a thread of a python child report their cgroups.
    const script = [
      'grep -E ":(pids|memory):" /proc/self/cgroup | sed "s/^/shell /"',
      '(sleep 1 & grep -E ":(pids|memory):" /proc/$!/cgroup | sed "s/^/child /"; wait)',
      `python3 -c "import threading, re
def f():
    import threading as t
    for l in open('/proc/self/task/%d/cgroup' % t.get_native_id()):
        if re.search(':(pids|memory):', l): print('thread', l.strip())
th = threading.Thread(target=f); th.start(); th.join()"`,
    ].join('; ');
    try {
      const a = await session(ex, {});
      const r = await a.s.run(phase(script, a.dir));
      assert.equal(r.exitCode, 0, r.output);
      for (const who of ['shell', 'child', 'thread']) {
        const lines = r.output.split('\n').filter((l) => l.startsWith(`${who} `));
        assert.equal(lines.length, 2, `${who}: ${r.output}`);
        for (const l of lines) assert.match(l, /:\/xrepotest-\d+-[0-9a-f]{8}$/, `${who} is outside the command's cgroup: ${r.output}`);
      }
      await a.s.close();
    } finally {
      await ex.close();
    }
  });

  it('a command that leaves 200 MB of files in its memory sandbox does not shrink the next command’s 256 MB limit', async function () {
    const ex = new LocalExecutor();
    try {
      const a = await session(ex, {});
      // Charged to its cgroup for as long as the file exists: the slot's sandbox is kept here.
      const wrote = await a.s.run(phase('head -c 200000000 /dev/zero > big && echo wrote', a.dir));
      assert.equal(wrote.exitCode, 0, wrote.output);
      const b = await session(ex, {});
      const r = await b.s.run(phase(`python3 -c "b = b'a' * (150 * 1024 * 1024); print(len(b))"`, b.dir));
      assert.equal(r.exitCode, 0, `the next command was not given its whole limit: ${r.signal ?? ''} ${r.output}`);
      assert.equal(r.output.trim(), String(150 * MiB));
      await a.s.close();
      await b.s.close();
    } finally {
      await ex.close();
    }
  });

  it('a command gets its own process limit, not the one of the command that used the cgroup before', async function () {
    const ex = new LocalExecutor();
    const forks = 'n=0; for i in $(seq 40); do sleep 3 & n=$((n+1)); done 2>&1; echo "tried $n"';
    try {
      const roomy = await session(ex, { pids: 512 });
      const first = await roomy.s.run(phase(forks, roomy.dir));
      assert.doesNotMatch(first.output, /fork/i, first.output);
      const tight = await session(ex, { pids: 16 });
      const second = await tight.s.run(phase(forks, tight.dir));
      assert.match(second.output, /fork/i, `40 processes ran under a limit of 16: ${second.output}`);
      // And back: a later roomy command is not held to 16.
      const again = await session(ex, { pids: 512 });
      const third = await again.s.run(phase(forks, again.dir));
      assert.doesNotMatch(third.output, /fork/i, third.output);
      for (const x of [roomy, tight, again]) await x.s.close();
    } finally {
      await ex.close();
    }
  });

  it('a command’s memory limit is its own: 64 MB after 512 MB', async function () {
    const ex = new LocalExecutor();
    const alloc = `python3 -c "b = b'a' * (100 * 1024 * 1024); print(len(b))"`;
    try {
      const big = await session(ex, { memoryBytes: 512 * MiB });
      const ok = await big.s.run(phase(alloc, big.dir));
      assert.equal(ok.exitCode, 0, ok.output);
      const small = await session(ex, { memoryBytes: 64 * MiB });
      const killed = await small.s.run(phase(alloc, small.dir));
      assert.notEqual(killed.exitCode, 0, `100 MB fit under a 64 MB limit: ${killed.output}`);
      for (const x of [big, small]) await x.s.close();
    } finally {
      await ex.close();
    }
  });
});
