/**
 * Tasks per hour with repository environments reused, next to a fresh environment per task, measured
 * side by side in one run on the example dataset's tasks (baseline tests, so no model is involved):
 *   local  — reused: one executor and its shared, warmed build cache (Go compiles the standard library
 *            once); fresh: a new, empty cache for every task.
 *   docker — reused: one container per environment (image and limits) serving task after task, each
 *            in a fresh folder (DockerExecutor.lease); fresh: a new container per task. The repository
 *            environment images (base → language → dependencies) are built once before either is timed.
 * `npm run bench:environments [-- go,rust,php,ruby [ROUNDS [docker|local]]]` (default: all four, 2 docker rounds, both parts).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DockerExecutor, reapStaleContainers } from '../src/engine/execute/docker';
import { connectEngine, type ConnectedEngine } from '../src/engine/execute/docker-engine';
import { evaluateTest } from '../src/engine/execute/evaluate';
import { buildEnvImage } from '../src/engine/execute/images';
import { LocalExecutor } from '../src/engine/execute/local';
import { baselineTest } from '../src/engine/generate/baseline';
import { loadTasks } from '../src/engine/tasks/load';
import { checkTasks, loadManifest } from '../src/engine/tasks/manifest';

const ROOT = path.join(__dirname, '..');

async function main(): Promise<void> {
  const langs = (process.argv[2] ?? 'go,rust,php,ruby').split(',');
  const rounds = Math.max(1, Number(process.argv[3] ?? 2) || 2);
  const only = process.argv[4]; // 'docker' or 'local': measure only that part
  const example = path.join(ROOT, 'examples', 'fixtures');
  const { tasks } = await loadTasks([path.join(example, 'tasks.jsonl')]);
  const checked = checkTasks(tasks.filter((t) => langs.includes(t.language)), loadManifest(path.join(example, 'manifest.json')));
  const work = await Promise.all(checked.usable.map(async (u) => ({ ...u, test: await baselineTest(u.task.task, u.task.language) })));
  console.log(`${work.length} tasks (${langs.join(', ')}), baseline tests, one task at a time\n`);
  console.log('executor  environments   seconds   tasks/hour');

  const rate = (n: number, ms: number): string => ((n * 3600_000) / ms).toFixed(0).padStart(10);
  const time = async (f: () => Promise<void>): Promise<number> => {
    const t0 = Date.now();
    await f();
    return Date.now() - t0;
  };

  if (only !== 'docker') await measureLocal(work, rate, time);
  if (only !== 'local') await measureDocker(work, rounds, rate, time);
}

type Work = { task: { task: Parameters<typeof evaluateTest>[0]; language: Parameters<typeof evaluateTest>[1] }; checkout: string; test: string }[];
type Rate = (n: number, ms: number) => string;
type Time = (f: () => Promise<void>) => Promise<number>;

async function measureLocal(work: Work, rate: Rate, time: Time): Promise<void> {
  // local, reused: the shared cache is warmed by the first task, as in any real run.
  const sharedRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-bench-env-'));
  const reused = new LocalExecutor({ cacheRoot: sharedRoot });
  const localReused = await time(async () => {
    for (const w of work) await evaluateTest(w.task.task, w.task.language, w.test, { executor: reused, repoDir: w.checkout });
  });
  const localFresh = await time(async () => {
    for (const w of work) {
      const cacheRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-bench-env-'));
      await evaluateTest(w.task.task, w.task.language, w.test, { executor: new LocalExecutor({ cacheRoot }), repoDir: w.checkout });
      fs.rmSync(cacheRoot, { recursive: true, force: true });
    }
  });
  fs.rmSync(sharedRoot, { recursive: true, force: true });
  console.log(`local     reused       ${(localReused / 1000).toFixed(1).padStart(7)} ${rate(work.length, localReused)}`);
  console.log(`local     fresh        ${(localFresh / 1000).toFixed(1).padStart(7)} ${rate(work.length, localFresh)}`);
  console.log(`          reused/fresh speed-up: ${(localFresh / localReused).toFixed(2)}x`);
}

async function measureDocker(work: Work, rounds: number, rate: Rate, time: Time): Promise<void> {

  let engine: ConnectedEngine;
  try {
    engine = await connectEngine();
    await reapStaleContainers(engine.docker);
  } catch (e) {
    console.log(`docker    not measured: ${(e as Error).message.split('\n')[0]}`);
    return;
  }
  // Each repository's environment image (base → language → dependencies) is built once, before
  // either is timed: what is compared is the container per slot, not the image.
  const images = new Map<string, string>();
  for (const w of work) {
    const key = `${w.task.language}:${w.checkout}`;
    if (!images.has(key)) images.set(key, await buildEnvImage(engine.docker, w.checkout, w.task.language));
  }
  const perLanguage = new Map<string, { reused: number; fresh: number }>();
  const dockerRound = async (executor: DockerExecutor, which: 'reused' | 'fresh'): Promise<number> =>
    time(async () => {
      for (const w of work) {
        const t0 = Date.now();
        await evaluateTest(w.task.task, w.task.language, w.test, { executor, repoDir: w.checkout, image: images.get(`${w.task.language}:${w.checkout}`) });
        const row = perLanguage.get(w.task.language) ?? { reused: 0, fresh: 0 };
        row[which] += Date.now() - t0;
        perLanguage.set(w.task.language, row);
      }
    });
  // reused: one executor whose containers serve slot after slot; fresh: a new container per slot.
  // Rounds alternate so that neither gets all the warm page cache; the reused pool is made in round 1.
  const pooled = new DockerExecutor(engine);
  const single = new DockerExecutor(engine, { reuse: false });
  let dockerReused = 0;
  let dockerFresh = 0;
  try {
    for (let round = 0; round < rounds; round++) {
      dockerFresh += await dockerRound(single, 'fresh');
      dockerReused += await dockerRound(pooled, 'reused');
    }
  } finally {
    await pooled.close();
  }
  const n = work.length * rounds;
  console.log(`docker    reused       ${(dockerReused / 1000).toFixed(1).padStart(7)} ${rate(n, dockerReused)}`);
  console.log(`docker    fresh        ${(dockerFresh / 1000).toFixed(1).padStart(7)} ${rate(n, dockerFresh)}`);
  console.log(`          reused/fresh speed-up: ${(dockerFresh / dockerReused).toFixed(2)}x (${rounds} rounds of ${work.length} tasks)`);
  for (const [language, row] of perLanguage) console.log(`          ${language.padEnd(5)} reused ${(row.reused / 1000).toFixed(1)} s, fresh ${(row.fresh / 1000).toFixed(1)} s: ${(row.fresh / row.reused).toFixed(2)}x`);
  if (pooled.discarded.length) console.log(`          reused containers discarded after a slot: ${pooled.discarded.length} (${pooled.discarded.at(-1)})`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
