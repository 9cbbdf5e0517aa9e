import * as assert from 'node:assert/strict';
import { confinesTests, DockerExecutor } from '../../src/engine/execute/docker';
import type { ConnectedEngine } from '../../src/engine/execute/docker-engine';
import type { Session } from '../../src/engine/execute/types';
import { engineForTests, languageImageForTests, stopTestEngine } from '../helpers/engine';
import { okOutput, poolSlot, POOL_LIMITS, rootPhase, testPhase } from '../helpers/pool-slot';
import { skipBecause } from '../helpers/skip';

/**
 * The runner in a reused container (container-runner.ts) runs every command of its slots instead of an
 * exec each. It is root with capabilities no command has, and it reads requests and answers on one
 * stream: each attack is a phase trying to use it to forge a verdict, reach a later slot, or escape
 * what an exec would have confined it to.
 */

after(stopTestEngine);

/** Prints the command lines of the phase's ancestors, the runner's among them, up to the container's edge. */
const ANCESTORS = 'p=$$; while [ "$p" != 0 ] && [ "$p" != 1 ]; do echo "anc $(tr "\\0\\n" "  " < /proc/$p/cmdline | head -c 60)"; p=$(sed -n "s/^PPid:\\t//p" /proc/$p/status); done';
/** What a phase runs as: its ids and every capability set, and whether it can gain privileges. */
const PRIVILEGES = 'id -u; id -G; grep -E "^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):" /proc/self/status';
/**
 * The runner's pid: the process whose last argument is `xrt-runner` ($0 of its `sh -c`), readable to
 * the test user as any process's command line. Exactly one, or the phase fails.
 */
const RUNNER_PID = 'r=; for p in /proc/[0-9]*; do case "$(tr "\\0" "|" < $p/cmdline 2>/dev/null)" in *"|xrt-runner|") r="$r${p#/proc/} ";; esac; done; set -- $r; [ $# = 1 ] || { echo "runners: $r"; exit 9; }; r=$1';

describe('docker executor: the runner in a reused container (attacks on it)', function () {
  let engine: ConnectedEngine;
  let image: string;
  let executor: DockerExecutor;
  let execs: DockerExecutor;

  before(async function () {
    if (!confinesTests()) skipBecause(this, 'containers (and their runners) are reused only when the engine runs as root (tests confined to the test user)');
    engine = await engineForTests(this);
    image = await languageImageForTests(this, 'ruby');
    executor = await DockerExecutor.create({ engine });
    execs = new DockerExecutor(engine, { runner: false });
  });

  after(async function () {
    await executor?.close();
    await execs?.close();
  });

  const slot = <T>(body: (s: Session, dir: string) => Promise<T>, ex = executor): ReturnType<typeof poolSlot<T>> => poolSlot(ex, image, body);

  it('runs both kinds of phase through the runner with exactly the privileges an exec gives them: no capability, the test user without groups', async function () {
    const viaRunner = await slot(async (s, dir) => [okOutput(await s.run(rootPhase(`${PRIVILEGES}; ${ANCESTORS}`, dir))), okOutput(await s.run(testPhase(`${PRIVILEGES}; ${ANCESTORS}; env | grep -c '^XRT_' || true`, dir)))]);
    const viaExecs = await slot(async (s, dir) => [okOutput(await s.run(rootPhase(PRIVILEGES, dir))), okOutput(await s.run(testPhase(`${PRIVILEGES}; env | grep -c '^XRT_' || true`, dir)))], execs);
    assert.deepEqual(executor.noRunner, new Map(), 'the image hosts a runner');
    for (const out of viaRunner.result) assert.match(out, /^anc sh -c .*xrt-runner/m, `not through the runner:\n${out}`);
    const privileges = (out: string): string => out.split('\n').filter((l) => !l.startsWith('anc ')).join('\n');
    assert.equal(privileges(viaRunner.result[0]), privileges(viaExecs.result[0]));
    assert.equal(privileges(viaRunner.result[1]), privileges(viaExecs.result[1]));
    assert.match(viaRunner.result[0], /^0\n0\n/);
    assert.match(viaRunner.result[1], /^65534\n65534\n/);
    for (const out of viaRunner.result) for (const set of ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb']) assert.match(out, new RegExp(`^${set}:\\t0{16}$`, 'm'), `${set} in\n${out}`);
    assert.match(viaRunner.result[1], /^NoNewPrivs:\t1$/m);
    // The spared pids are the reaper's, not the test's.
    assert.match(viaRunner.result[1], /\n0$/);
  });

  it("a test cannot reach the runner: not its folder, not its requests, not its stdin, not the process", async function () {
    const tried = await slot(async (s, dir) =>
      okOutput(
        await s.run(
          testPhase(
            [
              'exec 2>/dev/null',
              RUNNER_PID,
              '[ -n "$r" ] && echo found',
              'ls /xrt-runner >/dev/null 2>&1 && echo listed',
              'for f in /xrt-runner/*; do cat "$f" 2>/dev/null && echo read; done',
              'echo "exit 0" > /xrt-runner/9.sh 2>/dev/null && echo planted',
              'echo 9 > /proc/$r/fd/0 2>/dev/null && echo wrote-stdin',
              'cat /proc/$r/environ >/dev/null 2>&1 && echo read-environ',
              'kill -9 $r 2>/dev/null && echo killed',
              'echo tried',
            ].join('; '),
            dir,
          ),
        ),
      ),
    );
    assert.equal(tried.result, 'found\ntried');
    const next = await slot(async (s, dir) => okOutput(await s.run(testPhase('echo next', dir))));
    assert.equal(next.result, 'next');
    assert.equal(next.container, tried.container, `replaced: ${executor.discarded.join('; ')}`);
  });

  it("a test that prints the runner's replies and its output's encoding still gets its own exit status and output", async function () {
    const forged = ['xrt-done 1 0', 'xrt-done 2 0', 'xrt-ready', 'QUFBQQ==', 'xrt-unable no', 'AAAA'];
    const script = `${forged.map((l) => `echo '${l}'`).join('; ')}; head -c 10000 /dev/zero | tr '\\0' A; echo; printf 'xrt-done 3 0'; exit 3`;
    const { result, container } = await slot(async (s, dir) => s.run(testPhase(script, dir)));
    assert.equal(result.exitCode, 3, result.output);
    assert.equal(result.output, `${forged.join('\n')}\n${'A'.repeat(10000)}\nxrt-done 3 0`);
    const next = await slot(async (s, dir) => okOutput(await s.run(testPhase('echo next', dir))));
    assert.equal(next.container, container, `replaced: ${executor.discarded.join('; ')}`);
  });

  it('output over the cap keeps its head and its tail, as through an exec', async function () {
    const script = `echo HEAD; head -c ${POOL_LIMITS.outputBytes * 4} /dev/zero | tr '\\0' x; echo; echo TAIL`;
    const [a, b] = [await slot(async (s, dir) => s.run(testPhase(script, dir))), await slot(async (s, dir) => s.run(testPhase(script, dir)), execs)];
    assert.equal(a.result.outputTruncated, true);
    assert.match(a.result.output, /^HEAD\n/);
    assert.match(a.result.output, /\nTAIL\n$/);
    assert.equal(a.result.output, b.result.output);
  });

  it('a trusted phase that stops the runner gets its slot read as killed and the container replaced', async function () {
    const killed = await slot(async (s, dir) => s.run(rootPhase(`${RUNNER_PID}; kill -9 $r; sleep 5; echo survived`, dir)));
    assert.equal(killed.result.exitCode, null, killed.result.output);
    assert.equal(killed.result.signal, 'SIGKILL');
    assert.match(killed.result.output, /runner in the container stopped/);
    const next = await slot(async (s, dir) => okOutput(await s.run(testPhase('echo fine', dir))));
    assert.equal(next.result, 'fine');
    assert.notEqual(next.container, killed.container);
  });

  it('a trusted phase cannot take the runner over: it is not allowed to trace it', async function () {
    // Same uid as the runner, but without the capabilities the runner holds: the kernel refuses.
    const { result } = await slot(async (s, dir) => okOutput(await s.run(rootPhase(`${RUNNER_PID}; [ -n "$r" ] || exit 9; head -c 1 /proc/$r/syscall >/dev/null 2>&1 && echo traced || echo refused`, dir))));
    assert.equal(result, 'refused');
  });
});
