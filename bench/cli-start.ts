/**
 * What the CLI costs before it does anything, next to the work it wraps. Side by side in one run,
 * the median wall time and CPU time (user + sys of the process and every process it waited for) of
 *   node -e 0                  — Node starting and doing nothing: the floor under every row;
 *   xrepotest --help           — the CLI loading what every verb needs (commander, the verbs' flags);
 *   xrepotest run --help       — the same for one verb;
 *   xrepotest run              — a real one-task run: the Go fixture's `Status` with its passing test
 *                                (test/data/generated/go/pass.go), on the local executor;
 *   go test -cover             — the language's own test command with coverage on the same package
 *                                and test (the adapter's native command, src/engine/languages/go/native.ts),
 *                                in a warm copy of the fixture;
 * with each row's ratio to `go test -cover`. One untimed round first, then rounds interleaving the rows.
 * Every round writes the test anew with a distinct marker comment, so neither the scored run nor `go
 * test` is served a cached build of it.
 *
 *   npm run bench:cli-start [-- --rounds n] [--json] [--compare OTHER/dist/cli.js]
 *
 * `--compare` adds the three xrepotest rows of another build (a copy of an older dist/, say) to the same
 * rounds, so a before/after comparison shares the machine's load.
 *
 * CPU time is read from /proc/self/stat (cutime + cstime: the children this process waited for, with
 * what they waited for), so it counts bubblewrap, the Go toolchain and the test binary too.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Command } from 'commander';
import { NOT_COPIED } from '../src/engine/execute/sandbox';
import { goNative } from '../src/engine/languages/go/native';
import type { TaskRecord } from '../src/engine/tasks/record';
import { pathInRepository } from '../src/engine/tasks/task-path';

const ROOT = path.join(__dirname, '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'inventory-go');
const TEST = path.join(ROOT, 'test', 'data', 'generated', 'go', 'pass.go');
const FOCAL = 'Status';

interface Sample {
  wallMs: number;
  cpuMs: number;
}

interface Row {
  name: string;
  /** What ran, for the record (the run's temporary paths shortened). */
  command: string;
  wallMs: number;
  cpuMs: number;
  /** Ratios to `go test -cover` (the last row). */
  wallRatio: number;
  cpuRatio: number;
  samples: Sample[];
}

const TICKS_PER_SECOND = (() => {
  const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const n = Number(r.stdout?.trim());
  return Number.isInteger(n) && n > 0 ? n : 100;
})();

/** CPU time (ms) of the children this process has waited for: /proc/self/stat's cutime + cstime. */
function childrenCpuMs(): number {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields[0] is field 3 (state)
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS_PER_SECOND;
}

/** Runs argv to its end; its wall time and the CPU time of it and all it waited for. Throws unless it exits 0. */
function timed(argv: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Sample & { stdout: string } {
  const cpu0 = childrenCpuMs();
  const t0 = process.hrtime.bigint();
  const r = spawnSync(argv[0], argv.slice(1), { cwd: options.cwd ?? ROOT, env: options.env ?? process.env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const cpuMs = childrenCpuMs() - cpu0;
  if (r.status !== 0) throw new Error(`\`${argv.join(' ')}\` exited ${r.status ?? r.signal}:\n${(r.stderr ?? '').slice(-4000)}`);
  return { wallMs, cpuMs, stdout: r.stdout };
}

function sample(s: Sample): Sample {
  return { wallMs: s.wallMs, cpuMs: s.cpuMs };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function parseOptions(argv: string[]): { rounds: number; json: boolean; compare?: string } {
  const program = new Command('bench-cli-start')
    .description("the CLI's start-up and one-task run next to `go test -cover` on the same test: wall and CPU time")
    .option('--rounds <n>', 'timed rounds (default 5, or BENCH_ROUNDS)')
    .option('--json', 'print JSON')
    .option('--compare <cli.js>', "also measure this build of the CLI's rows in the same rounds (e.g. a copy of an older dist/cli.js, with grammars/ beside its dist/)")
    .showHelpAfterError();
  program.parse(argv);
  const o = program.opts<{ rounds?: string; json?: boolean; compare?: string }>();
  const rounds = Number(o.rounds ?? process.env.BENCH_ROUNDS ?? 5);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds: a whole number ≥ 1, not ${o.rounds}`);
  if (o.compare && !fs.existsSync(o.compare)) throw new Error(`--compare ${o.compare}: no such file`);
  return { rounds, json: !!o.json, compare: o.compare && path.resolve(o.compare) };
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv);
  const log = (line: string): void => void (o.json ? process.stderr : process.stdout).write(line + '\n');
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: npm run build`);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-bench-cli-'));
  try {
    // Setup (not timed): the fixture's tasks, and a copy of the fixture that `go test` runs in, warm.
    const tasks = path.join(work, 'tasks.jsonl');
    timed([process.execPath, CLI, 'extract', FIXTURE, '--lang', 'go', '--out', tasks, '--no-progress']);
    const task = fs.readFileSync(tasks, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as TaskRecord).find((t) => t.function_name === FOCAL);
    if (!task) throw new Error(`no task for ${FOCAL} in ${FIXTURE}`);
    const copy = path.join(work, 'inventory-go');
    fs.cpSync(FIXTURE, copy, { recursive: true, filter: (src) => src === FIXTURE || !NOT_COPIED.has(path.basename(src)) });
    const focalFile = path.join(copy, pathInRepository(task.file_path));
    const test = fs.readFileSync(TEST, 'utf8');

    let seq = 0;
    type Measured = { name: string; command: string; once(): Promise<Sample> };
    const cliRows = (cli: string, suffix: string): Measured[] => [
      { name: `xrepotest --help${suffix}`, command: `node ${path.relative(ROOT, cli)} --help`, once: async () => sample(timed([process.execPath, cli, '--help'])) },
      { name: `xrepotest run --help${suffix}`, command: `node ${path.relative(ROOT, cli)} run --help`, once: async () => sample(timed([process.execPath, cli, 'run', '--help'])) },
      {
        name: `xrepotest run (1 task, local)${suffix}`,
        command: `node ${path.relative(ROOT, cli)} run tasks.jsonl --tests gens.jsonl --repos test/fixtures --executor local --concurrency 1 --no-progress --out results.jsonl`,
        once: async () => {
          const n = ++seq;
          const gens = path.join(work, `gens-${n}.jsonl`);
          const results = path.join(work, `results-${n}.jsonl`);
          fs.writeFileSync(gens, JSON.stringify({ task_id: task.task_id, test_code: goNative.mark(test, `xrepotest bench cli-start ${process.pid}-${n}`) }) + '\n');
          const s = timed([process.execPath, cli, 'run', tasks, '--tests', gens, '--repos', path.dirname(FIXTURE), '--executor', 'local', '--concurrency', '1', '--no-progress', '--out', results]);
          const r = JSON.parse(fs.readFileSync(results, 'utf8').trim().split('\n')[0]) as { checks: Array<{ tests: boolean }>; xrt: { reason: string | null } };
          if (!r.checks[0].tests) throw new Error(`the scored run did not pass: ${r.xrt.reason}`);
          return sample(s);
        },
      },
    ];
    const rows: Measured[] = [
      { name: 'node -e 0 (Node alone)', command: 'node -e 0', once: async () => sample(timed([process.execPath, '-e', '0'])) },
      ...cliRows(CLI, ''),
      ...(o.compare ? cliRows(o.compare, ' [compared]') : []),
      {
        name: 'go test -cover (same test)',
        command: 'go test -count=1 -covermode=count -coverprofile=… -run ^(TestStatus_xrtNative)$ .',
        once: async () => {
          const n = ++seq;
          const outDir = fs.mkdtempSync(path.join(work, 'native-'));
          const run = await goNative.prepare({ projectRoot: copy, focalFile, task, testCode: goNative.mark(test, `xrepotest bench cli-start ${process.pid}-${n}`), outDir });
          try {
            let total: Sample = { wallMs: 0, cpuMs: 0 };
            const stdout: string[] = [];
            for (const next of run.withCoverage) {
              const step = typeof next === 'function' ? next(stdout) : next;
              const s = timed(step.argv, { cwd: step.cwd, env: { ...process.env, ...step.env } });
              stdout.push(s.stdout);
              total = { wallMs: total.wallMs + s.wallMs, cpuMs: total.cpuMs + s.cpuMs };
            }
            return total;
          } finally {
            run.restore();
          }
        },
      },
    ];

    log(`rounds: ${o.rounds} (medians; one untimed round first); node ${process.version}; ${os.cpus().length} cores; load average: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
    for (const r of rows) await r.once(); // warm: Go's build cache, the page cache, the local executor's environment
    const samples = rows.map(() => [] as Sample[]);
    for (let round = 0; round < o.rounds; round++) for (const [i, r] of rows.entries()) samples[i].push(await r.once());
    const loadAfter = os.loadavg();

    const go = samples[samples.length - 1];
    const goWall = median(go.map((s) => s.wallMs));
    const goCpu = median(go.map((s) => s.cpuMs));
    const out: Row[] = rows.map((r, i) => {
      const wallMs = median(samples[i].map((s) => s.wallMs));
      const cpuMs = median(samples[i].map((s) => s.cpuMs));
      return { name: r.name, command: r.command, wallMs, cpuMs, wallRatio: wallMs / goWall, cpuRatio: cpuMs / goCpu, samples: samples[i] };
    });
    if (o.json) {
      process.stdout.write(JSON.stringify({ node: process.version, cores: os.cpus().length, rounds: o.rounds, loadAverageAfter: loadAfter, rows: out }, null, 2) + '\n');
      return;
    }
    log('');
    log(`${'command'.padEnd(43)} ${'wall ms'.padStart(8)} ${'CPU ms'.padStart(8)} ${'wall ×go'.padStart(9)} ${'CPU ×go'.padStart(8)}`);
    for (const r of out) log(`${r.name.padEnd(43)} ${r.wallMs.toFixed(0).padStart(8)} ${r.cpuMs.toFixed(0).padStart(8)} ${r.wallRatio.toFixed(2).padStart(9)} ${r.cpuRatio.toFixed(2).padStart(8)}`);
    log(`\nload average after: ${loadAfter.map((x) => x.toFixed(2)).join(' ')}`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
