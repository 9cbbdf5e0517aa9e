/**
 * What a new process's first docker slot costs, cold and with the build kept from an earlier process
 * (issue 30: "keep every build product across slots, editor restarts and CLI runs"). Per case, each
 * measurement a process of its own (this script with `--child`), side by side in one run:
 *   cold   — the docker executor's kept builds in a fresh, empty folder (`DockerExecutor({ cacheRoot })`);
 *   kept   — a new process with the folder the cold one filled;
 *   second — the second slot of that same process (its reused container: what a running CLI pays).
 * Cases: the Rust fixture geometry-rs (`classify_triangle`, test/data/generated/rust/pass.rs), and
 * with `--tasks T --tests G --repos DIR` any tasks (their repository's environment image is built
 * first, untimed). `--reuse false`: a container per slot, as the editor's server runs them.
 *
 *   npm run bench:docker-restart -- [--rounds n] [--json] [--reuse false] [--tasks T --tests G --repos DIR]
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Command } from 'commander';
import { DockerExecutor } from '../src/engine/execute/docker';
import { connectEngine } from '../src/engine/execute/docker-engine';
import { evaluateTest } from '../src/engine/execute/evaluate';
import { buildEnvImage, findLanguageImage } from '../src/engine/execute/images';
import { extractRepository } from '../src/engine/extract/extract';
import type { LanguageId } from '../src/engine/languages';
import { loadGenerations } from '../src/engine/tasks/generations';
import { loadTasks } from '../src/engine/tasks/load';
import { locateCheckout } from '../src/engine/tasks/manifest';
import type { TaskRecord } from '../src/engine/tasks/record';

const ROOT = path.join(__dirname, '..');

interface Case {
  label: string;
  language: LanguageId;
  task: TaskRecord;
  test: string;
  checkout: string;
  image: string;
}

interface ChildSpec {
  case: Case;
  cacheRoot: string;
  reuse: boolean;
  /** Slots run one after another in the process (the second in its reused container). */
  slots: number;
}

interface SlotTime {
  ms: number;
  passed: boolean;
  reason: string | null;
  phases: Array<{ phase: string; ms: number }>;
}

async function child(spec: ChildSpec): Promise<void> {
  const docker = await DockerExecutor.create({ engine: await connectEngine(), cacheRoot: spec.cacheRoot, reuse: spec.reuse });
  const out: SlotTime[] = [];
  try {
    for (let i = 0; i < spec.slots; i++) {
      const t0 = process.hrtime.bigint();
      const e = await evaluateTest(spec.case.task, spec.case.language, spec.case.test, { executor: docker, repoDir: spec.case.checkout, image: spec.case.image });
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (process.env.XRT_BENCH_VERBOSE) for (const p of e.phases) process.stderr.write(`--- slot ${i + 1} ${p.phase} (${p.durationMs} ms)\n${p.output.slice(-3000)}\n`);
      out.push({ ms, passed: e.score.passed, reason: e.score.passed ? null : e.score.reason, phases: e.phases.map((p) => ({ phase: p.phase, ms: p.durationMs })) });
    }
  } finally {
    await docker.close();
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}

function inChild(spec: ChildSpec): SlotTime[] {
  const r = spawnSync(process.execPath, [__filename, '--child', JSON.stringify(spec)], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: process.env });
  if (r.status !== 0) throw new Error(`${spec.case.label}: the measuring process exited ${r.status}: ${r.stderr.slice(-2000)}`);
  if (process.env.XRT_BENCH_VERBOSE) process.stderr.write(r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as SlotTime[];
}

const load = (): string => os.loadavg().map((x) => x.toFixed(2)).join(' ');
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const phases = (s: SlotTime): string => s.phases.map((p) => `${p.phase} ${p.ms}`).join(' + ');

async function cases(o: { tasks?: string; tests?: string; repos?: string }): Promise<Case[]> {
  const docker = (await connectEngine()).docker;
  if (!o.tasks) {
    const checkout = path.join(ROOT, 'test', 'fixtures', 'geometry-rs');
    const { tasks } = await extractRepository(checkout, { languages: ['rust'] });
    const task = tasks.find((t) => t.function_name === 'classify_triangle')!;
    const image = await findLanguageImage(docker, 'rust');
    if (!image) throw new Error('no rust image: run `xrepotest images build --lang rust` first');
    return [{ label: 'geometry-rs:classify_triangle', language: 'rust', task, test: fs.readFileSync(path.join(ROOT, 'test', 'data', 'generated', 'rust', 'pass.rs'), 'utf8'), checkout, image }];
  }
  const { tasks } = await loadTasks([o.tasks]);
  const loaded = await loadGenerations([o.tests!], tasks);
  const out: Case[] = [];
  for (const g of loaded.generations) {
    const found = locateCheckout(g.task, { reposRoot: o.repos });
    if (found.checkout === null) throw new Error(found.reason);
    const image = await buildEnvImage(docker, found.checkout, g.task.language);
    out.push({ label: `${g.task.task.file_path}:${g.task.task.function_name}`, language: g.task.language, task: g.task.task, test: g.testCode, checkout: found.checkout, image });
  }
  return out;
}

async function main(): Promise<void> {
  const program = new Command('bench-docker-restart')
    .option('--rounds <n>', 'rounds, each from an empty folder of kept builds', '1')
    .option('--reuse <bool>', 'reused containers (true) or a container per slot (false, as the editor)', 'true')
    .option('--json', 'print the figures as JSON')
    .option('--tasks <file>')
    .option('--tests <file>')
    .option('--repos <dir>');
  program.parse(process.argv);
  const o = program.opts<{ rounds: string; reuse: string; json?: boolean; tasks?: string; tests?: string; repos?: string }>();
  const reuse = o.reuse !== 'false';
  const log = (line: string): void => void (o.json ? process.stderr : process.stdout).write(line + '\n');
  log(`load: ${load()}; containers ${reuse ? 'reused' : 'one per slot'}`);
  const results: Array<{ label: string; cold_ms: number[]; kept_ms: number[]; second_ms: number[]; load: string[] }> = [];
  for (const c of await cases(o)) {
    const r = { label: c.label, cold_ms: [] as number[], kept_ms: [] as number[], second_ms: [] as number[], load: [] as string[] };
    for (let i = 0; i < Number(o.rounds); i++) {
      const cacheRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-bench-kept-'));
      try {
        r.load.push(load());
        const [cold] = inChild({ case: c, cacheRoot, reuse, slots: 1 });
        const [kept, second] = inChild({ case: c, cacheRoot, reuse, slots: 2 });
        for (const s of [cold, kept, second]) if (!s.passed) throw new Error(`${c.label}: the test did not pass: ${s.reason}`);
        r.cold_ms.push(cold.ms);
        r.kept_ms.push(kept.ms);
        r.second_ms.push(second.ms);
        log(`${c.label} round ${i + 1} (load ${r.load[i]}): cold ${cold.ms.toFixed(0)} ms (${phases(cold)}); kept, new process ${kept.ms.toFixed(0)} ms (${phases(kept)}); its second slot ${second.ms.toFixed(0)} ms (${phases(second)})`);
      } finally {
        fs.rmSync(cacheRoot, { recursive: true, force: true });
      }
    }
    const k = median(r.kept_ms);
    log(`${c.label}: median cold ${median(r.cold_ms).toFixed(0)} ms, kept ${k.toFixed(0)} ms, second ${median(r.second_ms).toFixed(0)} ms; cold/kept ${(median(r.cold_ms) / k).toFixed(2)}, kept/second ${(k / median(r.second_ms)).toFixed(2)}`);
    results.push(r);
  }
  log(`load after: ${load()}`);
  if (o.json) process.stdout.write(JSON.stringify(results, null, 2) + '\n');
}

if (process.argv[2] === '--child') {
  child(JSON.parse(process.argv[3]) as ChildSpec).catch((e) => {
    console.error(e instanceof Error ? e.stack : e);
    process.exit(1);
  });
} else {
  main().catch((e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
