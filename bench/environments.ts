/**
 * Tasks per hour with repository environments reused, next to a fresh environment per task, measured
 * side by side in one run on the example dataset's tasks (baseline tests, so no model is involved):
 *   local  — reused: one executor and its shared, warmed build cache (Go compiles the standard library
 *            once); fresh: a new, empty cache for every task.
 *   docker — reused: the repository's environment image built once; fresh: rebuilt for every task.
 * `npm run bench:environments [-- go,rust,php,ruby]` (default: all four).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DockerExecutor } from '../src/engine/execute/docker';
import { connectEngine } from '../src/engine/execute/docker-engine';
import { evaluateTest } from '../src/engine/execute/evaluate';
import { buildEnvImage } from '../src/engine/execute/images';
import { LocalExecutor } from '../src/engine/execute/local';
import { baselineTest } from '../src/engine/generate/baseline';
import { loadTasks } from '../src/engine/tasks/load';
import { checkTasks, loadManifest } from '../src/engine/tasks/manifest';

const ROOT = path.join(__dirname, '..');

async function main(): Promise<void> {
  const langs = (process.argv[2] ?? 'go,rust,php,ruby').split(',');
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

  let docker: DockerExecutor;
  try {
    docker = await DockerExecutor.create({ engine: await connectEngine() });
  } catch (e) {
    console.log(`docker    not measured: ${(e as Error).message.split('\n')[0]}`);
    return;
  }
  const images = new Map<string, string>();
  const dockerReused = await time(async () => {
    for (const w of work) {
      const key = `${w.task.language}:${w.checkout}`;
      if (!images.has(key)) images.set(key, await buildEnvImage(docker.engine.docker, w.checkout, w.task.language));
      await evaluateTest(w.task.task, w.task.language, w.test, { executor: docker, repoDir: w.checkout, image: images.get(key) });
    }
  });
  const dockerFresh = await time(async () => {
    for (const w of work) {
      const image = await buildEnvImage(docker.engine.docker, w.checkout, w.task.language, { force: true });
      await evaluateTest(w.task.task, w.task.language, w.test, { executor: docker, repoDir: w.checkout, image });
    }
  });
  console.log(`docker    reused       ${(dockerReused / 1000).toFixed(1).padStart(7)} ${rate(work.length, dockerReused)}`);
  console.log(`docker    fresh        ${(dockerFresh / 1000).toFixed(1).padStart(7)} ${rate(work.length, dockerFresh)}`);
  console.log(`          reused/fresh speed-up: ${(dockerFresh / dockerReused).toFixed(2)}x`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
