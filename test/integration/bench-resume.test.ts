import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { memorySandboxParent } from '../../src/engine/execute/memory-folder';
import { CLI, fixture } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';

/** A small seeded PRNG (mulberry32): the kill points are random but the same on every run of the test. */
function prng(seed: number): () => number {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function lines(file: string): Array<Record<string, any>> {
  if (!fs.existsSync(file)) return [];
  const text = fs.readFileSync(file, 'utf8');
  // Every line is whole: the log cuts a torn tail when it reopens, and the next run reopens it.
  return text.split('\n').filter((l) => l.trim()).flatMap((l) => {
    try {
      return [JSON.parse(l)];
    } catch {
      return [];
    }
  });
}

function resultKeys(runDir: string): string[] {
  return lines(path.join(runDir, 'results.jsonl')).map((r) => `${r.id}|${r.xrt.sample}|${r.xrt.round}|${r.xrt.test_hash}`);
}

describe('bench: resumable across SIGKILL', function () {
  this.timeout(900_000);
  let dir: string;
  let tasks: string;

  before(function () {
    if (!hasTool('php') || !hasTool('rspec')) skipBecause(this, 'php and rspec are needed for the fixture tasks this test runs');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-resume-'));
    tasks = path.join(dir, 'tasks.jsonl');
    const r = spawnSync(process.execPath, [CLI, 'extract', fixture('textkit-php'), fixture('bookshelf-rb'), '--out', tasks, '--no-progress'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  });
  after(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

  const bench = (runDir: string): string[] => [CLI, 'bench', '--dataset', tasks, '--allow-checkouts', path.dirname(fixture('textkit-php')), '--executor', 'local', '--run-dir', runDir, '--concurrency', '2', '--no-progress'];

  it('killed at 10 random points and resumed each time, it ends with the same summary as an uninterrupted run, no record lost or doubled', async () => {
    const whole = path.join(dir, 'whole');
    const t0 = Date.now();
    const uninterrupted = spawnSync(process.execPath, bench(whole), { encoding: 'utf8' });
    assert.equal(uninterrupted.status, 0, uninterrupted.stderr);
    const wholeMs = Date.now() - t0;
    const expected = JSON.parse(fs.readFileSync(path.join(whole, 'summary.json'), 'utf8'));
    assert.equal(expected.total_samples, 10);

    const killed = path.join(dir, 'killed');
    const random = prng(20261130);
    let kills = 0;
    for (let attempt = 0; kills < 10 && attempt < 30; attempt++) {
      // Kill anywhere from start-up to the end of what is left to do (start-up included: a kill there
      // is a kill too); a killed run redoes at most the tasks in flight.
      const left = 10 - resultKeys(killed).length;
      const at = 100 + Math.floor(random() * Math.max(300, (wholeMs * left) / 10) * 0.9);
      const child = spawn(process.execPath, bench(killed), { detached: true, stdio: 'ignore' });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const timer = new Promise<'timer'>((resolve) => setTimeout(() => resolve('timer'), at));
      if ((await Promise.race([exited, timer])) === 'timer') {
        process.kill(-child.pid!, 'SIGKILL'); // the whole group: the CLI and what it runs
        kills++;
      }
      await exited;
      const keys = resultKeys(killed);
      assert.equal(new Set(keys).size, keys.length, `after attempt ${attempt + 1}: no result twice`);
    }
    assert.equal(kills, 10, 'ten runs were killed');
    const resumed = spawnSync(process.execPath, bench(killed), { encoding: 'utf8' });
    assert.equal(resumed.status, 0, resumed.stderr);
    const keys = resultKeys(killed);
    assert.equal(keys.length, 10, 'every task has its result');
    assert.equal(new Set(keys).size, 10, 'none twice');
    const gens = lines(path.join(killed, 'generations.jsonl')).map((g) => `${g.id}|${g.sample}|${g.round}`);
    assert.equal(new Set(gens).size, gens.length, 'no generation twice');
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(killed, 'summary.json'), 'utf8')), expected);
  });

  it('stops cleanly on Ctrl-C: exit 130, finished results kept, nothing left running', async () => {
    const runDir = path.join(dir, 'interrupted');
    const child = spawn(process.execPath, bench(runDir), { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // Interrupt once the first result is on disk, mid-run.
    const deadline = Date.now() + 120_000;
    while (resultKeys(runDir).length < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    child.kill('SIGINT');
    const code = await exited;
    assert.equal(code, 130, stderr);
    assert.match(stderr, /interrupted: \d+ results are kept in .*run the same command again to continue/);
    const kept = resultKeys(runDir).length;
    assert.ok(kept >= 1 && kept < 10, `some results kept (${kept})`);
    const ps = spawnSync('ps', ['-eo', 'pid,ppid,args'], { encoding: 'utf8' }).stdout;
    assert.doesNotMatch(ps, new RegExp(`xrt-sandbox-ns\\d+-${child.pid}-`), 'no process of the run is left');
    // On disk, or in memory where the engine makes a language's sandboxes (execute/memory-folder.ts).
    const folders = [os.tmpdir(), memorySandboxParent()].filter((d): d is string => !!d);
    assert.deepEqual(
      folders.flatMap((d) => fs.readdirSync(d).filter((n) => new RegExp(`^xrt-sandbox-ns\\d+-${child.pid}-`).test(n))),
      [],
      'its sandboxes are removed',
    );
  });

  it('refuses to resume a run folder with other settings', () => {
    const r = spawnSync(process.execPath, [...bench(path.join(dir, 'whole')), '--mode', 'file'], { encoding: 'utf8' });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /holds a run with other settings \(mode, params\)|holds a run with other settings \(mode\)/);
  });
});
