import { randomInt } from 'node:crypto';
import { placeAndCompile, runContext, testsPassed, warmUp, withNewReportFolder } from '../execute/evaluate';
import { readSandboxFile, writeSandboxFile } from '../execute/safe-fs';
import { RepositoryCopyError } from '../execute/copy-repository';
import { CheckoutMismatchError, createSandbox, removeSandbox, type Sandbox } from '../execute/sandbox';
import { focalWithTest, type PhaseTimeouts, type Placement, type RunContext } from '../execute/toolchain';
import { DEFAULT_LIMITS, type ExecLimits, type Executor, type PhaseCommand, type PhaseResult } from '../execute/types';
import { adapterFor } from '../languages';
import type { LanguageId } from '../parse/grammars';
import { focalCoverage } from '../score/coverage/focal';
import type { TaskRecord } from '../tasks/record';
import { mutationScoreOf } from './counts';
import { generateMutants, generateSentinels, type Mutant } from './mutants';
import { interleave } from './sentinels';
import type { MutationOperator } from './types';

export interface MutationRunOptions {
  executor: Executor;
  /** The repository checkout the task comes from (copied, never touched). */
  repoDir: string;
  /** Focal lines (1-based) the test covers; only mutants there are run. Absent: the clean run's coverage. */
  coveredLines?: Iterable<number>;
  image?: string;
  timeouts?: Partial<PhaseTimeouts>;
  limits?: Partial<ExecLimits>;
  /** Default 40 (mutants.ts). */
  maxMutants?: number;
  /** The test phase's limit per mutant; default 3x the clean run's test phase, at least 10 s. */
  mutantTimeoutMs?: number;
  signal?: AbortSignal;
  /** Called after each mutant, for progress. */
  onMutant?: (done: number, total: number, result: MutantResult) => void;
}

/**
 * - killed: the tests failed (or crashed) on the mutant;
 * - timeout: the tests ran past the mutant's limit (`i++` -> `i--` loops forever);
 * - survived: the tests passed on the mutant;
 * - unviable: the mutant does not compile; it says nothing about the test.
 */
export type MutantOutcome = 'killed' | 'survived' | 'timeout' | 'unviable';

export interface MutantResult {
  id: string;
  operator: MutationOperator;
  line: number;
  original: string;
  replacement: string;
  outcome: MutantOutcome;
}

export interface MutationResult {
  /** Mutants run (covered, parsed, capped); killed + survived + timedOut + unviable. */
  mutants: number;
  /** mutants - unviable. */
  viable: number;
  /** Killed by a failing test (timeouts not included). */
  killed: number;
  survived: number;
  timedOut: number;
  unviable: number;
  /** (killed + timedOut) / viable, 0..1; 0 when no mutant is viable or the run could not start. */
  score: number;
  perMutant: MutantResult[];
  /** The limit each mutant's test phase had (0 when none ran). */
  mutantTimeoutMs: number;
  /** Why no mutant was run (the checkout differs, the test does not compile or pass on the original). */
  error?: string;
  /**
   * The test failed on a sentinel (sentinels.ts): a copy of the focal file that differs only in a
   * comment, whitespace, a variable's name or a statement that does nothing. It checks the code's text
   * or compiled form, not its behaviour; no mutant is counted.
   */
  readsSource?: true;
}

/** The record shape `xrepotest run --mutation` stores under `xrt.mutation`. */
export interface ResultMutation {
  mutants: number;
  viable: number;
  killed: number;
  survived: number;
  timed_out: number;
  unviable: number;
  score: number;
  /** Ids of the mutants the test detected (killed or timed out): improvement rounds keep a test that detects one no other did. Absent in records before them. */
  detected?: string[];
  /** The mutants that survived, for the improvement prompt's diffs. Absent in records before them. */
  survivors?: Array<{ id: string; operator: string; line: number; original: string; replacement: string }>;
  /** The test failed on a behaviour-preserving sentinel: it reads the focal source (score 0, no mutant counted). */
  reads_source?: true;
}

export function toResultMutation(result: MutationResult): ResultMutation {
  return {
    mutants: result.mutants,
    viable: result.viable,
    killed: result.killed,
    survived: result.survived,
    timed_out: result.timedOut,
    unviable: result.unviable,
    score: result.score,
    ...(result.readsSource ? { reads_source: true as const } : {}),
    detected: result.perMutant.filter((m) => m.outcome === 'killed' || m.outcome === 'timeout').map((m) => m.id),
    survivors: result.perMutant
      .filter((m) => m.outcome === 'survived')
      .map((m) => ({ id: m.id, operator: m.operator, line: m.line, original: m.original, replacement: m.replacement })),
  };
}

/** A mutant needs a clean run at least this long as its limit: start-up noise dominates short runs. */
const MIN_MUTANT_TIMEOUT_MS = 10_000;

function summarize(perMutant: MutantResult[], mutantTimeoutMs: number, error?: string): MutationResult {
  const count = (o: MutantOutcome) => perMutant.filter((m) => m.outcome === o).length;
  const killed = count('killed');
  const timedOut = count('timeout');
  const unviable = count('unviable');
  const viable = perMutant.length - unviable;
  return {
    mutants: perMutant.length,
    viable,
    killed,
    survived: count('survived'),
    timedOut,
    unviable,
    // A mutant whose tests never finish is detected (counts.ts): killed in the score, reported apart.
    score: mutationScoreOf({ killed, timedOut, viable }),
    perMutant,
    mutantTimeoutMs,
    ...(error ? { error } : {}),
  };
}

function tail(text: string, chars = 2000): string {
  return text.length > chars ? `…${text.slice(-chars)}` : text;
}

/**
 * Runs the test against each mutant of its focal function in one sandbox and one executor session:
 * the test is placed and run once on the original code (it must pass), then per mutant the focal file
 * is rewritten, compiled (a failure makes the mutant unviable), tested under a per-mutant limit, and
 * restored.
 */
export async function runMutationTesting(task: TaskRecord, language: LanguageId, testCode: string, opts: MutationRunOptions): Promise<MutationResult> {
  const toolchain = adapterFor(language).toolchain;
  let sandbox: Sandbox;
  try {
    sandbox = createSandbox(opts.repoDir, task, toolchain.manifests);
  } catch (e) {
    if (!(e instanceof CheckoutMismatchError || e instanceof RepositoryCopyError)) throw e;
    return summarize([], 0, e.message);
  }
  let session: Awaited<ReturnType<Executor['open']>> | null = null;
  // As in evaluateTest: the executor failing stops the run; a sandbox the test damaged (the focal file
  // or a report replaced by a link, a FIFO…) ends this task's mutation testing with a reason.
  const executorErrors = new WeakSet<object>();
  const tagged = <T>(p: Promise<T>): Promise<T> =>
    p.catch((e: unknown) => {
      if (e && typeof e === 'object') executorErrors.add(e);
      throw e;
    });
  const results: MutantResult[] = [];
  let mutantTimeoutMs = 0;
  try {
    const ctx = runContext(task, language, testCode, sandbox, opts.executor.capabilities, opts.timeouts);
    const open = await tagged(opts.executor.open({ language, sandboxDir: sandbox.dir, limits: { ...DEFAULT_LIMITS, ...opts.limits }, image: opts.image }));
    session = open;
    const run = (cmd: PhaseCommand): Promise<PhaseResult> => tagged(open.run(cmd, opts.signal));
    await warmUp(ctx, opts.executor, run, opts.repoDir, open.warmed, open.keptBuilds);
    const { placement, compiled } = await placeAndCompile(ctx, run);
    if (placement.environment) return summarize([], 0, `no mutant can be judged: ${placement.environment.reason}`);
    if (compiled.exitCode !== 0) return summarize([], 0, `the test does not compile (exit ${compiled.exitCode}): ${tail(compiled.output)}`);
    // The focal file as a path inside the copy with no link on the way, fixed before any untrusted code
    // runs: from then on it is read and rewritten only through the safe reader and writer.
    const focalRel = sandbox.focalInCopy;

    const clean = await run(toolchain.test(ctx, placement, compiled));
    if (!testsPassed(true, clean, toolchain.testReport(ctx, placement, clean))) {
      return summarize([], 0, `the test does not pass on the original code, so no mutant can be judged: ${tail(clean.output)}`);
    }

    const covered = opts.coveredLines ?? (await cleanCoverage(ctx, placement, run));
    const mutants = await generateMutants(task, language, { coveredLines: covered, maxMutants: opts.maxMutants });
    const placed = readSandboxFile(sandbox.dir, focalRel);
    // Rust's test module lives in the focal file, after the focal item (at the end of the file or of
    // its innermost inline module): it must stay, at the same place, for every mutant.
    const inFocalFile = placement.testFile === sandbox.focalFile;
    if (placed === null || placed !== (inFocalFile ? focalWithTest(task.file_content, placement) : task.file_content)) {
      return summarize([], 0, 'placing the test changed the focal code; mutants cannot be applied');
    }
    const withTest = (source: string): string => {
      if (!inFocalFile) return source;
      // Mutants edit the focal lines, all before the insertion point: count it from the file's end.
      const after = task.file_content.length - (placement.insertedAt ?? task.file_content.length);
      const at = source.length - after;
      return source.slice(0, at) + placement.writtenCode + source.slice(at);
    };
    mutantTimeoutMs = opts.mutantTimeoutMs ?? Math.max(MIN_MUTANT_TIMEOUT_MS, 3 * clean.durationMs);

    // One variant of the focal file judged, and the placed file put back whatever happened.
    const judge = async (source: string): Promise<MutantOutcome> => {
      opts.signal?.throwIfAborted();
      writeSandboxFile(sandbox.dir, focalRel, withTest(source));
      try {
        // A fresh report folder per run: a report left by an earlier run must not speak for this one.
        return await judgeMutant(withNewReportFolder(ctx), placement, run, mutantTimeoutMs);
      } finally {
        writeSandboxFile(sandbox.dir, focalRel, placed);
      }
    };
    // The sentinels among the mutants, at places the test cannot know: a test that fails on one reads
    // the source, and its mutants say nothing. Not all first: every run of a session shares its
    // sandbox's writable folders, and a test that counted its runs there passed the first few and
    // failed every later one without reading anything (MS 0.875 on the Go fixture).
    for (const item of interleave(mutants, await generateSentinels(task, language), randomInt)) {
      if ('sentinel' in item) {
        const outcome = await judge(item.sentinel.source);
        if (outcome === 'killed' || outcome === 'timeout') {
          return {
            ...summarize([], mutantTimeoutMs, `the test fails on a copy of the focal file that differs from the original only in ${item.sentinel.says}: it reads the code (its text or its compiled form), not what the code does, so no mutant is counted`),
            readsSource: true,
          };
        }
        continue;
      }
      const result = describe(item.mutant, await judge(item.mutant.source));
      results.push(result);
      opts.onMutant?.(results.length, mutants.length, result);
    }
    return summarize(results, mutantTimeoutMs);
  } catch (e) {
    if (opts.signal?.aborted || (e && typeof e === 'object' && executorErrors.has(e))) throw e;
    return summarize(results, mutantTimeoutMs, `mutation testing stopped: the engine could not use the test's sandbox: ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    await session?.close();
    removeSandbox(sandbox);
  }
}

function describe(m: Mutant, outcome: MutantOutcome): MutantResult {
  return { id: m.id, operator: m.operator, line: m.line, original: m.original, replacement: m.replacement, outcome };
}

/** Covered focal lines of the clean run (Rust turns its raw profiles into a report first). */
async function cleanCoverage(ctx: RunContext, placement: Placement, run: (cmd: PhaseCommand) => Promise<PhaseResult>): Promise<number[]> {
  const toolchain = adapterFor(ctx.language).toolchain;
  const coverageCmd = toolchain.coverage(ctx, placement);
  if (coverageCmd) await run(coverageCmd);
  const { start_line, end_line } = ctx.task.function_component;
  return focalCoverage(await toolchain.focalHits(ctx), start_line, end_line).covered;
}

/** Compiles and tests the mutant now in the focal file. */
async function judgeMutant(
  ctx: RunContext,
  placement: Placement,
  run: (cmd: PhaseCommand) => Promise<PhaseResult>,
  timeoutMs: number,
): Promise<MutantOutcome> {
  const toolchain = adapterFor(ctx.language).toolchain;
  // Where the compile phase checks one file (PHP, Ruby, Julia: a syntax check of the test) it must check
  // the mutated focal file instead; Go and Rust build the whole package either way.
  const compiled = await run(toolchain.compile(ctx, { ...placement, testFile: ctx.sandbox.focalFile }));
  if (compiled.exitCode !== 0) return 'unviable';
  const tested = await run({ ...toolchain.test(ctx, placement, compiled), timeoutMs });
  if (tested.timedOut) return 'timeout';
  return testsPassed(true, tested, toolchain.testReport(ctx, placement, tested)) ? 'survived' : 'killed';
}
