import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type Dockerode from 'dockerode';
import { CONTAINER_LABEL, DockerExecutor, DockerSession, ownerLabels, reapStaleContainers } from '../../src/engine/execute/docker';
import type { ConnectedEngine } from '../../src/engine/execute/docker-engine';
import type { ExecLimits, PhaseCommand } from '../../src/engine/execute/types';
import { baseImageForTests, engineForTests, languageImageForTests, stopTestEngine } from '../helpers/engine';

const LIMITS: ExecLimits = { memoryBytes: 256 * 1024 ** 2, cpus: 1, pids: 64, outputBytes: 64 * 1024 };

function command(argv: string[], cwd: string, timeoutMs = 20_000, env: Record<string, string> = {}): PhaseCommand {
  return { phase: 'test', argv, cwd, env, timeoutMs };
}

async function containersOfSession(docker: Dockerode, sessionId: string): Promise<Dockerode.ContainerInfo[]> {
  return docker.listContainers({ all: true, filters: JSON.stringify({ label: [`${CONTAINER_LABEL.session}=${sessionId}`] }) });
}

/** A pid that certainly belonged to a process that has exited. */
function deadPid(): number {
  const r = spawnSync('true');
  assert.ok(r.pid && r.pid > 0);
  return r.pid;
}

after(stopTestEngine); // root-level: stops a Podman service this run started, once every file has run

describe('docker executor (real engine)', function () {
  let engine: ConnectedEngine;
  let image: string;
  let executor: DockerExecutor;
  let sandbox: string;
  let session: DockerSession;

  before(async function () {
    engine = await engineForTests(this);
    image = await baseImageForTests(this);
    executor = await DockerExecutor.create({ engine });
  });

  beforeEach(async function () {
    sandbox = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-docker-test-'));
    session = await executor.open({ language: 'go', sandboxDir: sandbox, limits: LIMITS, image });
  });

  afterEach(async function () {
    await session?.close();
    fs.rmSync(sandbox, { recursive: true, force: true });
  });

  it('binds a host folder only into a trusted warm-up, in a container of its own the session never sees', async function () {
    const kept = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-docker-kept-'));
    try {
      const dest = path.join(sandbox, '.xrt', 'target');
      fs.mkdirSync(path.join(sandbox, '.xrt'));
      const warm = await session.run({ ...command(['sh', '-c', `echo built > "${dest}/artifact"; grep -c " ${dest} " /proc/self/mountinfo`], sandbox), phase: 'warm-up', binds: [{ source: kept, dest }] });
      assert.equal(warm.exitCode, 0, warm.output);
      assert.equal(fs.readFileSync(path.join(kept, 'artifact'), 'utf8'), 'built\n', 'the warm-up wrote the bound folder');
      assert.deepEqual(fs.readdirSync(dest), [], 'the write went to the bound folder, not the copy');
      // The session's own container has no such mount: a phase there writes the copy's folder.
      const seen = await session.run(command(['sh', '-c', `grep -c " ${dest} " /proc/self/mountinfo; ls "${dest}"`], sandbox));
      assert.match(seen.output, /^0\n/, seen.output);
      // Any other phase (a compile, a test) is refused the bind.
      for (const phase of ['compile', 'test', 'coverage'] as const) {
        await assert.rejects(session.run({ ...command(['true'], sandbox), phase, binds: [{ source: kept, dest }] }), /only into a trusted warm-up/);
      }
      await assert.rejects(session.run({ ...command(['true'], sandbox), phase: 'warm-up', binds: [{ source: kept, dest: path.dirname(sandbox) }] }), /a folder inside the sandbox/);
      assert.deepEqual(fs.readdirSync(kept), ['artifact']);
    } finally {
      fs.rmSync(kept, { recursive: true, force: true });
    }
  });

  it('reports exit codes and captures stdout and stderr, with the command environment', async function () {
    const r = await session.run(command(['sh', '-c', 'echo "out $XRT_T"; echo err >&2; exit 3'], sandbox, 20_000, { XRT_T: 'env-ok' }));
    assert.equal(r.exitCode, 3);
    assert.equal(r.timedOut, false);
    assert.match(r.output, /out env-ok/);
    assert.match(r.output, /err/);
    const ok = await session.run(command(['pwd'], sandbox));
    assert.equal(ok.exitCode, 0);
    assert.equal(ok.output.trim(), sandbox);
  });

  it('keeps only outputBytes of a 50 MB output, and the session stays usable', async function () {
    const r = await session.run(command(['sh', '-c', 'head -c 50000000 /dev/zero | tr "\\0" x; echo; echo tail-marker'], sandbox, 60_000));
    assert.equal(r.exitCode, 0);
    assert.equal(r.outputTruncated, true);
    // The cap plus the one-line marker saying what was dropped.
    assert.ok(Buffer.byteLength(r.output) < LIMITS.outputBytes + 200, `kept ${Buffer.byteLength(r.output)} bytes`);
    assert.match(r.output, /tail-marker/);
    const after = await session.run(command(['echo', 'still-here'], sandbox));
    assert.equal(after.exitCode, 0);
    assert.equal(after.output.trim(), 'still-here');
    assert.equal(after.outputTruncated, false);
  });

  it('kills a command at its timeout and reports timedOut; the session stays usable', async function () {
    const r = await session.run(command(['sleep', '1000'], sandbox, 1000));
    assert.equal(r.timedOut, true);
    assert.equal(r.exitCode, null);
    assert.ok(r.durationMs < 60_000);
    const after = await session.run(command(['echo', 'alive'], sandbox));
    assert.equal(after.exitCode, 0);
  });

  it('kills the container from the host when the command outlives the in-container timeout', async function () {
    // A negative grace moves the host backstop before timeout(1)'s KILL, and TERM is ignored.
    const hasty = new DockerExecutor(engine, { backstopGraceMs: -1500 });
    const s = await hasty.open({ language: 'go', sandboxDir: sandbox, limits: LIMITS, image });
    try {
      const r = await s.run(command(['sh', '-c', 'trap "" TERM; sleep 1000'], sandbox, 1000));
      assert.equal(r.timedOut, true);
      assert.equal(r.exitCode, null);
      await assert.rejects(s.run(command(['true'], sandbox)), /killed .*timeout.*open a new session/);
    } finally {
      await s.close();
    }
    assert.deepEqual(await containersOfSession(engine.docker, s.id), []);
  });

  it('an AbortSignal kills the command and removes the container', async function () {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 500);
    const r = await session.run(command(['sleep', '1000'], sandbox, 60_000), controller.signal);
    assert.equal(r.exitCode, null);
    assert.equal(r.timedOut, false);
    assert.deepEqual(await containersOfSession(engine.docker, session.id), []);
    await assert.rejects(session.run(command(['true'], sandbox)), /cancelled/);
  });

  it('has no network: only lo, and a host port on 127.0.0.1 cannot be reached', async function () {
    let connections = 0;
    const server = net.createServer((sock) => {
      connections++;
      sock.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const hostSide = await new Promise<boolean>((resolve) => {
        const c = net.connect(port, '127.0.0.1', () => (c.destroy(), resolve(true))).on('error', () => resolve(false));
      });
      assert.equal(hostSide, true, 'the port answers on the host');
      const r = await session.run(command(['bash', '-c', `echo hi > /dev/tcp/127.0.0.1/${port} && echo CONNECTED`], sandbox));
      assert.notEqual(r.exitCode, 0);
      assert.doesNotMatch(r.output, /CONNECTED/);
      assert.equal(connections, 1, 'only the host-side probe connected');
      const nets = await session.run(command(['ls', '/sys/class/net'], sandbox));
      assert.deepEqual(nets.output.trim().split(/\s+/), ['lo']);
    } finally {
      server.close();
    }
  });

  it('kills a command allocating far beyond the memory limit', async function () {
    const r = await session.run(command(['perl', '-e', '$x = "a" x (1024 * 1024 * 1024); print "ALLOCATED\\n"'], sandbox, 60_000));
    assert.doesNotMatch(r.output, /ALLOCATED/);
    assert.ok(r.signal === 'SIGKILL' || r.exitCode === 137, `exit ${r.exitCode}, signal ${r.signal}`);
  });

  it('a fork loop hits the pids limit and the command ends', async function () {
    const r = await session.run(command(['sh', '-c', 'i=0; while [ $i -lt 500 ]; do sleep 3 & i=$((i+1)); done; wait; echo ALL-FORKED'], sandbox, 30_000));
    assert.equal(r.timedOut, false);
    assert.notEqual(r.exitCode, 0);
    assert.doesNotMatch(r.output, /ALL-FORKED/);
    assert.match(r.output, /fork|resource temporarily unavailable/i);
  });

  it('writes outside the sandbox stay in the container; writes inside show on the host at the same path', async function () {
    const outside = path.join(os.tmpdir(), `xrt-outside-${randomUUID()}`);
    fs.writeFileSync(outside, 'host\n');
    try {
      const w = await session.run(command(['sh', '-c', `echo container > ${outside} && cat ${outside}`], sandbox));
      assert.equal(w.exitCode, 0);
      assert.equal(w.output.trim(), 'container', 'the write itself worked, inside');
      assert.equal(fs.readFileSync(outside, 'utf8'), 'host\n');
    } finally {
      fs.rmSync(outside, { force: true });
    }
    const inside = path.join(sandbox, 'sub', 'made-inside.txt');
    const r = await session.run(command(['sh', '-c', `mkdir -p sub && echo hello > ${inside}`], sandbox));
    assert.equal(r.exitCode, 0);
    assert.equal(fs.readFileSync(inside, 'utf8'), 'hello\n');
  });

  it('close() removes the container and can be called twice', async function () {
    assert.equal((await containersOfSession(engine.docker, session.id)).length, 1);
    await session.close();
    await session.close();
    assert.deepEqual(await containersOfSession(engine.docker, session.id), []);
    await assert.rejects(session.run(command(['true'], sandbox)), /closed/);
  });

  it('reapStaleContainers removes containers whose owner pid is dead, and keeps live ones', async function () {
    const labels = { ...ownerLabels(randomUUID()), [CONTAINER_LABEL.ownerPid]: String(deadPid()) };
    const stale = await engine.docker.createContainer({ Image: image, Cmd: ['sleep', 'infinity'], Labels: labels, HostConfig: { NetworkMode: 'none' } });
    const removed = await reapStaleContainers(engine.docker);
    assert.ok(removed.includes(stale.id), 'the stale container was reaped');
    await assert.rejects(stale.inspect(), (e: { statusCode?: number }) => e.statusCode === 404);
    assert.equal((await containersOfSession(engine.docker, session.id)).length, 1, 'our live session is kept');
  });

  it('reapStaleContainers removes what a worker container left once that container is gone, whatever host and pid it names, and not before', async function () {
    this.timeout(120_000);
    // The "worker": a container of this engine; its test container names it, another host and pid 1 (a worker is PID 1 in its container).
    const owner = await engine.docker.createContainer({ Image: image, Cmd: ['sleep', 'infinity'], Labels: ownerLabels(randomUUID()), HostConfig: { NetworkMode: 'none' } });
    await owner.start();
    const labels = { ...ownerLabels(randomUUID()), [CONTAINER_LABEL.ownerHost]: 'worker-elsewhere', [CONTAINER_LABEL.ownerPid]: '1', [CONTAINER_LABEL.ownerContainer]: owner.id };
    const left = await engine.docker.createContainer({ Image: image, Cmd: ['sleep', 'infinity'], Labels: labels, HostConfig: { NetworkMode: 'none' } });
    try {
      assert.ok(!(await reapStaleContainers(engine.docker)).includes(left.id), 'kept while its owner container runs');
      await left.inspect();
      await owner.remove({ force: true });
      assert.ok((await reapStaleContainers(engine.docker)).includes(left.id), 'reaped once its owner container is gone');
      await assert.rejects(left.inspect(), (e: { statusCode?: number }) => e.statusCode === 404);
      assert.equal((await containersOfSession(engine.docker, session.id)).length, 1, 'our live session is kept');
    } finally {
      await owner.remove({ force: true }).catch(() => undefined);
      await left.remove({ force: true }).catch(() => undefined);
    }
  });
});

describe('docker executor info (language image)', function () {
  it('reports the engine and the tool version the image runs', async function () {
    const engine = await engineForTests(this);
    const image = await languageImageForTests(this, 'go');
    const executor = new DockerExecutor(engine, { images: { go: image } });
    const info = await executor.info('go');
    assert.equal(info.kind, 'docker');
    assert.match(info.engine, /\(API \d+\.\d+\)/);
    const sandbox = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-docker-test-'));
    const s = await executor.open({ language: 'go', sandboxDir: sandbox, limits: LIMITS });
    try {
      const r = await s.run(command(['go', 'version'], sandbox));
      assert.equal(r.exitCode, 0);
      assert.equal(info.versions.go, r.output.trim());
    } finally {
      await s.close();
      fs.rmSync(sandbox, { recursive: true, force: true });
    }
  });
});
