/**
 * How long a person waits for the first score of a repository (issue 30, "How it is measured"), from
 * EMPTY caches, against the language's own test command with coverage. Per repository, one focal task
 * (extracted with the engine's extractRepository) and the test the editor's default provider writes
 * for it (the offline baseline):
 *
 *   native_cold_ms            the native command with coverage (src/engine/languages/<id>/native.ts, as
 *                             bench:execute runs it) in a fresh copy with a fresh GOCACHE / target folder;
 *   native_warm_ms            the same again, warm (median of --warm-rounds, each test re-marked so no
 *                             toolchain serves a cached result);
 *   warmup_ms                 our background warm-up: prepareEnvironment(task) with a fresh executor cache;
 *   first_score_after_open_ms "Generate scored tests" → the score, through the engine SERVER (a ServerState
 *                             with a fake connection, registerScoring, SCORE_FUNCTION: as
 *                             test/integration/editor-run.test.ts drives it), default editor settings,
 *                             clicked right after open: every cache empty;
 *   first_score_after_warm_ms the same in a fresh server state (a fresh process) after the warm-up
 *                             finished: its caches kept (median of --score-rounds);
 *   mutation_blocked_score    whether the score waited for mutation testing (must be false);
 *   false_environment_verdict an `environment` verdict (warm-up or score) on a project whose native run
 *                             passed (must never happen).
 *
 * Each measurement runs in a process of its own (this script, `--child`), so nothing a process keeps in
 * memory (warm outcomes, the server's ready packages) carries over between them.
 * Caches emptied (fresh temporary folders) for the cold columns: the local executor's cache root
 * (LocalExecutor({ cacheRoot }): Go's warm build caches, Rust's warm targets, Ruby's warm answers), the
 * engine's tool cache (XRT_PHPUNIT_HOME: PHPUnit compiled once), and
 * XDG_CACHE_HOME; natively GOCACHE and the copy's target folders (CARGO_TARGET_DIR as native.ts sets
 * it, inside a fresh copy). Kept: the module and crate download caches (GOMODCACHE, ~/.cargo/registry),
 * installed gems and PHP packages (dependencies are fetched into them first, untimed: `cargo fetch`,
 * `go mod download` in a scratch copy): the network is not what is measured. `--keep-tool-caches` keeps the
 * engine's tool cache (PHPUnit is compiled once per installation, not per repository).
 *
 *   npm run bench:first-score -- [--json] [--real] [--no-fixtures] [--repos DIR,DIR] [--focal NAME]
 *                                [--lang go,rust] [--rounds n] [--warm-rounds n] [--score-rounds n]
 *                                [--keep-tool-caches] [--verbose]
 *
 * --real adds one public repository per language this machine can run, the fidelity suites' pins
 * (test/helpers/real-repo.ts: the Go module proxy, crates.io, Debian's source archive).
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Command } from 'commander';
import type { TextDocuments } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { URI } from 'vscode-uri';
import { prepareEnvironment } from '../src/engine/execute/prepare-environment';
import { LocalExecutor } from '../src/engine/execute/local';
import { findProjectRoot, focalPathInRepo, NOT_COPIED } from '../src/engine/execute/sandbox';
import type { Executor, PhaseCommand, PhaseResult, Session, SessionLease, SessionSpec } from '../src/engine/execute/types';
import { extractRepository } from '../src/engine/extract/extract';
import { baselineTest } from '../src/engine/generate/baseline';
import { adapterFor, adapterForPath, parseLanguageId, type LanguageId } from '../src/engine/languages';
import type { NativeRun } from '../src/engine/languages/execution-types';
import { runNativeSteps } from '../src/engine/languages/native-steps';
import type { TaskRecord } from '../src/engine/tasks/record';
import { DEFAULT_ENGINE_SETTINGS, type EngineSettings } from '../src/shared/protocol';
import { SCORE_FUNCTION, type ScoreFunctionResult } from '../src/shared/scoring-protocol';
import { EditorRunFolder } from '../src/server/editor-run';
import { editorTimeouts } from '../src/server/limits';
import { registerScoring, scoreOnLens } from '../src/server/scoring';
import { ServerState } from '../src/server/state';
import { fakeConnection } from '../test/helpers/server-connection';
import { PINNED, describeSource, realRepository, removeRealRepository, type RealRepo, type RealRepoSource } from '../test/helpers/real-repo';

const ROOT = path.join(__dirname, '..');

/** The fixtures bench:execute measures, with the same focal functions. */
const FIXTURES: Array<{ dir: string; language: LanguageId; focal: string }> = [
  { dir: 'inventory-go', language: 'go', focal: 'Status' },
  { dir: 'geometry-rs', language: 'rust', focal: 'classify_triangle' },
  { dir: 'textkit-php', language: 'php', focal: 'slugify' },
  { dir: 'bookshelf-rb', language: 'ruby', focal: 'search' },
];

/** One public repository per language: the fidelity suites' pins; focal names tried first (else any task whose test passes natively). */
const REAL: Array<{ language: LanguageId; source: RealRepoSource; label: string; focal: string[] }> = [
  { language: 'go', source: PINNED.goUuid, label: 'google/uuid v1.6.0', focal: [] },
  { language: 'rust', source: PINNED.crateSemver, label: 'semver 1.0.26 (crate)', focal: ['from_str', 'version_req'] },
  { language: 'php', source: PINNED.phpDoctrineInflector, label: 'doctrine/inflector 2.0.6', focal: ['urlize', 'seemsUtf8'] },
  { language: 'ruby', source: PINNED.rubyHashie, label: 'hashie 5.0.0', focal: ['to_hash', 'all'] },
];

/** Native probes tried before a repository without a passing candidate is left out. */
const MAX_PROBES = 8;
const TWO_S = 2000;

interface Target {
  label: string;
  language: LanguageId;
  checkout: string;
  /** Focal names to try first. */
  focal: string[];
}

interface Chosen extends Target {
  task: TaskRecord;
  test: string;
}

// ---- what the children measure ----------------------------------------------------------------------

/** A sandbox the engine leased (one evaluation: the warm-up only, a scored run, a rerun, a mutant), with its phases. */
interface LeaseTimes {
  startMs: number;
  endMs: number;
  phases: Array<{ phase: string; startMs: number; ms: number; exitCode: number | null }>;
}

type ChildSpec =
  | { kind: 'native'; language: LanguageId; checkout: string; task: TaskRecord; test: string; work: string; warmRounds: number }
  | { kind: 'warmup'; language: LanguageId; checkout: string; task: TaskRecord; cacheRoot: string }
  | { kind: 'score'; language: LanguageId; checkout: string; task: TaskRecord; cacheRoot: string; storage: string };

type ChildResult =
  | { kind: 'native'; ok: true; coldMs: number; warmMs: number[] }
  | { kind: 'native'; ok: false; error: string }
  | { kind: 'warmup'; ms: number; ready: boolean; built: boolean; problem: string | null; cause: string | null; leases: LeaseTimes[] }
  | {
      kind: 'score';
      /** The request's end: the score settled (its reruns done). */
      ms: number;
      /** When a score first stood on the function's lens (before the reruns of a passing test); null: never. */
      lensMs: number | null;
      passed: boolean;
      compiled: boolean;
      failureCategory: string | null;
      reason: string | null;
      environment: string | null;
      mutation: boolean;
      testCode: string;
      reruns: { runs: number; passed: number } | null;
      messages: Array<{ atMs: number; message: string }>;
      leases: LeaseTimes[];
      error?: string;
    };

/** The executor with every lease and phase timed (from `t0`); everything else is the local executor's own. */
class TimedExecutor implements Executor {
  readonly leases: LeaseTimes[] = [];
  constructor(
    private readonly inner: LocalExecutor,
    private readonly t0: bigint,
  ) {}
  get kind(): string {
    return this.inner.kind;
  }
  get capabilities() {
    return this.inner.capabilities;
  }
  // As the editor's server makes its executors (state.ts): a first score does not wait for the line tracer's build.
  get toolsInBackground() {
    return this.inner.toolsInBackground;
  }
  sharedCache(language: LanguageId) {
    return this.inner.sharedCache(language);
  }
  info(language: LanguageId) {
    return this.inner.info(language);
  }
  unavailable(language: LanguageId) {
    return this.inner.unavailable(language);
  }
  close() {
    return this.inner.close();
  }
  private now(): number {
    return Number(process.hrtime.bigint() - this.t0) / 1e6;
  }
  private timed(session: Session, lease: LeaseTimes): Session {
    return {
      warmed: session.warmed,
      close: () => session.close(),
      run: async (cmd: PhaseCommand, signal?: AbortSignal): Promise<PhaseResult> => {
        const startMs = this.now();
        const r = await session.run(cmd, signal);
        lease.phases.push({ phase: cmd.phase, startMs, ms: this.now() - startMs, exitCode: r.exitCode });
        return r;
      },
    };
  }
  async open(spec: SessionSpec): Promise<Session> {
    const times: LeaseTimes = { startMs: this.now(), endMs: NaN, phases: [] };
    this.leases.push(times);
    const s = this.timed(await this.inner.open(spec), times);
    return {
      ...s,
      close: async () => {
        await s.close();
        times.endMs = this.now();
      },
    };
  }
  async lease(spec: Omit<SessionSpec, 'sandboxDir'>): Promise<SessionLease> {
    const times: LeaseTimes = { startMs: this.now(), endMs: NaN, phases: [] };
    this.leases.push(times);
    const l = await this.inner.lease(spec);
    return {
      sandboxParent: l.sandboxParent,
      ...(l.sandboxDir ? { sandboxDir: l.sandboxDir } : {}),
      open: async (dir) => this.timed(await l.open(dir), times),
      close: async () => {
        await l.close();
        times.endMs = this.now();
      },
    };
  }
}

const msSince = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1e6;

/** Runs the steps in order; throws when one does not exit 0. */
async function runSteps(steps: NativeRun['withCoverage'], label: string): Promise<void> {
  const r = await runNativeSteps(steps);
  if (!r.ok) throw new Error(`${label}: \`${r.failed.argv.join(' ')}\` exited ${r.failed.status}:\n${r.failed.output.slice(-3000)}`);
}

/** A copy of a checkout as a person's (the checkout itself is never written; build folders left out). */
function copyCheckout(checkout: string, dest: string): string {
  fs.cpSync(checkout, dest, { recursive: true, filter: (src) => src === checkout || !NOT_COPIED.has(path.basename(src)) });
  return dest;
}

/** One native run with coverage of `test` in `copy`, timed; the copy put back (and its build state settled) after. */
async function nativeOnce(language: LanguageId, copy: string, task: TaskRecord, test: string, outDir: string): Promise<number> {
  const adapter = adapterFor(language);
  const focalFile = path.join(copy, focalPathInRepo(task));
  const projectRoot = findProjectRoot(copy, focalFile, adapter.toolchain.manifests);
  const code = adapter.native.mark(test, `xrepotest first-score ${randomBytes(6).toString('hex')}`);
  fs.mkdirSync(outDir, { recursive: true });
  const run = await adapter.native.prepare({ projectRoot, focalFile, task, testCode: code, outDir });
  let ms: number;
  try {
    if (run.report) fs.rmSync(run.report, { force: true });
    const t0 = process.hrtime.bigint();
    await runSteps(run.withCoverage, 'native');
    ms = msSince(t0);
    if (run.report && !(fs.statSync(run.report, { throwIfNoEntry: false })?.size ?? 0)) throw new Error(`native: exited 0 but left no coverage report at ${run.report}`);
  } finally {
    run.restore();
  }
  // Untimed (after a run that passed: a failed one's own error is the one to tell).
  if (run.settle) await runSteps(run.settle, 'native (settling the build state)');
  return ms;
}

/**
 * The dependencies downloaded once, untimed, into the download caches every column shares (Go's module
 * cache, cargo's registry), as a person's checkout has them: the network is not what is measured. In a
 * scratch copy (a fetch may write Cargo.lock or go.sum).
 */
function fetchDependencies(language: LanguageId, checkout: string, scratch: string, log: (s: string) => void): void {
  const argv = language === 'rust' ? ['cargo', 'fetch'] : language === 'go' ? ['go', 'mod', 'download'] : null;
  if (!argv) return;
  const copy = copyCheckout(checkout, fs.mkdtempSync(path.join(scratch, 'fetch-')) + '/copy');
  try {
    const r = spawnSync(argv[0], argv.slice(1), { cwd: findProjectRoot(copy, path.join(copy, '_'), adapterFor(language).toolchain.manifests), encoding: 'utf8', timeout: 600_000 });
    if (r.status !== 0) log(`${path.basename(checkout)}: \`${argv.join(' ')}\` exited ${r.status} (${(r.stderr || '').trim().split('\n').pop()}); measured with what the caches hold`);
  } finally {
    fs.rmSync(path.dirname(copy), { recursive: true, force: true });
  }
}

async function child(specFile: string): Promise<void> {
  const spec = JSON.parse(fs.readFileSync(specFile, 'utf8')) as ChildSpec;
  let result: ChildResult;
  if (spec.kind === 'native') {
    // Go's build cache, fresh (the module download cache stays); Rust's target folders are inside the fresh copy.
    process.env.GOCACHE = path.join(spec.work, 'gocache');
    const copy = copyCheckout(spec.checkout, path.join(spec.work, 'copy'));
    try {
      const coldMs = await nativeOnce(spec.language, copy, spec.task, spec.test, path.join(spec.work, 'out'));
      const warmMs: number[] = [];
      for (let i = 0; i < spec.warmRounds; i++) warmMs.push(await nativeOnce(spec.language, copy, spec.task, spec.test, path.join(spec.work, 'out')));
      result = { kind: 'native', ok: true, coldMs, warmMs };
    } catch (e) {
      result = { kind: 'native', ok: false, error: (e as Error).message };
    }
  } else if (spec.kind === 'warmup') {
    const t0 = process.hrtime.bigint();
    const local = new LocalExecutor({ cacheRoot: spec.cacheRoot, toolsInBackground: true });
    const executor = new TimedExecutor(local, t0);
    try {
      const p = await prepareEnvironment(spec.task, spec.language, { executor, repoDir: spec.checkout, timeouts: editorTimeouts(DEFAULT_ENGINE_SETTINGS), limits: { memoryBytes: DEFAULT_ENGINE_SETTINGS.memoryMb * 1024 * 1024 } });
      const ms = msSince(t0);
      result = p.ready
        ? { kind: 'warmup', ms, ready: true, built: p.built, problem: null, cause: null, leases: executor.leases }
        : { kind: 'warmup', ms, ready: false, built: false, problem: p.problem.reason, cause: p.problem.cause, leases: executor.leases };
    } finally {
      await local.close();
    }
  } else {
    result = await scoreChild(spec);
  }
  fs.writeFileSync(specFile + '.out', JSON.stringify(result));
}

/** "Generate scored tests" on the focal function through the engine's server, default editor settings. */
async function scoreChild(spec: Extract<ChildSpec, { kind: 'score' }>): Promise<ChildResult> {
  const messages: Array<{ atMs: number; message: string }> = [];
  let t0 = process.hrtime.bigint();
  let lensMs: number | null = null;
  let line = 0;
  const server = fakeConnection((message) => messages.push({ atMs: msSince(t0), message }), {
    onLensRefresh: () => {
      if (lensMs === null && line && scoreOnLens(uri, line)) lensMs = msSince(t0);
    },
  });
  const file = path.join(spec.checkout, focalPathInRepo(spec.task));
  const uri = URI.file(file).toString();
  const doc = TextDocument.create(uri, spec.language, 1, fs.readFileSync(file, 'utf8'));
  const documents = { get: (u: string) => (u === uri ? doc : undefined) } as unknown as TextDocuments<TextDocument>;
  const local = new LocalExecutor({ cacheRoot: spec.cacheRoot, toolsInBackground: true });
  let executor: TimedExecutor | undefined;
  // The server's own executor, with this run's cache root (the server makes a default LocalExecutor).
  class BenchState extends ServerState {
    override executor(): Promise<Executor> {
      return Promise.resolve(executor!);
    }
  }
  const state = new BenchState(server.connection, documents);
  state.workspaceFolders = [URI.file(spec.checkout).toString()];
  const folder = EditorRunFolder.inStorage(spec.storage);
  state.editorRun = folder;
  registerScoring(state);
  const settings: EngineSettings = { ...DEFAULT_ENGINE_SETTINGS };
  try {
    // Opened: the editor asks for the file's lenses first (the parsers loaded), then the person clicks one.
    await server.codeLens(uri);
    t0 = process.hrtime.bigint();
    executor = new TimedExecutor(local, t0);
    line = spec.task.function_component.start_line;
    const r = (await server.request(SCORE_FUNCTION.method, { uri, startLine: line, settings })) as ScoreFunctionResult;
    const ms = msSince(t0);
    return {
      kind: 'score',
      ms,
      lensMs,
      passed: r.passed,
      compiled: r.compiled,
      failureCategory: r.failureCategory,
      reason: r.reason,
      environment: r.environment ? `${r.environment.cause}${r.environment.fix ? ` — ${r.environment.fix}` : ''}` : null,
      mutation: r.mutation !== undefined,
      testCode: r.testCode,
      reruns: r.reruns ?? null,
      messages,
      leases: executor.leases,
    };
  } catch (e) {
    return { kind: 'score', ms: msSince(t0), lensMs, passed: false, compiled: false, failureCategory: null, reason: null, environment: null, mutation: false, testCode: '', reruns: null, messages, leases: executor?.leases ?? [], error: (e as Error).message };
  } finally {
    folder.close();
    await state.close();
    await local.close();
  }
}

// ---- the parent ----------------------------------------------------------------------------------------

interface Options {
  json: boolean;
  real: boolean;
  fixtures: boolean;
  repos: string[];
  focal?: string;
  lang?: LanguageId[];
  warmRounds: number;
  scoreRounds: number;
  rounds: number;
  keepToolCaches: boolean;
  verbose: boolean;
}

function parseOptions(argv: string[]): Options {
  const program = new Command('bench-first-score')
    .description('time to the first score from empty caches (warm-up, right after open, after the warm-up) against the native command with coverage')
    .option('--json', 'print one JSON array, one object per repository')
    .option('--real', "add one public repository per language (the fidelity suites' pins)")
    .option('--no-fixtures', 'leave out the fixtures (test/fixtures)')
    .option('--repos <list>', 'checkouts to measure, comma-separated')
    .option('--focal <name>', 'the focal function to score in the --repos checkouts (default: the first task whose test passes natively)')
    .option('--lang <list>', 'only these languages, comma-separated')
    .option('--warm-rounds <n>', 'native warm runs (median)', '3')
    .option('--rounds <n>', 'rounds of every measurement, each from empty caches (medians)', '1')
    .option('--score-rounds <n>', 'first scores after the warm-up, each in a fresh server process (median)', '1')
    .option('--keep-tool-caches', "keep the engine's tool cache (PHPUnit compiled): emptied by default")
    .option('--verbose', "print each score's progress messages with their times")
    .showHelpAfterError();
  program.parse(argv);
  const o = program.opts<{ json?: boolean; real?: boolean; fixtures: boolean; repos?: string; focal?: string; lang?: string; warmRounds: string; scoreRounds: string; rounds: string; keepToolCaches?: boolean; verbose?: boolean }>();
  const count = (s: string, what: string): number => {
    const n = Number(s);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${what}: a whole number ≥ 1, not ${s}`);
    return n;
  };
  const lang = o.lang?.split(',').map((l) => {
    const id = parseLanguageId(l);
    if (!id) throw new Error(`--lang: unknown language ${l}`);
    return id;
  });
  return {
    json: !!o.json,
    real: !!o.real,
    fixtures: o.fixtures,
    repos: o.repos ? o.repos.split(',').filter(Boolean).map((r) => path.resolve(r)) : [],
    focal: o.focal,
    lang,
    warmRounds: count(o.warmRounds, '--warm-rounds'),
    scoreRounds: count(o.scoreRounds, '--score-rounds'),
    rounds: count(o.rounds, '--rounds'),
    keepToolCaches: !!o.keepToolCaches,
    verbose: !!o.verbose,
  };
}

const loadavg = (): string => os.loadavg().map((x) => x.toFixed(2)).join(' ');

/** Runs one measurement in a process of its own, with `env` added; its answer. */
async function runChild(spec: ChildSpec, env: Record<string, string>, scratch: string): Promise<ChildResult> {
  const file = path.join(scratch, `child-${randomBytes(4).toString('hex')}.json`);
  fs.writeFileSync(file, JSON.stringify(spec));
  const code = await new Promise<number | null>((resolve) => {
    const c = spawn(process.execPath, [process.argv[1], '--child', file], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
    c.on('close', resolve);
  });
  const out = `${file}.out`;
  if (!fs.existsSync(out)) throw new Error(`the ${spec.kind} measurement exited ${code} without an answer`);
  return JSON.parse(fs.readFileSync(out, 'utf8')) as ChildResult;
}

/** The repository's language: the one with the most tasks (among --lang's). */
async function languageOf(checkout: string, only?: LanguageId[]): Promise<LanguageId | null> {
  const { tasks } = await extractRepository(checkout, only ? { languages: only } : {});
  const counts = new Map<LanguageId, number>();
  for (const t of tasks) {
    const l = adapterForPath(t.file_path)?.id;
    if (l) counts.set(l, (counts.get(l) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
}

/**
 * The focal task: the pinned names first, then the extraction's order; the first whose baseline test
 * passes natively (probed untimed in a scratch copy with the user's own warm caches).
 */
async function choose(t: Target, scratch: string, log: (s: string) => void): Promise<Chosen | null> {
  const { tasks } = await extractRepository(t.checkout, { languages: [t.language] });
  const named = t.focal.flatMap((n) => tasks.filter((x) => x.function_name === n));
  const order = [...named, ...tasks.filter((x) => !named.includes(x))].slice(0, MAX_PROBES);
  if (!order.length) {
    log(`${t.label}: no ${t.language} task extracted; left out`);
    return null;
  }
  const probe = fs.mkdtempSync(path.join(scratch, 'probe-'));
  try {
    const copy = copyCheckout(t.checkout, path.join(probe, 'copy'));
    for (const task of order) {
      const test = await baselineTest(task, t.language);
      try {
        await nativeOnce(t.language, copy, task, test, path.join(probe, 'out'));
        return { ...t, task, test };
      } catch (e) {
        log(`${t.label}: ${task.function_name}: its baseline test does not pass natively (${(e as Error).message.split('\n')[0].slice(0, 160)}); next`);
      }
    }
  } finally {
    fs.rmSync(probe, { recursive: true, force: true });
  }
  log(`${t.label}: none of ${order.length} tasks has a baseline test that passes natively; left out`);
  return null;
}

interface Row {
  repository: string;
  language: LanguageId;
  focal: string;
  native_cold_ms: number;
  native_warm_ms: number;
  warmup_ms: number;
  /** "Generate scored tests" to the score on the lens (a passing test's reruns run after it). */
  first_score_after_open_ms: number;
  first_score_after_warm_ms: number;
  /** To the request's end: the score settled, the reruns' verdict in. */
  settled_after_open_ms: number;
  settled_after_warm_ms: number;
  warmup_over_native_cold: number;
  after_open_over_native_cold_plus_2s: number;
  after_warm_minus_native_warm_s: number;
  targets: { warmup: boolean; after_warm: boolean; after_open: boolean };
  passed: boolean;
  mutation_blocked_score: boolean;
  false_environment_verdict: string | null;
  reruns: { runs: number; passed: number } | null;
  same_test_natively: boolean;
  /** Rounds measured (each column their median). */
  rounds: number;
  load: { before: string; after: string };
  /**
   * The first scores' parts (ms, medians): the click's preparation (prepareEnvironment: one sandbox),
   * the scored run (one), the reruns of a passing test (default setting: 2, each a whole run in a fresh
   * sandbox), and the rest (the server: focal function, prompt, executor probes, records).
   */
  parts: { after_open: ScoreParts; after_warm: ScoreParts };
  /** Where the time went (ms), last round: per sandbox the engine leased, its phases and the engine's own time. */
  breakdown: { warmup: string; after_open: string; after_warm: string };
}

interface ScoreParts {
  prepare_ms: number;
  scored_run_ms: number;
  reruns_ms: number;
  other_ms: number;
}

/** A first score's parts, from its sandboxes in the order the server leased them: preparation, scored run, reruns. */
function partsOf(r: { ms: number; leases: LeaseTimes[] }): ScoreParts {
  const took = (l: LeaseTimes | undefined): number => (l ? l.endMs - l.startMs : 0);
  const [prepare, scored, ...reruns] = r.leases;
  const inLeases = r.leases.reduce((sum, l) => sum + took(l), 0);
  return { prepare_ms: took(prepare), scored_run_ms: took(scored), reruns_ms: reruns.reduce((sum, l) => sum + took(l), 0), other_ms: r.ms - inLeases };
}

/** Medians of each part, rounded. */
function medianParts(all: ScoreParts[]): ScoreParts {
  const m = (k: keyof ScoreParts): number => Math.round(median(all.map((p) => p[k])));
  return { prepare_ms: m('prepare_ms'), scored_run_ms: m('scored_run_ms'), reruns_ms: m('reruns_ms'), other_ms: m('other_ms') };
}

/** One line per leased sandbox: `[role total: phase ms + … + engine ms]`. */
function describeLeases(leases: LeaseTimes[], totalMs: number): string {
  const parts = leases.map((l) => {
    const total = l.endMs - l.startMs;
    const phases = l.phases.reduce((s, p) => s + p.ms, 0);
    return `[${total.toFixed(0)}: ${[...l.phases.map((p) => `${p.phase} ${p.ms.toFixed(0)}`), `engine ${(total - phases).toFixed(0)}`].join(' + ')}]`;
  });
  const inLeases = leases.reduce((s, l) => s + (l.endMs - l.startMs), 0);
  return `${parts.join(' ')} + outside sandboxes ${(totalMs - inLeases).toFixed(0)}`;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

type ScoreResult = Extract<ChildResult, { kind: 'score' }>;
type WarmupResult = Extract<ChildResult, { kind: 'warmup' }>;

/** One round of a repository's measurements, each from its own empty caches; null when the native run does not pass. */
async function oneRound(c: Chosen, o: Options, scratch: string, log: (s: string) => void): Promise<{ nativeCold: number; nativeWarm: number; afterOpen: ScoreResult; warmup: WarmupResult; afterWarm: ScoreResult[] } | null> {
  const fresh = (name: string): string => fs.mkdtempSync(path.join(scratch, `${name}-`));
  // The engine's caches of one cold start, in one fresh folder: the executor's cache root, XDG_CACHE_HOME
  // and (unless kept) its tool caches. The warm-up and the scores after it share one such folder.
  const engineCaches = (): { cacheRoot: string; env: Record<string, string> } => {
    const dir = fresh('engine');
    const tools = o.keepToolCaches ? keptToolHomes() : { XRT_PHPUNIT_HOME: path.join(dir, 'phpunit') };
    return { cacheRoot: path.join(dir, 'local'), env: { XDG_CACHE_HOME: path.join(dir, 'xdg'), ...tools } };
  };
  const showScore = (what: string, r: ScoreResult): void => {
    log(`  ${what}: ${r.lensMs !== null ? `on the lens at ${r.lensMs.toFixed(0)} ms, settled at ` : ''}${r.ms.toFixed(0)} ms ${r.error ? `(error: ${r.error})` : `(${r.passed ? 'passed' : `did not pass: ${r.failureCategory} ${r.reason ?? ''}`})`}`);
    log(`    ${describeLeases(r.leases, r.ms)}`);
    if (o.verbose) log(`    ${r.messages.map((m) => `${m.atMs.toFixed(0)} ${m.message}`).join(' | ')}`);
  };

  const native = await runChild({ kind: 'native', language: c.language, checkout: c.checkout, task: c.task, test: c.test, work: fresh('native'), warmRounds: o.warmRounds }, { XDG_CACHE_HOME: fresh('native-xdg') }, scratch);
  if (native.kind !== 'native') throw new Error('native: wrong answer');
  if (!native.ok) {
    log(`${c.label}: left out: the native run did not pass: ${native.error.slice(0, 500)}`);
    return null;
  }
  const nativeWarm = median(native.warmMs);
  log(`  native with coverage: cold ${native.coldMs.toFixed(0)} ms, warm ${nativeWarm.toFixed(0)} ms (${native.warmMs.map((x) => x.toFixed(0)).join(', ')}); load ${loadavg()}`);

  // Right after open: everything empty, the click prepares, asks the model, scores.
  const open = engineCaches();
  const afterOpen = await runChild({ kind: 'score', language: c.language, checkout: c.checkout, task: c.task, cacheRoot: open.cacheRoot, storage: fresh('storage') }, open.env, scratch);
  if (afterOpen.kind !== 'score') throw new Error('score: wrong answer');
  showScore('first score right after open', afterOpen);

  // The background warm-up from empty caches, then a fresh server (a new process) with those caches kept.
  const warm = engineCaches();
  const warmup = await runChild({ kind: 'warmup', language: c.language, checkout: c.checkout, task: c.task, cacheRoot: warm.cacheRoot }, warm.env, scratch);
  if (warmup.kind !== 'warmup') throw new Error('warmup: wrong answer');
  log(`  warm-up (prepareEnvironment): ${warmup.ms.toFixed(0)} ms${warmup.ready ? '' : ` NOT READY: ${warmup.cause}: ${warmup.problem}`}`);
  log(`    ${describeLeases(warmup.leases, warmup.ms)}`);
  const afterWarm: ScoreResult[] = [];
  for (let i = 0; i < o.scoreRounds; i++) {
    const r = await runChild({ kind: 'score', language: c.language, checkout: c.checkout, task: c.task, cacheRoot: warm.cacheRoot, storage: fresh('storage') }, warm.env, scratch);
    if (r.kind !== 'score') throw new Error('score: wrong answer');
    afterWarm.push(r);
    showScore('first score after the warm-up', r);
  }
  return { nativeCold: native.coldMs, nativeWarm, afterOpen, warmup, afterWarm };
}

async function measure(c: Chosen, o: Options, scratch: string, log: (s: string) => void): Promise<Row | null> {
  const before = loadavg();
  log(`${c.label}: ${c.task.function_name} (${c.task.file_path}); load ${before}`);
  const rounds: Array<NonNullable<Awaited<ReturnType<typeof oneRound>>>> = [];
  for (let i = 0; i < o.rounds; i++) {
    if (o.rounds > 1) log(` round ${i + 1} of ${o.rounds}`);
    const r = await oneRound(c, o, scratch, log);
    if (!r) return null;
    rounds.push(r);
  }
  const scores = rounds.flatMap((r) => [r.afterOpen, ...r.afterWarm]);
  const warmups = rounds.map((r) => r.warmup);
  // In a fresh server process the click prepares the environment (one sandbox), then scores (one) and
  // reruns a passing test (`reruns`): any other sandbox before the answer is a mutant's.
  const blocked = scores.some((r) => r.mutation || r.messages.some((m) => /mutant|mutation/i.test(m.message)) || r.leases.length > 2 + (r.reruns ? r.reruns.runs - 1 : 0));
  // Native passed, so the project builds here: an environment verdict anywhere is a false one.
  const falseEnv = [
    ...warmups.map((w) => (w.ready ? null : `warm-up: ${w.cause}: ${w.problem}`)),
    ...scores.map((r) => (r.environment || r.failureCategory === 'environment' ? `score: ${r.environment ?? r.reason}` : null)),
  ].filter((x): x is string => x !== null);
  const differing = scores.find((r) => r.testCode && r.testCode.trimEnd() !== c.test.trimEnd());
  if (differing) {
    const a = c.test.split('\n');
    const b = differing.testCode.split('\n');
    const at = a.findIndex((line, i) => line !== b[i]);
    log(`  the server's test differs from the one run natively at line ${at + 1}: ${JSON.stringify(a[at])} / ${JSON.stringify(b[at])}`);
  }
  const nc = median(rounds.map((r) => r.nativeCold));
  const nw = median(rounds.map((r) => r.nativeWarm));
  const wu = median(warmups.map((w) => w.ms));
  const onLens = (r: { ms: number; lensMs: number | null }): number => r.lensMs ?? r.ms;
  const ao = median(rounds.map((r) => onLens(r.afterOpen)));
  const aw = median(rounds.flatMap((r) => r.afterWarm.map(onLens)));
  const last = rounds[rounds.length - 1];
  return {
    repository: c.label,
    language: c.language,
    focal: c.task.function_name,
    native_cold_ms: Math.round(nc),
    native_warm_ms: Math.round(nw),
    warmup_ms: Math.round(wu),
    first_score_after_open_ms: Math.round(ao),
    first_score_after_warm_ms: Math.round(aw),
    settled_after_open_ms: Math.round(median(rounds.map((r) => r.afterOpen.ms))),
    settled_after_warm_ms: Math.round(median(rounds.flatMap((r) => r.afterWarm.map((x) => x.ms)))),
    warmup_over_native_cold: round2(wu / nc),
    after_open_over_native_cold_plus_2s: round2(ao / (nc + TWO_S)),
    after_warm_minus_native_warm_s: round2((aw - nw) / 1000),
    targets: { warmup: wu <= 1.1 * nc, after_warm: aw - nw <= TWO_S, after_open: ao <= 1.1 * nc + TWO_S },
    passed: scores.every((r) => r.passed),
    mutation_blocked_score: blocked,
    false_environment_verdict: falseEnv.length ? falseEnv.join('; ') : null,
    reruns: last.afterOpen.reruns,
    same_test_natively: !differing,
    rounds: o.rounds,
    load: { before, after: loadavg() },
    parts: { after_open: medianParts(rounds.map((r) => partsOf(r.afterOpen))), after_warm: medianParts(rounds.flatMap((r) => r.afterWarm.map(partsOf))) },
    breakdown: { warmup: describeLeases(last.warmup.leases, last.warmup.ms), after_open: describeLeases(last.afterOpen.leases, last.afterOpen.ms), after_warm: last.afterWarm.map((r) => describeLeases(r.leases, r.ms)).join(' | ') },
  };
}

/** With --keep-tool-caches: the engine's tool caches where they always are (not under the fresh XDG_CACHE_HOME). */
function keptToolHomes(): Record<string, string> {
  const base = process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache');
  return { XRT_PHPUNIT_HOME: process.env.XRT_PHPUNIT_HOME ?? path.join(base, 'xrepotest', 'phpunit') };
}

const round2 = (x: number): number => Math.round(x * 100) / 100;

async function main(): Promise<void> {
  const o = parseOptions(process.argv);
  const log = (line: string): void => void (o.json ? process.stderr : process.stdout).write(line + '\n');
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-bench-first-score-'));
  const fetched: RealRepo[] = [];
  const rows: Row[] = [];
  const wanted = (l: LanguageId): boolean => !o.lang || o.lang.includes(l);
  try {
    const targets: Target[] = [];
    if (o.fixtures) for (const f of FIXTURES) if (wanted(f.language)) targets.push({ label: `fixture ${f.dir}`, language: f.language, checkout: path.join(ROOT, 'test', 'fixtures', f.dir), focal: [f.focal] });
    if (o.real) {
      for (const r of REAL) {
        if (!wanted(r.language)) continue;
        const got = await realRepository(r.source);
        if ('unavailable' in got) {
          log(`${r.label}: not measured (${got.unavailable})`);
          continue;
        }
        fetched.push(got);
        targets.push({ label: r.label, language: r.language, checkout: got.dir, focal: r.focal });
        log(`${r.label}: ${describeSource(r.source)} at ${got.dir}`);
      }
    }
    for (const dir of o.repos) {
      const language = await languageOf(dir, o.lang);
      if (!language) {
        log(`${dir}: no task in a language this benchmark measures; left out`);
        continue;
      }
      targets.push({ label: path.basename(dir), language, checkout: dir, focal: o.focal ? [o.focal] : [] });
    }
    // Only asked what it is and what this machine lacks (its cache root is never used).
    const probe = new LocalExecutor({ cacheRoot: path.join(scratch, 'probe-info') });
    log(`first score from empty caches: ${targets.length} repositories, ${o.rounds} round(s); local: ${(await probe.info('go')).engine}`);
    log(`caches emptied per measurement: the local executor's cache root, XDG_CACHE_HOME${o.keepToolCaches ? '' : ", the engine's tool cache (PHPUnit compiled)"}; natively GOCACHE and the copy's target folders. Kept: module/crate download caches.`);
    for (const t of targets) {
      const unavailable = await probe.unavailable(t.language);
      if (unavailable) {
        log(`${t.label}: not measured (${unavailable})`);
        continue;
      }
      fetchDependencies(t.language, t.checkout, scratch, log);
      const chosen = await choose(t, scratch, log);
      if (!chosen) continue;
      const row = await measure(chosen, o, scratch, log);
      if (row) rows.push(row);
    }
  } finally {
    fetched.forEach((r) => removeRealRepository(r));
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  if (o.json) {
    process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
    return;
  }
  const s = (ms: number): string => (ms / 1000).toFixed(1);
  const mark = (ok: boolean): string => (ok ? 'ok' : 'OVER');
  console.log('\ntimes in s; targets: warm-up ≤ 1.1 × native cold; after warm-up ≤ native warm + 2 s; right after open ≤ 1.1 × native cold + 2 s');
  console.log('repository                   lang  focal               native cold  warm | warm-up  ÷cold      | after open  ÷(cold+2s)  | after warm  −native warm | mutants wait  env verdict');
  for (const r of rows) {
    console.log(
      [
        r.repository.padEnd(28),
        r.language.padEnd(5),
        r.focal.slice(0, 18).padEnd(19),
        s(r.native_cold_ms).padStart(11),
        s(r.native_warm_ms).padStart(5),
        '|',
        s(r.warmup_ms).padStart(7),
        `${r.warmup_over_native_cold.toFixed(2)} ${mark(r.targets.warmup)}`.padEnd(10),
        '|',
        s(r.first_score_after_open_ms).padStart(10),
        `${r.after_open_over_native_cold_plus_2s.toFixed(2)} ${mark(r.targets.after_open)}`.padEnd(11),
        '|',
        s(r.first_score_after_warm_ms).padStart(10),
        `${r.after_warm_minus_native_warm_s >= 0 ? '+' : ''}${r.after_warm_minus_native_warm_s.toFixed(2)} ${mark(r.targets.after_warm)}`.padEnd(12),
        '|',
        String(r.mutation_blocked_score).padEnd(12),
        r.false_environment_verdict ? `FALSE: ${r.false_environment_verdict}` : 'none',
      ].join(' '),
    );
  }
  console.log('\nfirst scores, parts (s): preparation + scored run + reruns + the rest (server)');
  const p = (x: ScoreParts): string => [x.prepare_ms, x.scored_run_ms, x.reruns_ms, x.other_ms].map(s).join(' + ');
  for (const r of rows) console.log(`${r.repository.padEnd(28)} after open ${p(r.parts.after_open)}; after warm-up ${p(r.parts.after_warm)}`);
  console.log(`load average after: ${loadavg()}`);
}

if (process.argv[2] === '--child') {
  child(process.argv[3]).then(
    () => process.exit(0),
    (e) => {
      console.error(e instanceof Error ? e.stack : e);
      process.exit(1);
    },
  );
} else {
  main().catch((e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
