import * as assert from 'node:assert';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { newRunKey } from '../../src/engine/distributed/run-key';
import { engineForTests, languageImageForTests } from '../helpers/engine';
import { fixtureSources } from '../helpers/git-sources';
import { CLI, REPO_ROOT } from '../helpers/paths';
import { freePort } from '../helpers/registry';
import { skipBecause } from '../helpers/skip';

/*
 * Issue 16: deploy/compose.yaml run for real with Podman's compose (podman-compose from PyPI, in
 * .tools by scripts/setup.sh): Redis (the project's Debian image: no registry here) and a worker
 * built from docker/worker/Dockerfile, running the docker executor on the same Podman engine through
 * its socket. The coordinator runs on the host; its run folder must be a local docker run's.
 */

const PODMAN_CONF = path.join(REPO_ROOT, 'docker', 'podman', 'containers.conf');
const COMPOSE_TOOL = path.join(REPO_ROOT, '.tools', 'podman-compose');
const DATASET = path.join(REPO_ROOT, 'examples', 'fixtures', 'tasks.jsonl');
const MANIFEST = path.join(REPO_ROOT, 'examples', 'fixtures', 'manifest.json');
const SANDBOXES = '/var/lib/xrepotest/tmp';

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 900_000): { code: number | null; out: string; pid: number } {
  const r = spawnSync(cmd, args, { cwd: REPO_ROOT, env: { ...process.env, CONTAINERS_CONF: PODMAN_CONF, ...env }, encoding: 'utf8', timeout: timeoutMs });
  return { code: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}`, pid: r.pid };
}

/** Ids of the containers carrying `label` (`key=value`). */
function containersLabelled(label: string): string[] {
  return run('podman', ['ps', '-a', '-q', '--no-trunc', '--filter', `label=${label}`]).out.split('\n').filter(Boolean);
}

describe('deploy/compose.yaml with Podman\'s compose: Redis and a worker container, a coordinator on the host', function () {
  this.timeout(1_800_000);
  let work: string;
  let env: NodeJS.ProcessEnv;
  let composeArgs: string[];

  before(async function () {
    const engine = await engineForTests(this);
    if (!/podman/i.test(engine.engine)) skipBecause(this, `the engine is ${engine.engine}: this test runs Podman's compose (with Docker: docker compose -f deploy/compose.yaml, docs/distributed.md)`);
    if (run('python3', ['-c', 'import podman_compose'], { PYTHONPATH: COMPOSE_TOOL }).code !== 0) skipBecause(this, 'podman-compose is not in .tools/podman-compose (scripts/setup.sh installs it)');
    // The worker's tests run in the language images (built once per machine, as the other engine tests do).
    await languageImageForTests(this, 'go');
    await languageImageForTests(this, 'php');
    this.timeout(1_800_000);
    for (const [file, tag, context] of [
      ['docker/redis/Dockerfile', 'xrepotest/redis:test', 'docker/redis'],
      ['docker/worker/Dockerfile', 'xrepotest/worker:test', '.'],
    ]) {
      const b = run('podman', ['build', '--network', 'host', '-f', file, '-t', tag, context]);
      assert.equal(b.code, 0, `podman build ${file}: ${b.out.slice(-2000)}`);
    }
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-compose-'));
    fixtureSources(work, ['inventory-go', 'textkit-php'], ['textkit-php']);
    fs.mkdirSync(SANDBOXES, { recursive: true });
    // The sources are reachable in the worker at the same path (a file:// URL); the image is the one built above.
    const override = path.join(work, 'compose.test.yaml');
    fs.writeFileSync(override, `services:\n  worker:\n    image: localhost/xrepotest/worker:test\n    volumes:\n      - ${work}:${work}:ro\n`);
    const socket = engine.endpoint.replace(/^unix:\/\//, '');
    env = {
      PYTHONPATH: COMPOSE_TOOL,
      COMPOSE_PROJECT_NAME: `xrt${randomBytes(3).toString('hex')}`,
      XREPOTEST_REDIS_PASSWORD: randomBytes(12).toString('hex'),
      // The run key the coordinator (on the host) and the worker container share; the worker fetches
      // the file:// sources made here, which it is told it may.
      XREPOTEST_RUN_KEY: newRunKey(),
      XREPOTEST_ALLOW_SOURCE: `file://${work}/`,
      XREPOTEST_REDIS_IMAGE: 'localhost/xrepotest/redis:test',
      XREPOTEST_REDIS_PORT: String(await freePort()),
      XREPOTEST_ENGINE_SOCKET: socket,
    };
    composeArgs = ['-m', 'podman_compose', '-f', 'deploy/compose.yaml', '-f', override];
  });

  after(function () {
    this.timeout(120_000);
    if (composeArgs) run('python3', [...composeArgs, 'down', '-v'], env);
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('runs the Go and PHP fixture tasks on the compose worker with the local docker run\'s summary, and comes down leaving nothing', () => {
    const up = run('python3', [...composeArgs, 'up', '-d', '--no-build'], env);
    assert.equal(up.code, 0, up.out);
    const runDir = path.join(work, 'run');
    const bench = run(process.execPath, [CLI, 'bench', '--dataset', DATASET, '--lang', 'go,php', '--executor', 'docker', '--queue', `redis://127.0.0.1:${env.XREPOTEST_REDIS_PORT}`, '--sources', path.join(work, 'sources.json'), '--run-dir', runDir, '--no-progress'], env);
    const logs = run('python3', [...composeArgs, 'logs', 'worker'], env).out;
    assert.equal(bench.code, 0, `${bench.out}\n--- worker:\n${logs.slice(-3000)}`);
    assert.equal((logs.match(/task \S+ done in /g) ?? []).length, 10, 'the worker container ran the ten tasks');
    const local = path.join(work, 'local');
    const ref = run(process.execPath, [CLI, 'bench', '--dataset', DATASET, '--manifest', MANIFEST, '--lang', 'go,php', '--executor', 'docker', '--run-dir', local, '--no-progress'], { DOCKER_HOST: `unix://${env.XREPOTEST_ENGINE_SOCKET}` });
    assert.equal(ref.code, 0, ref.out);
    assert.equal(fs.readFileSync(path.join(runDir, 'summary.json'), 'utf8'), fs.readFileSync(path.join(local, 'summary.json'), 'utf8'));
    // The test containers a worker starts carry its container's id (xrepotest.owner-container), and
    // the local run's its pid: only those are this test's (other xrepotest processes may share the engine).
    const project = containersLabelled(`io.podman.compose.project=${env.COMPOSE_PROJECT_NAME}`);
    assert.ok(project.length > 0, 'the project has containers');
    // Stopped as `down` stops it: every service at once, Redis too, so a worker's queue may be gone
    // before the worker closes; each must still remove its own test containers and stop by itself.
    const stop = run('python3', [...composeArgs, 'stop'], env);
    assert.equal(stop.code, 0, stop.out);
    const stopped = run('python3', [...composeArgs, 'logs', 'worker'], env).out;
    const stopping = (stopped.match(/stopping: running tasks finish first/g) ?? []).length;
    assert.ok(stopping >= 1, stopped.slice(-3000));
    assert.equal((stopped.match(/worker \S+: stopped after \d+ tasks/g) ?? []).length, stopping, `every worker stopped by itself (not killed at the grace's end):\n${stopped.slice(-3000)}`);
    const down = run('python3', [...composeArgs, 'down', '-v'], env);
    assert.equal(down.code, 0, down.out);
    const left = run('podman', ['ps', '-a', '--format', '{{.Names}}', '--filter', `label=io.podman.compose.project=${env.COMPOSE_PROJECT_NAME}`]);
    assert.equal(left.out.trim(), '', 'no container of the project is left');
    const tests = [...project.map((id) => `xrepotest.owner-container=${id}`), `xrepotest.owner-pid=${ref.pid}`].flatMap(containersLabelled);
    assert.deepEqual(tests, [], 'no test container of the workers or of the local run is left');
  });
});
