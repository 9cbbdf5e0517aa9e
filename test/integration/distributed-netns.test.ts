import * as assert from 'node:assert';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { newRunKey, RUN_KEY_ENV } from '../../src/engine/distributed/run-key';
import { fixtureSources } from '../helpers/git-sources';
import { CLI, FIXTURES, REPO_ROOT } from '../helpers/paths';
import { exited } from '../helpers/processes';
import { freePort } from '../helpers/registry';
import { skipBecause } from '../helpers/skip';

/*
 * Issue 16: nothing may rely on sharing a machine. The workers run in a network namespace of their own
 * (ip netns, a veth pair to the Redis address: they reach Redis and the git server only through it),
 * in a mount namespace where the coordinator's folder and the fixture checkouts are empty tmpfs, with
 * their own scratch and cache folders. They fetch the code over git:// from a git daemon, as a worker
 * on another machine would. The run folder must still be the local run's.
 */

const DATASET = path.join(REPO_ROOT, 'examples', 'fixtures', 'tasks.jsonl');
const MANIFEST = path.join(REPO_ROOT, 'examples', 'fixtures', 'manifest.json');
const LANGS = 'go,php';

function sh(cmd: string, args: string[]): { code: number | null; out: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  return { code: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

describe('distributed benchmark across namespaces: workers with their own network and file system view', function () {
  this.timeout(900_000);
  const id = randomBytes(3).toString('hex');
  const ns = `xrt-q-${id}`;
  const hostIf = `xq${id}a`;
  const nsIf = `xq${id}b`;
  // A /30 of its own in 10.231.0.0/16, from the id, so parallel runs on one machine do not collide.
  const third = parseInt(id.slice(0, 2), 16);
  const fourth = (parseInt(id.slice(2, 4), 16) & 0xfc) % 252;
  const hostIp = `10.231.${third}.${fourth + 1}`;
  const nsIp = `10.231.${third}.${fourth + 2}`;
  let work: string;
  let coordinatorDir: string;
  const children = new Set<ChildProcess>();

  const start = (cmd: string, args: string[], log: string): ChildProcess => {
    const p = spawn(cmd, args, { detached: true, stdio: ['ignore', fs.openSync(log, 'a'), fs.openSync(log, 'a')] });
    children.add(p);
    p.once('exit', () => children.delete(p));
    return p;
  };
  const read = (file: string): string => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');

  before(function () {
    if (process.getuid?.() !== 0) skipBecause(this, 'network namespaces need root');
    for (const tool of ['ip', 'unshare', 'redis-server', 'git']) if (sh(tool, ['--version']).code === null) skipBecause(this, `${tool} is not installed`);
    if (!fs.existsSync(CLI)) skipBecause(this, 'dist/cli.js is not built (npm run build)');
    const made = sh('ip', ['netns', 'add', ns]);
    if (made.code !== 0) skipBecause(this, `ip netns add failed here: ${made.out.trim()}`);
    for (const args of [
      ['link', 'add', hostIf, 'type', 'veth', 'peer', 'name', nsIf],
      ['link', 'set', nsIf, 'netns', ns],
      ['addr', 'add', `${hostIp}/30`, 'dev', hostIf],
      ['link', 'set', hostIf, 'up'],
      ['-n', ns, 'addr', 'add', `${nsIp}/30`, 'dev', nsIf],
      ['-n', ns, 'link', 'set', nsIf, 'up'],
      ['-n', ns, 'link', 'set', 'lo', 'up'],
    ]) {
      const r = sh('ip', args);
      assert.equal(r.code, 0, `ip ${args.join(' ')}: ${r.out}`);
    }
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-netns-'));
    coordinatorDir = path.join(work, 'coordinator');
    fs.mkdirSync(coordinatorDir);
  });

  after(async () => {
    delete process.env.XREPOTEST_REDIS_PASSWORD;
    delete process.env[RUN_KEY_ENV];
    for (const p of [...children]) {
      try {
        process.kill(-p.pid!, 'SIGKILL');
      } catch {
        // gone
      }
      await exited(p);
    }
    sh('ip', ['netns', 'del', ns]); // takes its end of the veth pair, and so the pair, with it
    sh('ip', ['link', 'del', hostIf]);
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('two workers in their own namespace, fetching over git://, write the local run\'s summary', async () => {
    // The repositories, served by a git daemon on the host's end of the link only.
    const { sources } = fixtureSources(path.join(work, 'git'), ['inventory-go', 'textkit-php'], ['textkit-php']);
    const gitPort = await freePort();
    start('git', ['daemon', '--reuseaddr', '--export-all', `--base-path=${path.join(work, 'git', 'remote')}`, `--listen=${hostIp}`, `--port=${gitPort}`, path.join(work, 'git', 'remote')], path.join(work, 'git-daemon.log'));
    const sourcesFile = path.join(coordinatorDir, 'sources.json');
    fs.writeFileSync(sourcesFile, JSON.stringify(Object.fromEntries(Object.entries(sources).map(([name, s]) => [name, { ...s, url: `git://${hostIp}:${gitPort}/${name}.git` }]))));
    // Redis on that address only, with a password as deployed: the workers reach it through the link.
    const redisPort = await freePort();
    const password = randomBytes(12).toString('hex');
    process.env.XREPOTEST_REDIS_PASSWORD = password; // the coordinator's and the workers' (inherited)
    process.env[RUN_KEY_ENV] = newRunKey(); // so is the run key that signs jobs and answers
    start('redis-server', ['--port', String(redisPort), '--bind', hostIp, '--requirepass', password, '--dir', work, '--save', '', '--appendonly', 'no'], path.join(work, 'redis.log'));
    const url = `redis://${hostIp}:${redisPort}`;
    for (let i = 0; i < 100 && !sh('redis-cli', ['-h', hostIp, '-p', String(redisPort), '-a', password, '--no-auth-warning', 'ping']).out.includes('PONG'); i++) await new Promise((r) => setTimeout(r, 100));

    for (const name of ['a', 'b']) {
      const own = path.join(work, `worker-${name}`);
      fs.mkdirSync(path.join(own, 'tmp'), { recursive: true });
      // Its own view: the coordinator's folder and the checkouts empty, its own scratch and cache.
      const script = [
        'set -e',
        `mount -t tmpfs tmpfs '${coordinatorDir}'`,
        `mount -t tmpfs tmpfs '${FIXTURES}'`,
        `exec '${process.execPath}' '${CLI}' worker --queue '${url}' --executor local --languages ${LANGS} --cache-dir '${path.join(own, 'cache')}' --allow-source 'git://${hostIp}:${gitPort}/'`,
      ].join('\n');
      start('ip', ['netns', 'exec', ns, 'unshare', '--mount', '--propagation', 'private', 'env', `TMPDIR=${path.join(own, 'tmp')}`, `XDG_CACHE_HOME=${path.join(own, 'xdg')}`, 'sh', '-c', script], path.join(work, `worker-${name}.log`));
    }

    const runDir = path.join(coordinatorDir, 'run');
    const coordinator = start(process.execPath, [CLI, 'bench', '--dataset', DATASET, '--lang', LANGS, '--executor', 'local', '--queue', url, '--sources', sourcesFile, '--run-dir', runDir, '--no-progress'], path.join(work, 'coordinator.log'));
    const code = await exited(coordinator);
    const logs = `${read(path.join(work, 'coordinator.log'))}\n--- a:\n${read(path.join(work, 'worker-a.log'))}\n--- b:\n${read(path.join(work, 'worker-b.log'))}`;
    assert.equal(code, 0, logs);
    const done = (read(path.join(work, 'worker-a.log')) + read(path.join(work, 'worker-b.log'))).match(/task \S+ done in /g) ?? [];
    assert.equal(done.length, 10, logs);

    const local = path.join(work, 'local');
    const r = spawnSync(process.execPath, [CLI, 'bench', '--dataset', DATASET, '--manifest', MANIFEST, '--lang', LANGS, '--executor', 'local', '--run-dir', local, '--no-progress'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(fs.readFileSync(path.join(runDir, 'summary.json'), 'utf8'), fs.readFileSync(path.join(local, 'summary.json'), 'utf8'));
    // The workers could not have read the checkouts: in their view the fixture folder was empty.
    const probe = sh('ip', ['netns', 'exec', ns, 'unshare', '--mount', '--propagation', 'private', 'sh', '-c', `mount -t tmpfs tmpfs '${FIXTURES}' && ls -A '${FIXTURES}' | wc -l`]);
    assert.equal(probe.out.trim(), '0');
  });
});
