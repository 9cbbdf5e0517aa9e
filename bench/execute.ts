/**
 * What scoring costs next to the language's own test command with coverage. Per language, for the same
 * task and the same passing test, the median wall time of
 *   native — the language's own test command WITH coverage, in a warm copy of the checkout, run right
 *            after the test file was written there (`go test -coverprofile -run`, `cargo test` with
 *            `-C instrument-coverage` + `llvm-profdata merge` + `llvm-cov export`, `phpunit
 *            --coverage-clover` with pcov, `rspec` with Ruby's Coverage started first); the command is
 *            built by the language adapter's `native` part (src/engine/languages/<id>/native.ts);
 *   plain  — the same test command without coverage (the column this benchmark used to call native);
 *   local  — the whole scored evaluation with the local executor (copy, place, compile, test, coverage,
 *            parse, score, clean up);
 *   docker — the same in a container, where an engine and the language image are available;
 * all measured side by side in one run: one untimed warm round first, then rounds interleaving the four.
 *
 * Every round writes the test anew with a distinct marker comment in it, for all four columns: no
 * toolchain can serve a cached build or result of identical content (Go's build cache keys on content),
 * so what the new test changes is compiled each round, as it is for a person who just wrote it.
 *
 *   npm run bench:execute [-- rounds] [--json] [--lang go,rust]
 *       the fixtures (test/fixtures) with test/data/generated/<lang>/pass.*
 *   npm run bench:execute -- --tasks T.jsonl --tests G.jsonl --repos DIR [--rounds n]
 *       any repository: T is a task file (`xrepotest extract`), G one test per task in the format
 *       `xrepotest run --tests` reads; a task's checkout is DIR/<repository folder> (as `run --repos`).
 *       The native runs use a copy of each checkout (made once per repository, outside it): the user's
 *       checkout is never modified. A test whose native run or scored run does not pass is reported
 *       and left out.
 * With several tasks of a language, its figures are medians over all its timed runs (tasks × rounds).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Command } from 'commander';
import { DockerExecutor } from '../src/engine/execute/docker';
import { connectEngine } from '../src/engine/execute/docker-engine';
import { evaluateTest } from '../src/engine/execute/evaluate';
import { buildEnvImage, findLanguageImage } from '../src/engine/execute/images';
import { LocalExecutor } from '../src/engine/execute/local';
import { findProjectRoot, focalPathInRepo, NOT_COPIED } from '../src/engine/execute/sandbox';
import type { Executor } from '../src/engine/execute/types';
import { extractRepository } from '../src/engine/extract/extract';
import { adapterFor, parseLanguageId, type LanguageId } from '../src/engine/languages';
import type { NativeRun } from '../src/engine/languages/execution-types';
import { runNativeSteps } from '../src/engine/languages/native-steps';
import { loadGenerations } from '../src/engine/tasks/generations';
import { formatProblem } from '../src/engine/tasks/jsonl';
import { loadTasks } from '../src/engine/tasks/load';
import { locateCheckout } from '../src/engine/tasks/manifest';
import type { TaskRecord } from '../src/engine/tasks/record';

const ROOT = path.join(__dirname, '..');
const FIXTURE: Record<LanguageId, { dir: string; focal: string; ext: string }> = {
  go: { dir: 'inventory-go', focal: 'Status', ext: 'go' },
  rust: { dir: 'geometry-rs', focal: 'classify_triangle', ext: 'rs' },
  php: { dir: 'textkit-php', focal: 'slugify', ext: 'php' },
  ruby: { dir: 'bookshelf-rb', focal: 'search', ext: 'rb' },
  julia: { dir: 'MiniStats.jl', focal: 'histogram', ext: 'jl' },
};

/** One task with its passing test, and the user's checkout it belongs to. */
interface Case {
  language: LanguageId;
  task: TaskRecord;
  test: string;
  checkout: string;
  label: string;
}

type Column = 'native' | 'plain' | 'local' | 'docker';

interface Options {
  rounds: number;
  json: boolean;
  lang?: LanguageId[];
  tasks?: string;
  tests?: string;
  repos?: string;
}

function parseOptions(argv: string[]): Options {
  const program = new Command('bench-execute')
    .description('median wall time of the language\'s own test command with coverage, the plain test command, and the scored evaluation (local, docker)')
    .argument('[rounds]', 'timed rounds (default 5, or BENCH_ROUNDS)')
    .option('--rounds <n>', 'timed rounds (same as the argument)')
    .option('--json', 'print one JSON array, one object per language')
    .option('--lang <list>', 'only these languages, comma-separated')
    .option('--tasks <file>', 'a task file (JSONL) instead of the fixtures; needs --tests and --repos')
    .option('--tests <file>', 'one test per task (generations JSONL, as `xrepotest run --tests` reads)')
    .option('--repos <dir>', 'where checkouts live: <dir>/<repository folder>')
    .showHelpAfterError();
  program.parse(argv);
  const o = program.opts<{ rounds?: string; json?: boolean; lang?: string; tasks?: string; tests?: string; repos?: string }>();
  const rounds = Number(o.rounds ?? program.args[0] ?? process.env.BENCH_ROUNDS ?? 5);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`rounds: a whole number ≥ 1, not ${o.rounds ?? program.args[0]}`);
  if (o.tasks && (!o.tests || !o.repos)) throw new Error('--tasks needs --tests and --repos');
  if (!o.tasks && (o.tests || o.repos)) throw new Error('--tests and --repos go with --tasks');
  const lang = o.lang?.split(',').map((l) => {
    const id = parseLanguageId(l);
    if (!id) throw new Error(`--lang: unknown language ${l}`);
    return id;
  });
  return { rounds, json: !!o.json, lang, tasks: o.tasks, tests: o.tests, repos: o.repos };
}

async function fixtureCases(only?: LanguageId[]): Promise<Case[]> {
  const cases: Case[] = [];
  for (const language of Object.keys(FIXTURE) as LanguageId[]) {
    if (only && !only.includes(language)) continue;
    const f = FIXTURE[language];
    const checkout = path.join(ROOT, 'test', 'fixtures', f.dir);
    const { tasks } = await extractRepository(checkout, { languages: [language] });
    const task = tasks.find((t) => t.function_name === f.focal);
    if (!task) throw new Error(`${language}: no task for ${f.focal} in ${checkout}`);
    const test = fs.readFileSync(path.join(ROOT, 'test', 'data', 'generated', language, `pass.${f.ext}`), 'utf8');
    cases.push({ language, task, test, checkout, label: `${f.dir}:${f.focal}` });
  }
  return cases;
}

async function repositoryCases(o: Options): Promise<Case[]> {
  const { tasks, problems } = await loadTasks([o.tasks!]);
  for (const p of problems) process.stderr.write(formatProblem(p) + '\n');
  const loaded = await loadGenerations([o.tests!], tasks);
  for (const p of loaded.problems) process.stderr.write(formatProblem(p) + '\n');
  const cases: Case[] = [];
  for (const g of loaded.generations) {
    if (o.lang && !o.lang.includes(g.task.language)) continue;
    const found = locateCheckout(g.task, { reposRoot: o.repos });
    if (found.checkout === null) throw new Error(`task ${g.task.task.task_id}: ${found.reason}`);
    cases.push({ language: g.task.language, task: g.task.task, test: g.testCode, checkout: found.checkout, label: `${g.task.task.file_path}:${g.task.task.function_name}` });
  }
  if (!cases.length) throw new Error('nothing to measure: no test matched a task');
  return cases;
}

function has(cmd: string): boolean {
  return spawnSync('sh', ['-c', 'command -v "$1"', 'sh', cmd]).status === 0;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Runs the steps in order; throws when one does not exit 0 (a passing test must pass natively too). */
async function runSteps(steps: NativeRun['withCoverage'], label: string): Promise<void> {
  const r = await runNativeSteps(steps);
  if (!r.ok) throw new Error(`${label}: \`${r.failed.argv.join(' ')}\` exited ${r.failed.status}:\n${r.failed.output.slice(-6000)}`);
}

/** A copy of a checkout for the native runs (never the user's own), made once per repository so it stays warm. */
function warmCopy(copies: Map<string, string>, checkout: string): string {
  let copy = copies.get(checkout);
  if (!copy) {
    copy = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-bench-native-'));
    fs.cpSync(checkout, copy, { recursive: true, filter: (src) => src === checkout || !NOT_COPIED.has(path.basename(src)) });
    copies.set(checkout, copy);
  }
  return copy;
}

/** The image a case's docker runs use: the repository's environment image, else the language image (undefined: none here). */
async function imageFor(docker: DockerExecutor, language: LanguageId, checkout: string | null, log: (line: string) => void): Promise<string | undefined> {
  if (checkout) {
    try {
      return await buildEnvImage(docker.engine.docker, checkout, language);
    } catch (e) {
      log(`${path.basename(checkout)}: no environment image (${(e as Error).message.split('\n')[0]}); the language image instead`);
    }
  }
  return (await findLanguageImage(docker.engine.docker, language)) ?? undefined;
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv);
  const log = (line: string): void => void (o.json ? process.stderr : process.stdout).write(line + '\n');
  const cases = o.tasks ? await repositoryCases(o) : await fixtureCases(o.lang);
  const local = new LocalExecutor();
  let docker: DockerExecutor | null = null;
  try {
    docker = await DockerExecutor.create({ engine: await connectEngine() });
  } catch (e) {
    log(`docker: not measured (${(e as Error).message.split('\n')[0]})`);
  }
  log(`rounds: ${o.rounds} (median ms, one warm round first); local: ${(await local.info('go')).engine}; load: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);

  const copies = new Map<string, string>();
  const times = new Map<LanguageId, Record<Column, number[]>>();
  const counted = new Map<LanguageId, number>();
  const images = new Map<string, string | undefined>();
  let seq = 0;
  try {
    await measureAll();
  } finally {
    for (const copy of copies.values()) fs.rmSync(copy, { recursive: true, force: true });
    // Its reused containers and their folders: left, they would wait for the next run's reaper.
    await docker?.close();
    await local.close();
  }

  async function measureAll(): Promise<void> {
    for (const c of cases) {
      const adapter = adapterFor(c.language);
      if (c.language === 'julia' && !has('julia')) {
        log(`${c.label}: not measured (no julia on PATH)`);
        continue;
      }
      // A repository's tasks run in its environment image (base → language → its dependencies, built
      // once, as `run --executor docker` builds it); the fixtures' in the language image.
      const imageKey = o.tasks ? `${c.language}:${c.checkout}` : c.language;
      if (docker && !images.has(imageKey)) images.set(imageKey, await imageFor(docker, c.language, o.tasks ? c.checkout : null, log));
      const image = images.get(imageKey);
      const copy = warmCopy(copies, c.checkout);
      const focalFile = path.join(copy, focalPathInRepo(c.task));
      const projectRoot = findProjectRoot(copy, focalFile, adapter.toolchain.manifests);
      const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-bench-out-'));
      const marked = (): string => adapter.native.mark(c.test, `xrepotest bench round ${++seq} ${randomBytes(6).toString('hex')}`);
      const native = (which: 'withCoverage' | 'plain') => async (): Promise<number> => {
        const run = await adapter.native.prepare({ projectRoot, focalFile, task: c.task, testCode: marked(), outDir });
        try {
          if (run.report) fs.rmSync(run.report, { force: true });
          const ms = await timeIt(() => runSteps(run[which], `${c.label} (native${which === 'plain' ? ', plain' : ''})`));
          if (which === 'withCoverage' && run.report && !(fs.statSync(run.report, { throwIfNoEntry: false })?.size ?? 0)) {
            throw new Error(`${c.label} (native): the run exited 0 but left no coverage report at ${run.report}`);
          }
          return ms;
        } finally {
          run.restore();
          if (run.settle) await runSteps(run.settle, `${c.label} (native, settling the build state)`);
        }
      };
      // Where a scored run's time goes: each phase's own time, and the engine's (copy, placement, parsing, scoring, clean-up).
      const split: Partial<Record<Column, Map<string, number[]>>> = {};
      const evaluate = (column: Column, executor: Executor, img?: string) => async (): Promise<number> => {
        const test = marked();
        const t0 = process.hrtime.bigint();
        const e = await evaluateTest(c.task, c.language, test, { executor, repoDir: c.checkout, image: img });
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        if (!e.score.passed) throw new Error(`${c.label}: the test did not pass under ${executor.kind} (${e.score.failure?.category ?? 'no category'}${e.score.reason ? `: ${e.score.reason.slice(0, 300)}` : ''})`);
        const parts = (split[column] ??= new Map());
        const add = (name: string, v: number): void => void parts.set(name, [...(parts.get(name) ?? []), v]);
        for (const p of e.phases) add(p.phase, p.durationMs);
        add('engine', ms - e.phases.reduce((sum, p) => sum + p.durationMs, 0));
        return ms;
      };
      const runs: Array<[Column, () => Promise<number>]> = [
        ['native', native('withCoverage')],
        ['plain', native('plain')],
        ['local', evaluate('local', local)],
      ];
      if (docker && image) runs.push(['docker', evaluate('docker', docker, image)]);
      const mine: Record<Column, number[]> = { native: [], plain: [], local: [], docker: [] };
      try {
        for (const [name, f] of runs) {
          // warm; a repository the container cannot build (its toolchain is older than a dependency
          // needs) keeps its other columns, and its docker column says why it is empty.
          if (name !== 'docker' || !o.tasks) await f();
          else
            await f().catch((e: Error) => {
              log(`${c.label}: docker not measured: ${e.message}`);
              runs.splice(runs.findIndex(([n]) => n === 'docker'), 1);
            });
        }
        for (const k of Object.keys(split) as Column[]) delete split[k];
        for (let i = 0; i < o.rounds; i++) for (const [name, f] of runs) mine[name].push(await f());
      } catch (e) {
        if (!o.tasks) throw e;
        log(`left out: ${(e as Error).message}`);
        continue;
      } finally {
        fs.rmSync(outDir, { recursive: true, force: true });
      }
      log(`${c.label}: native ${median(mine.native).toFixed(0)} ms, plain ${median(mine.plain).toFixed(0)} ms, local ${median(mine.local).toFixed(0)} ms${mine.docker.length ? `, docker ${median(mine.docker).toFixed(0)} ms` : ''}`);
      for (const [column, parts] of Object.entries(split)) {
        // Medians per part (phases a round skipped count as absent): they need not add up to the column's median.
        log(`  ${column}: ${[...parts].map(([name, v]) => `${name} ${median(v).toFixed(0)}${v.length < o.rounds ? ` (${v.length}/${o.rounds})` : ''}`).join(' + ')}`);
      }
      const all = times.get(c.language) ?? { native: [], plain: [], local: [], docker: [] };
      for (const k of Object.keys(all) as Column[]) all[k].push(...mine[k]);
      times.set(c.language, all);
      counted.set(c.language, (counted.get(c.language) ?? 0) + 1);
    }
  }

  const rows = [...times].map(([language, t]) => ({
    language,
    native_ms: Math.round(median(t.native)),
    plain_ms: Math.round(median(t.plain)),
    local_ms: Math.round(median(t.local)),
    docker_ms: t.docker.length ? Math.round(median(t.docker)) : null,
    rounds: o.rounds,
    tasks: counted.get(language) ?? 0,
  }));
  log(`load after: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  if (o.json) {
    process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
    return;
  }
  const cell = (x: number | null, w: number): string => (x === null ? '—'.padStart(w) : x.toFixed(0).padStart(w));
  const ratio = (x: number | null, n: number, w: number): string => (x === null ? '—'.padStart(w) : (x / n).toFixed(2).padStart(w));
  console.log('\nnative = own test command with coverage; plain = without coverage');
  console.log('language  tasks  native ms  plain ms  local ms  local/native  local/plain  docker ms  docker/native');
  for (const r of rows) {
    console.log(
      `${r.language.padEnd(8)} ${String(r.tasks).padStart(6)} ${cell(r.native_ms, 10)} ${cell(r.plain_ms, 9)} ${cell(r.local_ms, 9)} ${ratio(r.local_ms, r.native_ms, 13)} ${ratio(r.local_ms, r.plain_ms, 12)} ${cell(r.docker_ms, 10)} ${ratio(r.docker_ms, r.native_ms, 14)}`,
    );
  }
}

async function timeIt(f: () => Promise<void>): Promise<number> {
  const t0 = process.hrtime.bigint();
  await f();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
