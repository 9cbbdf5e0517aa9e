import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { adapterFor } from '../languages';
import type { LanguageId } from '../parse/grammars';
import { focalCoverage } from '../score/coverage/focal';
import { classifyFailure } from '../score/failure';
import { invocationOf } from '../score/invocation';
import { checkTampering } from '../score/tampering';
import type { EnvironmentProblem, FailureCategory, FocalCoverage, InvocationResult, TestReport } from '../score/types';
import type { TaskRecord } from '../tasks/record';
import { mkdirInSandbox } from './safe-fs';
import { warmUpProblem } from './warm-up-problem';
import { materializeOverlays } from './warm-environment';

export { firstErrorLine } from './warm-up-problem';
import { RepositoryCopyError } from './copy-repository';
import { CheckoutMismatchError, createSandbox, newOutName, removeSandbox, type Sandbox } from './sandbox';
import { DEFAULT_TIMEOUTS, emptyReport, focalWithTest, readReport, type PhaseTimeouts, type Placement, type RunContext } from './toolchain';
import { environmentWarmKey, familyOf, shareWithSlot, warmEntry, warmKey } from './warm-environment';
import { DEFAULT_LIMITS, type ExecLimits, type Executor, type ExecutorCapabilities, type ExecutorInfo, type KeptBuilds, type OverlayMount, type PhaseCommand, type PhaseResult, type RegressionVerdict } from './types';

export interface EvaluateOptions {
  executor: Executor;
  /** The repository checkout the task comes from (copied, never touched). */
  repoDir: string;
  limits?: Partial<ExecLimits>;
  timeouts?: Partial<PhaseTimeouts>;
  /** docker: the image for this task's language or repository. */
  image?: string;
  signal?: AbortSignal;
  /** Keep the sandbox for inspection (its path is in the result); default: delete it. */
  keepSandbox?: boolean;
  /** Called when a phase starts, for progress. */
  onPhase?: (phase: string) => void;
  /** Known before the run (docker: the environment image did not build): the slot is an environment verdict. */
  environmentProblem?: EnvironmentProblem;
  /** The warm-up's output as it arrives (a build's progress: crates or packages built). */
  onBuildOutput?: (chunk: string) => void;
  /**
   * Stop once the environment is ready (prepare-environment.ts): everything a slot checks and builds
   * before its test exists, and nothing of a test. The answer has no score to read, only `environment`.
   */
  warmUpOnly?: boolean;
}

export interface Score {
  compiled: boolean;
  passed: boolean;
  coverage: FocalCoverage;
  /** covered / executable focal lines, 0 where there is no data. */
  coverageRatio: number;
  invocation: InvocationResult;
  failure: { category: FailureCategory; rule: string; evidence?: string; subcategory?: string } | null;
  /** Why the slot did not pass, in words for people (annotators, the editor); null when it passed. */
  reason: string | null;
  /** A passing test run again in fresh sandboxes (`--reruns`): how many runs there were in all, and how many passed. */
  reruns?: { runs: number; passed: number };
  /** A passing test run again at the task's base commit (`--regression-check`, execute/regression.ts). */
  regression?: RegressionVerdict;
}

export interface Evaluation {
  language: LanguageId;
  /** sha256 of the test code, first 16 hex digits: results are keyed by it. */
  testHash: string;
  executor: ExecutorInfo;
  placement: { testFile: string; notes: string[] } | null;
  phases: PhaseResult[];
  testReport: TestReport;
  score: Score;
  /** Why the evaluation could not run at all (checkout differs, engine down); scored as zeros. */
  error?: string;
  /** The harness or the machine failed before any untrusted code ran: the slot is left out of N (METRICS.md). */
  environment?: EnvironmentProblem;
  sandboxDir?: string;
}

export function testHash(testCode: string): string {
  return createHash('sha256').update(testCode).digest('hex').slice(0, 16);
}

/** Runs one generated test against its focal function in a disposable copy, and scores it (docs/execution.md). */
export async function evaluateTest(task: TaskRecord, language: LanguageId, testCode: string, opts: EvaluateOptions): Promise<Evaluation> {
  const adapter = adapterFor(language);
  const toolchain = adapter.toolchain;
  const hash = testHash(testCode);
  const invocation = await invocationOf(language, testCode, task);
  const phases: PhaseResult[] = [];
  const missing = opts.image ? null : await opts.executor.unavailable?.(language);
  if (missing || opts.environmentProblem) {
    const problem = opts.environmentProblem ?? { cause: 'toolchain-missing', reason: `${missing}; then check with \`xrepotest doctor\`` };
    const executor: ExecutorInfo = { kind: opts.executor.kind, engine: missing ? 'unavailable' : opts.executor.kind, versions: {} };
    return environmentVerdict({ language, testHash: hash, executor, placement: null, phases, testReport: emptyReport() }, invocation, problem);
  }
  const base = { language, testHash: hash, executor: await opts.executor.info(language) };

  if (!testCode.trim()) {
    return { ...base, placement: null, phases, testReport: emptyReport(), score: scoreOf(language, testCode, phases, emptyReport(), null, task, invocation, 0) };
  }

  const limits = { ...DEFAULT_LIMITS, ...opts.limits };
  // An executor that reuses environments says where the sandbox goes (a reused container's folder).
  const lease = (await opts.executor.lease?.({ language, limits, image: opts.image })) ?? null;
  let sandbox: Sandbox;
  try {
    sandbox = createSandbox(opts.repoDir, task, toolchain.manifests, lease?.sandboxParent, lease?.sandboxDir);
  } catch (e) {
    await lease?.close();
    const problem = sandboxProblem(e);
    if (!problem) throw e;
    return environmentVerdict({ ...base, placement: null, phases, testReport: emptyReport() }, invocation, problem);
  }
  let session: Awaited<ReturnType<Executor['open']>> | null = null;
  // Errors of the executor itself (the engine went away) stop the run; anything else going wrong with
  // this slot's sandbox (a report replaced by a link, a FIFO, a folder, garbage) is the slot's failure.
  const executorErrors = new WeakSet<object>();
  let placement: Placement | null = null;
  // The slot's copy-on-write views (filled when its warm environment is shared): a kept sandbox gets them merged.
  let overlays: OverlayMount[] = [];
  try {
    const ctx = runContext(task, language, testCode, sandbox, opts.executor.capabilities, opts.timeouts);
    overlays = ctx.overlays;
    // What the toolchain sees is wrong with the environment before anything runs (PHP: a runner mismatch).
    // Docker: the image's own tool versions (probed once per image) say which runner the phases use.
    // A probe that fails makes no claim: opening the session reports a missing image itself.
    const versions =
      toolchain.environmentProblem && !opts.executor.capabilities.hostToolchains
        ? await opts.executor.info(language, opts.image).then((i) => i.versions, () => undefined)
        : undefined;
    const known = toolchain.environmentProblem?.(ctx, versions) ?? null;
    if (known) return { ...environmentVerdict({ ...base, placement: null, phases, testReport: emptyReport() }, invocation, known), sandboxDir: opts.keepSandbox ? sandbox.dir : undefined };
    session = await (lease ? lease.open(sandbox.dir) : opts.executor.open({ language, sandboxDir: sandbox.dir, limits, image: opts.image })).catch((e: unknown) => {
      if (e && typeof e === 'object') executorErrors.add(e);
      throw e;
    });
    const open = session;
    // Runs a phase; recorded in `phases` unless the caller records it itself (phases run at once).
    const execute = async (cmd: Parameters<typeof open.run>[0], signal = opts.signal): Promise<PhaseResult> => {
      try {
        return await open.run(cmd, signal);
      } catch (e) {
        if (e && typeof e === 'object') executorErrors.add(e);
        throw e;
      }
    };
    const run = async (cmd: Parameters<typeof open.run>[0]): Promise<PhaseResult> => {
      opts.onPhase?.(cmd.phase);
      const r = await execute(cmd.phase === 'warm-up' && opts.onBuildOutput ? { ...cmd, onOutput: opts.onBuildOutput } : cmd);
      phases.push(r);
      // A command cancelled half-way is no verdict on the project: a warm-up that was building stays an
      // unfinished entry the next try continues (warm-environment.ts), never a remembered failure.
      opts.signal?.throwIfAborted();
      return r;
    };
    const warm = await warmUp(ctx, opts.executor, run, opts.repoDir, open.warmed, open.keptBuilds);
    if (warm && !('phase' in warm)) {
      return { ...environmentVerdict({ ...base, placement: null, phases, testReport: emptyReport() }, invocation, warm), sandboxDir: opts.keepSandbox ? sandbox.dir : undefined };
    }
    // Only the project's own code has run so far: a failing warm-up is the project's or the machine's, not the test's.
    if (warm && (warm.exitCode !== 0 || warm.timedOut)) {
      return {
        ...environmentVerdict({ ...base, placement: null, phases, testReport: emptyReport() }, invocation, (!warm.timedOut && toolchain.warmUpProblem?.(ctx, warm, opts.repoDir)) || warmUpProblem(warm, opts.repoDir)),
        sandboxDir: opts.keepSandbox ? sandbox.dir : undefined,
      };
    }
    if (opts.warmUpOnly) return { ...base, placement: null, phases, testReport: emptyReport(), score: scoreOf(language, testCode, phases, emptyReport(), null, task, invocation, 0) };
    // A compile phase that only checks the test (php -l, ruby -c) runs beside the test phase where the
    // executor keeps commands apart: the check's verdict still comes from a process no test code ran in.
    // Where the runner's report can answer the check, the test phase runs first and the check only when it cannot.
    const beside =
      toolchain.compileOnlyChecks && toolchain.checkOnlyWithoutTests
        ? await placeTestThenCheckIfNeeded(ctx, execute, phases, opts)
        : toolchain.compileOnlyChecks && opts.executor.capabilities.concurrentCommands
          ? await placeAndCheckBesideTest(ctx, execute, phases, opts)
          : null;
    const placed = beside ?? (await placeAndCompile(ctx, run));
    placement = placed.placement;
    const compiled = placed.compiled;
    // Decided at placement from the pristine copy and the task (never from what the test wrote or printed).
    if (placement.environment) {
      return {
        ...environmentVerdict({ ...base, placement: placementOf(sandbox, placement), phases, testReport: emptyReport() }, invocation, placement.environment),
        sandboxDir: opts.keepSandbox ? sandbox.dir : undefined,
      };
    }
    let report = emptyReport();
    let hits = null;
    let notBuilt: string | null = null;
    if (compiled.exitCode === 0) {
      const tested = beside?.tested ?? (await run(toolchain.test(ctx, placement, compiled)));
      report = beside?.report ?? toolchain.testReport(ctx, placement, tested);
      notBuilt = toolchain.notBuilt?.(ctx, placement, tested, report) ?? null;
      // Coverage counts even when tests fail, as in the paper (Cov); Cov@Pass is derived from passing slots.
      const coverageCmd = tested.timedOut ? null : toolchain.coverage(ctx, placement);
      if (coverageCmd) await run(coverageCmd);
      hits = await toolchain.focalHits(ctx);
    }
    opts.signal?.throwIfAborted();
    let score = scoreOf(language, testCode, phases, report, hits, task, invocation, limits.memoryBytes);
    if (notBuilt) score = { ...score, compiled: false, passed: false, coverage: { executable: [], covered: [] }, coverageRatio: 0, failure: { category: 'syntactic-compilation', rule: 'test-not-built', evidence: notBuilt }, reason: notBuilt };
    // A forged report, framing or exit status, or an edited focal file, fails the slot as 'tampering' (score/tampering.ts).
    if (compiled.exitCode === 0) {
      const focalExpected = placement.testFile === sandbox.focalFile ? focalWithTest(task.file_content, placement) : task.file_content;
      const test = phases.find((p) => p.phase === 'test');
      score = await checkTampering(score, {
        language,
        writtenCode: placement.writtenCode,
        test,
        report,
        sandboxDir: sandbox.dir,
        focalFile: path.join(sandbox.dir, sandbox.focalInCopy),
        focalExpected,
        readReport: (name) => readReportOrNull(ctx, name),
      });
    }
    return {
      ...base,
      placement: placementOf(sandbox, placement),
      phases,
      testReport: report,
      score,
      sandboxDir: opts.keepSandbox ? sandbox.dir : undefined,
    };
  } catch (e) {
    if (opts.signal?.aborted || (e && typeof e === 'object' && executorErrors.has(e))) throw e;
    const reason = `the engine could not use the test's sandbox: ${e instanceof Error ? e.message : String(e)}`;
    const score = scoreOf(language, testCode, phases, emptyReport(), null, task, invocation, limits.memoryBytes);
    return {
      ...base,
      placement: placement ? placementOf(sandbox, placement) : null,
      phases,
      testReport: emptyReport(),
      score: { ...score, passed: false, coverage: { executable: [], covered: [] }, coverageRatio: 0, reason },
      error: reason,
      sandboxDir: opts.keepSandbox ? sandbox.dir : undefined,
    };
  } finally {
    if (lease) {
      // The slot's folder first: a reused environment serves the next slot only once it is gone.
      if (!opts.keepSandbox) removeSandbox(sandbox);
      await lease.close();
    } else {
      await session?.close();
      if (!opts.keepSandbox) removeSandbox(sandbox);
    }
    if (opts.keepSandbox) materializeOverlays(sandbox.dir, overlays);
  }
}

function placementOf(sandbox: Sandbox, placement: Placement): { testFile: string; notes: string[] } {
  return { testFile: path.relative(sandbox.dir, placement.testFile).split(path.sep).join('/'), notes: placement.notes };
}

/** The context every toolchain call of one (task, test) gets; `id` names our files from the test's hash. */
export function runContext(
  task: TaskRecord,
  language: LanguageId,
  testCode: string,
  sandbox: Sandbox,
  executor: Pick<ExecutorCapabilities, 'hostToolchains' | 'fixedSandboxPath'> | boolean,
  timeouts?: Partial<PhaseTimeouts>,
): RunContext {
  const capabilities = typeof executor === 'boolean' ? { hostToolchains: executor } : executor;
  const hostToolchains = capabilities.hostToolchains;
  const fixedPath = (adapterFor(language).toolchain.fixedPath && capabilities.fixedSandboxPath) || null;
  const base = {
    task,
    language,
    testCode,
    id: testHash(testCode).slice(0, 12),
    sandbox,
    timeouts: { ...DEFAULT_TIMEOUTS, ...timeouts },
    baseEnv: { HOME: path.join(sandbox.xrt, 'home'), TMPDIR: path.join(sandbox.xrt, 'tmp'), LANG: 'C.UTF-8' },
    hostToolchains,
    fixedPath,
  };
  const declared = adapterFor(language).toolchain.writableDirs?.(base) ?? [];
  // Made now, before any untrusted code runs (the executor binds them writable into a read-only copy).
  for (const d of declared) fs.mkdirSync(d, { recursive: true });
  return { ...base, writableDirs: [path.join(sandbox.xrt, 'home'), path.join(sandbox.xrt, 'tmp'), sandbox.out, ...declared], overlays: [] };
}

/**
 * The same context with a fresh report folder (for the next run in the same sandbox: a mutant), made
 * without following links, as untrusted code has run in the sandbox by then. Reports left by an
 * earlier run can then never speak for this one.
 */
export function withNewReportFolder(ctx: RunContext): RunContext {
  const out = path.join(ctx.sandbox.xrt, newOutName());
  mkdirInSandbox(ctx.sandbox.dir, path.relative(ctx.sandbox.dir, out).split(path.sep).join('/'));
  return {
    ...ctx,
    sandbox: { ...ctx.sandbox, out },
    writableDirs: ctx.writableDirs.map((d) => (d === ctx.sandbox.out ? out : d)),
  };
}

/** Places the test and compiles; a failed compile gets one retry when the toolchain can repair the copy. */
/** Compile retries after repairs of the environment, at most. */
const REPAIR_ROUNDS = 4;

export async function placeAndCompile(
  ctx: RunContext,
  run: (cmd: PhaseCommand) => Promise<PhaseResult>,
): Promise<{ placement: Placement; compiled: PhaseResult }> {
  const toolchain = adapterFor(ctx.language).toolchain;
  const placement = await toolchain.place(ctx);
  let compiled = await run(toolchain.compile(ctx, placement));
  // Round by round: each repair (a rename in our file, one broken existing test set aside) may uncover the next.
  for (let round = 0; round < REPAIR_ROUNDS && compiled.exitCode !== 0 && !compiled.timedOut; round++) {
    const note = await toolchain.repairEnvironment?.(ctx, placement, compiled);
    if (!note) break;
    placement.notes.push(note);
    compiled = await run({ ...toolchain.compile(ctx, placement), phase: 'compile-retry' });
  }
  return { placement, compiled };
}

/**
 * Places the test and makes its check (the compile phase of a toolchain whose compile only checks),
 * with the test phase's read-only view of the copy. Where placement found the environment wanting,
 * the check runs at once and is the slot's only phase (`compiled`): no test phase follows.
 */
async function placeForCheck(
  ctx: RunContext,
  execute: (cmd: PhaseCommand, signal?: AbortSignal) => Promise<PhaseResult>,
  phases: PhaseResult[],
  opts: EvaluateOptions,
): Promise<{ placement: Placement; check: PhaseCommand; compiled?: PhaseResult }> {
  const toolchain = adapterFor(ctx.language).toolchain;
  const placement = await toolchain.place(ctx);
  const check = { ...toolchain.compile(ctx, placement), sandboxWritable: ctx.writableDirs };
  if (!placement.environment) return { placement, check };
  opts.onPhase?.('compile');
  const compiled = await execute(check);
  phases.push(compiled);
  return { placement, check, compiled };
}

/**
 * Places the test, then starts its check (the compile phase of a toolchain whose compile only checks:
 * `compileOnlyChecks`) and its test phase at once, each its own confined command. The check runs with
 * the test phase's read-only view of the copy (it writes nothing), so the running test can change
 * neither the file checked nor the checker; its verdict is the compile verdict, as when they run one
 * after the other. A failed check stops the test phase and drops it: the slot's phases and score are
 * those of the sequential run (compile only). Both are recorded in that order.
 */
async function placeAndCheckBesideTest(
  ctx: RunContext,
  execute: (cmd: PhaseCommand, signal?: AbortSignal) => Promise<PhaseResult>,
  phases: PhaseResult[],
  opts: EvaluateOptions,
): Promise<{ placement: Placement; compiled: PhaseResult; tested?: PhaseResult; report?: TestReport }> {
  const toolchain = adapterFor(ctx.language).toolchain;
  const { placement, check, compiled: known } = await placeForCheck(ctx, execute, phases, opts);
  if (known) return { placement, compiled: known };
  const stop = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, stop.signal]) : stop.signal;
  opts.onPhase?.('compile');
  const testing = execute(toolchain.test(ctx, placement, undefined), signal);
  // Settled either way before returning: a rejected test phase is not left unhandled.
  testing.catch(() => undefined);
  let compiled: PhaseResult;
  try {
    compiled = await execute(check);
  } catch (e) {
    stop.abort();
    await testing.catch(() => undefined);
    throw e;
  }
  phases.push(compiled);
  if (compiled.exitCode !== 0 || compiled.timedOut) {
    stop.abort();
    await testing.catch(() => undefined);
    return { placement, compiled };
  }
  opts.onPhase?.('test');
  const tested = await testing;
  phases.push(tested);
  return { placement, compiled, tested };
}

/**
 * Places the test and runs its test phase; then the check (the compile phase of a toolchain whose
 * compile only checks) only when the runner's report does not show it would pass: tests ran, nothing
 * failed outside them and the runner ended as after a run, which a file that does not parse cannot
 * produce (`checkOnlyWithoutTests`).
 * Skipped, the check is recorded as passed, with the reason as its output. Run, it has the test
 * phase's read-only view of the copy (the file it checks is the one placed: the test phase could not
 * change it), and a failed check drops the test phase as in the sequential run. Recorded in that order.
 */
async function placeTestThenCheckIfNeeded(
  ctx: RunContext,
  execute: (cmd: PhaseCommand, signal?: AbortSignal) => Promise<PhaseResult>,
  phases: PhaseResult[],
  opts: EvaluateOptions,
): Promise<{ placement: Placement; compiled: PhaseResult; tested?: PhaseResult; report?: TestReport }> {
  const toolchain = adapterFor(ctx.language).toolchain;
  const { placement, check, compiled: known } = await placeForCheck(ctx, execute, phases, opts);
  if (known) return { placement, compiled: known };
  opts.onPhase?.('test');
  const tested = await execute(toolchain.test(ctx, placement, undefined));
  const report = toolchain.testReport(ctx, placement, tested);
  // Exit 0 or 1 as well: what both runners give after running tests (a fatal error gives another).
  if (!tested.timedOut && (tested.exitCode === 0 || tested.exitCode === 1) && report.ran > 0 && report.outsideErrors === 0) {
    const ran = `${report.ran} test${report.ran === 1 ? '' : 's'}`;
    const compiled: PhaseResult = {
      phase: check.phase,
      argv: check.argv,
      exitCode: 0,
      signal: null,
      timedOut: false,
      outputTruncated: false,
      output: `[xrepotest: not run: the test phase loaded this file and ran ${ran} from it, which a file that does not parse cannot do]\n`,
      durationMs: 0,
    };
    phases.push(compiled, tested);
    return { placement, compiled, tested, report };
  }
  opts.onPhase?.('compile');
  const compiled = await execute(check);
  phases.push(compiled);
  if (compiled.exitCode !== 0 || compiled.timedOut) return { placement, compiled };
  phases.push(tested);
  return { placement, compiled, tested, report };
}

/** A pass needs both the runner's exit code and its own report: a crash after "ok" lines, or zero tests, is no pass. */
export function testsPassed(compiled: boolean, test: PhaseResult | undefined, report: TestReport): boolean {
  return compiled && test?.exitCode === 0 && report.ran > 0 && report.failed === 0 && report.errored === 0 && report.outsideErrors === 0;
}

/**
 * Gives the slot its warm environment (warm-environment.ts): where the executor keeps one on the host
 * and the language keys it, the entry of the pristine copy's key, filled once by a trusted warm-up and
 * shared copy-on-write (no warm-up when it is ready); else the warm-up runs into the slot's own cache.
 * Returns the warm-up phase this slot ran (null when none), or the key's environment verdict.
 */
export async function warmUp(
  ctx: RunContext,
  executor: Executor,
  run: (cmd: PhaseCommand) => Promise<PhaseResult>,
  repoDir = 'the repository',
  warmed?: Map<string, unknown>,
  kept?: KeptBuilds,
): Promise<PhaseResult | EnvironmentProblem | null> {
  const toolchain = adapterFor(ctx.language).toolchain;
  const shared = toolchain.cacheDirInSandbox ? (executor.sharedCache?.(ctx.language) ?? null) : null;
  const identity = toolchain.warmIdentity?.(ctx);
  if (toolchain.prepareSandbox) return toolchain.prepareSandbox(ctx, { executor, run, repoDir, warmed, kept });
  if (!toolchain.warmUp) return null;
  // A warm-up without a cache (Ruby's bundle check runs the project's Gemfile) gets no shared folder.
  if (!toolchain.cacheDirInSandbox) return run(toolchain.warmUp(ctx, ''));
  const inSandbox = toolchain.cacheDirInSandbox(ctx);
  // A reused environment that already passed this key's warm-up still holds its cache (the image's,
  // in a container that lives on): the slot starts with its compile.
  if (!shared && identity && warmed) {
    const key = environmentWarmKey(ctx, identity);
    if (warmed.get(key) === WARMED) return null;
    const r = await run(toolchain.warmUp(ctx, inSandbox));
    if (r.exitCode === 0 && !r.timedOut) warmed.set(key, WARMED);
    return r;
  }
  if (!shared || !identity) return run(toolchain.warmUp(ctx, inSandbox));
  const warmUpCmd = toolchain.warmUp.bind(toolchain);
  let ran: PhaseResult | null = null;
  const outcome = await warmEntry<null>({
    root: shared.dir,
    key: warmKey({ copyDir: ctx.sandbox.dir, skip: new Set([path.basename(ctx.sandbox.xrt)]), projectRoot: ctx.sandbox.projectRoot, ...identity }),
    content: path.basename(inSandbox),
    family: familyOf(identity.toolchain),
    // Go's build cache only ever adds files: entries may start as hard links of another.
    prime: true,
    build: async (content) => {
      const r = await run({ ...warmUpCmd(ctx, content), writable: [content] });
      ran = r;
      // Only the project's own code has run: a failing warm-up is the project's or the machine's, not the test's.
      // One cut short by a limit is not the project's failure: what it built is kept, the next try continues it.
      if (r.timedOut) return { ok: false, problem: warmUpProblem(r, repoDir), unfinished: true };
      if (r.exitCode !== 0) return { ok: false, problem: toolchain.warmUpProblem?.(ctx, r, repoDir) ?? warmUpProblem(r, repoDir) };
      return { ok: true, meta: null };
    },
  });
  if (!outcome.ok) return outcome.problem;
  shareWithSlot(ctx, shared, outcome.entry.content, inSandbox, false);
  return ran;
}

/** A report file for the tampering checks, or null: absent, or not a plain file (a test replaced it by a link or a FIFO; never followed). */
function readReportOrNull(ctx: RunContext, name: string): string | null {
  try {
    return readReport(ctx, name);
  } catch {
    return null;
  }
}

/** What a reused environment records for a key whose warm-up passed there (`Session.warmed`). */
const WARMED = 'warm-up passed';

/** A slot the harness could not score: zeros, category 'environment', and the reason naming cause and fix. */
/** Why a sandbox could not be made, as the slot's environment verdict; null for errors that are not the task's (they stop the run). */
export function sandboxProblem(e: unknown): EnvironmentProblem | null {
  if (e instanceof CheckoutMismatchError) return { cause: 'checkout-mismatch', reason: `the checkout is not the task's code (${e.message}); check out the commit the tasks were extracted from` };
  // A hostile tree (thousands of folders deep) is this task's problem: the run goes on with the others.
  if (e instanceof RepositoryCopyError) return { cause: 'repository-not-copyable', reason: e.message };
  return null;
}

function environmentVerdict(ev: Omit<Evaluation, 'score'>, invocation: InvocationResult, problem: EnvironmentProblem): Evaluation {
  const score: Score = {
    compiled: false,
    passed: false,
    coverage: { executable: [], covered: [] },
    coverageRatio: 0,
    invocation,
    failure: { category: 'environment', rule: problem.cause, evidence: problem.reason },
    reason: problem.reason,
  };
  return { ...ev, score, error: problem.reason, environment: problem };
}

/** The first thing that went wrong, as a sentence. */
function reasonOf(phases: PhaseResult[], report: TestReport, passed: boolean, memoryBytes: number): string | null {
  if (passed) return null;
  if (!phases.length) return 'the test is empty';
  for (const p of phases.filter((q) => q.phase !== 'warm-up')) {
    if (p.timedOut) return `the ${p.phase} phase timed out after ${Math.round(p.durationMs / 1000)} s`;
    if (p.exitCode === null && (p.signal === 'SIGKILL' || p.signal === null)) {
      return `the ${p.phase} phase was killed (most likely by the memory limit of ${Math.round(memoryBytes / 1024 ** 2)} MB or the process limit)`;
    }
    if (p.exitCode === 137) return `the ${p.phase} phase was killed (exit 137: out of memory at ${Math.round(memoryBytes / 1024 ** 2)} MB, or the process limit)`;
    if ((p.phase === 'compile' || p.phase === 'compile-retry') && p.exitCode !== 0 && p === [...phases].reverse().find((q) => q.phase.startsWith('compile'))) {
      return `the test does not compile (exit ${p.exitCode})`;
    }
  }
  const truncated = phases.some((p) => p.outputTruncated) ? '; its output went past the limit and was cut' : '';
  if (report.outsideErrors) return `the test run failed outside any test (a load or setup error)${truncated}`;
  if (report.ran === 0) return `no test ran${truncated}`;
  if (report.failed || report.errored) {
    const first = report.cases.find((c) => c.status === 'failed' || c.status === 'errored');
    const detail = first?.message ? `: ${first.message.split('\n')[0].slice(0, 200)}` : '';
    return `${report.failed + report.errored} of ${report.ran} tests failed${detail}${truncated}`;
  }
  return `the test run exited with ${phases.find((p) => p.phase === 'test')?.exitCode}${truncated}`;
}

function scoreOf(
  language: LanguageId,
  testCode: string,
  phases: PhaseResult[],
  report: TestReport,
  hits: Parameters<typeof focalCoverage>[0],
  task: TaskRecord,
  invocation: InvocationResult,
  memoryBytes: number,
): Score {
  const compile = [...phases].reverse().find((p) => p.phase === 'compile' || p.phase === 'compile-retry');
  const test = phases.find((p) => p.phase === 'test');
  const compiled = compile?.exitCode === 0;
  const passed = testsPassed(compiled, test, report);
  const { start_line, end_line } = task.function_component;
  const coverage = focalCoverage(hits, start_line, end_line);
  const coverageRatio = coverage.executable.length ? coverage.covered.length / coverage.executable.length : 0;
  const verdict = classifyFailure({
    language,
    testCode,
    compiled,
    compileLog: compile?.output ?? '',
    passed,
    testLog: [test?.output ?? '', ...report.cases.filter((c) => c.message).map((c) => c.message!)].join('\n'),
    coveredLines: coverage.covered.length,
    timedOut: test?.timedOut ?? false,
  });
  return { compiled, passed, coverage, coverageRatio, invocation, failure: verdict, reason: reasonOf(phases, report, passed, memoryBytes) };
}
