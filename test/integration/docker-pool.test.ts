import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { confinesTests, DockerExecutor } from '../../src/engine/execute/docker';
import type { ConnectedEngine } from '../../src/engine/execute/docker-engine';
import type { PhaseCommand, Session } from '../../src/engine/execute/types';
import { containersOfSession, okOutput, poolSlot, POOL_LIMITS, rootPhase, testPhase } from '../helpers/pool-slot';
import { engineForTests, languageImageForTests, stopTestEngine } from '../helpers/engine';
import { skipBecause } from '../helpers/skip';

/**
 * Reused containers (DockerExecutor.lease): each attack is a slot's test phase (as the test user)
 * trying to leave something for the next slot in the same container; the next slot must not see it.
 */
const LIMITS = POOL_LIMITS;

after(stopTestEngine);

describe('docker executor: reused containers (attacks from one slot on the next)', function () {
  let engine: ConnectedEngine;
  let image: string;
  let executor: DockerExecutor;

  before(async function () {
    if (!confinesTests()) skipBecause(this, 'containers are reused only when the engine runs as root (tests confined to the test user)');
    engine = await engineForTests(this);
    // Ruby's image: /xrt/cache (the bundle) is world-writable in the image itself.
    image = await languageImageForTests(this, 'ruby');
    executor = await DockerExecutor.create({ engine });
  });

  after(async function () {
    await executor?.close();
  });

  const slot = <T>(body: (s: Session, dir: string) => Promise<T>, ex = executor): ReturnType<typeof poolSlot<T>> => poolSlot(ex, image, body);
  const ok = okOutput;

  it('serves slot after slot from one container, each in a fresh folder at the same path, tests as the test user', async function () {
    const a = await slot(async (s, dir) => [ok(await s.run(rootPhase('id -u; echo made > made', dir))), ok(await s.run(testPhase('id -u; cat made; pwd', dir)))]);
    const b = await slot(async (s, dir) => ok(await s.run(testPhase('ls -A .; ls .. 2>&1 || echo not-listable', dir))));
    assert.equal(a.container, b.container, `not reused: ${executor.discarded.join('; ')}`);
    // The same path, a fresh folder: nothing of the slot before is in it.
    assert.equal(a.dir, b.dir);
    assert.deepEqual(a.result[1].split('\n').slice(0, 2), ['65534', 'made']);
    assert.match(a.result[0], /^0\b/);
    // The next slot's folder holds only its own files; the pool folder cannot be listed by the test.
    assert.doesNotMatch(b.result, /made/);
    assert.match(b.result, /not-listable/);
  });

  it('a compile that opens the copy to the test at its end leaves no process to change the copy afterwards', async function () {
    const { result, container } = await slot(async (s, dir) => {
      const writable = [path.join(dir, '.xrt', 'tmp')];
      // A trusted phase a test phase follows (beforeTest): the copy is opened in the same exec, once
      // what the phase started is gone. Its background process would open the whole copy to the test.
      const compile: PhaseCommand = {
        ...rootPhase('echo made > made; (sleep 1; chmod -R 777 .; echo planted > planted) </dev/null >/dev/null 2>&1 & echo started', dir),
        beforeTest: writable,
      };
      assert.match(ok(await s.run(compile)), /started/);
      return ok(await s.run(testPhase('sleep 2; cat made; { echo x > mine; } 2>/dev/null && echo wrote-copy; cat planted 2>/dev/null; echo t > .xrt/tmp/t && echo wrote-tmp; id -u', dir)));
    });
    assert.deepEqual(result.split('\n'), ['made', 'wrote-tmp', '65534'], result);
    assert.ok(container);
  });

  it('has no network in a reused container', async function () {
    const { result } = await slot(async (s, dir) => ok(await s.run(testPhase('ls /sys/class/net', dir))));
    assert.deepEqual(result.split(/\s+/), ['lo']);
  });

  it('a background process a test forks does not outlive the phase to tamper with the next slot', async function () {
    await slot(async (s, dir) => {
      // Detached, in its own session, ignoring TERM: keeps writing next to where the next slot lives.
      const r = await s.run(testPhase('setsid sh -c \'trap "" TERM HUP; while :; do echo alive > /tmp/bg; for d in ../*/; do echo pwned > "$d/planted" 2>/dev/null; done; sleep 0.1; done\' </dev/null >/dev/null 2>&1 & sleep 0.5; echo started', dir));
      assert.match(ok(r), /started/);
    });
    const { result } = await slot(async (s, dir) => {
      await new Promise((r) => setTimeout(r, 1000));
      return ok(await s.run(testPhase('ls -A .; cat /tmp/bg 2>/dev/null; for p in /proc/[0-9]*; do [ "$(stat -c %u $p)" = 65534 ] && [ "${p#/proc/}" != "$$" ] && echo "proc ${p#/proc/} $(cat $p/cmdline | tr "\\0" " ")"; done; true', dir)));
    });
    assert.doesNotMatch(result, /planted|alive|proc \d+ .*sleep|while/);
  });

  it('what a test writes to /tmp, /var/tmp, /dev/shm or any world-writable folder is not there for the next slot', async function () {
    const first = await slot(async (s, dir) =>
      ok(await s.run(testPhase('for d in /tmp /var/tmp /dev/shm $(find / -xdev -type d -perm -0002 2>/dev/null); do { echo planted > "$d/xrt-planted"; } 2>/dev/null && echo "wrote $d"; done; true', dir))),
    );
    assert.match(first.result, /wrote \/tmp/);
    const next = await slot(async (s, dir) => ok(await s.run(testPhase('find / /dev/shm -xdev -name xrt-planted 2>/dev/null; echo done', dir))));
    assert.equal(next.result, 'done');
    // The test user's files in sticky folders cannot be removed by root without capabilities: replaced.
    assert.notEqual(first.container, next.container);
    assert.match(executor.discarded.join('\n'), /temporary folder|test user/);
    assert.deepEqual(await containersOfSession(engine.docker, first.container), []);
  });

  it("a test cannot write the image's caches (/xrt), so it cannot plant a cache entry for a later slot", async function () {
    const first = await slot(async (s, dir) => ok(await s.run(testPhase('for d in $(find /xrt -type d); do { echo x > "$d/planted"; } 2>/dev/null && echo "wrote $d"; done; echo tried', dir))));
    assert.equal(first.result, 'tried');
    const next = await slot(async (s, dir) => ok(await s.run(testPhase('find /xrt -name planted; echo done', dir))));
    assert.equal(next.result, 'done');
  });

  it('a test filling its disk space (/dev/shm) does not leave it full for the next slot', async function () {
    await slot(async (s, dir) => s.run(testPhase('cat /dev/zero > /dev/shm/fill; df -k /dev/shm', dir, 60_000)));
    const { result } = await slot(async (s, dir) => ok(await s.run(testPhase('ls -A /dev/shm; head -c 1000000 /dev/zero > /dev/shm/ok && echo wrote', dir))));
    assert.equal(result, 'wrote');
  });

  it("a test cannot kill the container's keep-alive process; a trusted phase that does gets the container replaced", async function () {
    const tried = await slot(async (s, dir) => ok(await s.run(testPhase('kill -9 $(cat /proc/1/task/1/children) 2>&1; kill -9 1 2>&1; echo tried', dir))));
    const after = await slot(async (s, dir) => ok(await s.run(testPhase('echo alive', dir))));
    assert.equal(after.result, 'alive');
    assert.equal(tried.container, after.container, `replaced: ${executor.discarded.join('; ')}`);
    const killed = await slot(async (s, dir) => s.run(rootPhase('kill -9 $(cat /proc/1/task/1/children)', dir)));
    const next = await slot(async (s, dir) => ok(await s.run(testPhase('echo fine', dir))));
    assert.equal(next.result, 'fine');
    assert.notEqual(killed.container, next.container);
  });

  it('a test that times out gets its container replaced, and the next slot runs fine', async function () {
    // A negative grace moves the host backstop before timeout(1)'s KILL, and TERM is ignored.
    const hasty = new DockerExecutor(engine, { backstopGraceMs: -1500 });
    try {
      const first = await slot(async (s, dir) => s.run(testPhase('trap "" TERM; sleep 1000', dir, 1000)), hasty);
      assert.equal(first.result.timedOut, true);
      assert.deepEqual(await containersOfSession(engine.docker, first.container), []);
      const next = await slot(async (s, dir) => ok(await s.run(testPhase('echo fine', dir))), hasty);
      assert.equal(next.result, 'fine');
      assert.notEqual(first.container, next.container);
    } finally {
      await hasty.close();
    }
  });

  it('a slot whose folder is kept does not give its container to another slot', async function () {
    const lease = await executor.lease({ language: 'ruby', limits: LIMITS, image });
    const dir = fs.mkdtempSync(path.join(lease.sandboxParent, 'xrt-sandbox-test-'));
    const s = await lease.open(dir);
    const id = (s as unknown as { id: string }).id;
    await lease.close(); // the folder was not removed (kept for inspection)
    assert.deepEqual(await containersOfSession(engine.docker, id), []);
    assert.ok(fs.existsSync(dir), 'the kept folder stays for inspection');
    fs.rmSync(lease.sandboxParent, { recursive: true, force: true });
  });

  it('close() removes the reused containers and their pool folders', async function () {
    const own = await DockerExecutor.create({ engine });
    const { container } = await slot(async (s, dir) => ok(await s.run(testPhase('true', dir))), own);
    assert.equal((await containersOfSession(engine.docker, container)).length, 1);
    await own.close();
    assert.deepEqual(await containersOfSession(engine.docker, container), []);
    await assert.rejects(own.lease({ language: 'ruby', limits: LIMITS, image }), /closed/);
  });
});
