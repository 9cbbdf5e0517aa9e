import { testHash, type Evaluation } from '../execute/evaluate';
import { fencedTest } from '../generate/generate';
import { improvementPrompt } from '../generate/improvement-prompt';
import type { ChatMessage, GenerationRecord, ImprovementHint, SurvivingMutant } from '../generate/types';
import { adapterFor } from '../languages';
import type { ResultMutation } from '../mutate/run';
import type { ImprovementRound, ImprovementVerdict, ResultRecord, SuiteRecord } from '../store/results';
import type { LoadedTask } from '../tasks/load';
import { redact } from '../util/redact';

/** What improvement rounds need from the task step: the model, the sandboxed scoring, mutation testing. */
export interface ImproveSuiteInput {
  task: LoadedTask;
  /** The passing test the rounds start from, and its scored record (coverage, mutation). */
  first: { testCode: string; result: ResultRecord };
  rounds: number;
  /** Mutation testing is on: a test that detects a mutant no other did is kept, and the suite is mutation-tested. */
  mutation: boolean;
  /** The task's user prompt (the conversation's first turn). */
  userPrompt(): Promise<string>;
  /** Round k's reply: the stored one, or a new call with this conversation and hint. */
  generate(improve: number, messages: ChatMessage[], hint: ImprovementHint): Promise<GenerationRecord>;
  /** One test scored in a disposable copy of the checkout, through the run's executor. */
  evaluate(testCode: string): Promise<Evaluation>;
  /** Mutation testing of a test on the lines it covers (absent: not run). */
  mutate?(testCode: string, coveredLines: number[]): Promise<ResultMutation | null | undefined>;
  signal?: AbortSignal;
  /** After each round, for progress. */
  onRound?(round: ImprovementRound): void;
}

/** The suite as the rounds grow it. */
interface SuiteState {
  tests: string[];
  code: string;
  covered: Set<number>;
  executable: number[];
  detected: Set<string>;
  survivors: SurvivingMutant[];
  coverage: SuiteRecord['coverage'];
}

const firstLine = (s: string | null | undefined): string => (s ?? '').split('\n').find((l) => l.trim())?.trim().slice(0, 300) ?? '';
const sorted = (xs: Iterable<number>): number[] => [...xs].sort((a, b) => a - b);

function coverageOf(e: Evaluation): SuiteRecord['coverage'] {
  const c = e.score.coverage;
  return {
    covered_lines: c.covered.length,
    total_lines: c.executable.length,
    coverage: Math.round(e.score.coverageRatio * 10000) / 100,
    covered_line_numbers: c.covered,
    executable_line_numbers: c.executable,
  };
}

function initialState(first: ImproveSuiteInput['first']): SuiteState {
  const c = first.result.coverage_stats[0];
  const m = first.result.xrt.mutation;
  return {
    tests: [first.testCode],
    code: first.testCode,
    covered: new Set(c.covered_line_numbers),
    executable: c.executable_line_numbers,
    detected: new Set(m?.detected ?? []),
    survivors: m?.survivors ?? [],
    coverage: { ...c },
  };
}

/**
 * Improvement rounds (issue 17, docs/generation.md): after a passing test, the model sees the focal
 * function with the lines no test runs marked and the mutants no test detects, and is asked for more
 * tests. A candidate is scored alone in its own sandbox; it is KEPT only if it compiles, passes, calls
 * the focal function, and runs a focal line the suite does not (or detects a mutant no test of the
 * suite detects) — and the suite merged with it (the language's `suite.merge`) passes when scored as
 * one test file and keeps that gain. Otherwise it is dropped with the reason recorded. Every verdict
 * comes from the executors' runs of what the reply contained; nothing in a reply is read as a verdict.
 */
export async function improveSuite(input: ImproveSuiteInput): Promise<SuiteRecord> {
  const { task, signal } = input;
  const { language } = task;
  const suite = initialState(input.first);
  const rounds: ImprovementRound[] = [];
  for (let k = 1; k <= input.rounds; k++) {
    signal?.throwIfAborted();
    const uncovered = suite.executable.filter((l) => !suite.covered.has(l));
    const survivors = input.mutation ? suite.survivors.filter((m) => !suite.detected.has(m.id)) : [];
    // Nothing left to run or to detect: another test could only repeat what the suite does.
    if (!uncovered.length && !survivors.length) break;
    const hint: ImprovementHint = { round: k, uncoveredLines: uncovered, survivors };
    const messages: ChatMessage[] = [
      { role: 'user', content: await input.userPrompt() },
      { role: 'assistant', content: fencedTest(language, suite.code) },
      { role: 'user', content: improvementPrompt(task.task, language, hint) },
    ];
    const gen = await input.generate(k, messages, hint);
    const round = await judge(input, suite, k, gen, survivors);
    rounds.push(round);
    input.onRound?.(round);
  }
  let mutation = input.first.result.xrt.mutation;
  if (suite.tests.length > 1 && input.mutation && input.mutate) {
    signal?.throwIfAborted();
    mutation = (await input.mutate(suite.code, sorted(suite.covered))) ?? null;
  }
  return {
    tests: suite.tests.length,
    test_code: suite.code,
    test_hash: testHash(suite.code),
    passed: true,
    coverage: suite.coverage,
    ...(mutation !== undefined ? { mutation } : {}),
    rounds,
  };
}

/** One candidate's verdict; a kept candidate joins `suite` (which is updated in place). */
async function judge(input: ImproveSuiteInput, suite: SuiteState, k: number, gen: GenerationRecord, survivors: SurvivingMutant[]): Promise<ImprovementRound> {
  const drop = (verdict: ImprovementVerdict, reason: string, extra: Partial<ImprovementRound> = {}): ImprovementRound => ({
    improve: k,
    test_hash: gen.test_code.trim() ? testHash(gen.test_code) : null,
    kept: false,
    verdict,
    reason: redact(reason),
    covered_line_numbers: [],
    added_lines: [],
    new_detected: [],
    ...extra,
  });
  if (gen.error) return drop('call-failed', `the call failed: ${firstLine(gen.error)}`);
  const code = gen.test_code;
  if (!code.trim()) return drop('no-test', 'the reply held no test');
  const alone = await input.evaluate(code);
  input.signal?.throwIfAborted();
  const s = alone.score;
  if (alone.environment || s.failure?.category === 'environment') return drop('environment', `the machine could not score it: ${firstLine(s.reason ?? alone.environment?.reason)}`);
  if (!s.compiled) return drop('does-not-compile', `it does not compile: ${firstLine(s.reason)}`);
  if (!s.passed) return drop('does-not-pass', `it does not pass: ${firstLine(s.reason)}`);
  if (!s.invocation.invoked) return drop('does-not-invoke', 'it does not call the focal function');
  const covered = s.coverage.covered;
  const added = covered.filter((l) => !suite.covered.has(l));
  let newDetected: string[] = [];
  if (!added.length && survivors.length && input.mutate) {
    const m = await input.mutate(code, covered);
    newDetected = (m?.detected ?? []).filter((id) => !suite.detected.has(id));
  }
  const seen = { covered_line_numbers: covered };
  if (!added.length && !newDetected.length) {
    return drop('adds-nothing', `it runs no focal line the suite does not run${survivors.length ? ' and detects no mutant the suite misses' : ''}`, seen);
  }
  // The suite with it, scored as one test file: what is kept is what the merged file does.
  const mergedCode = await adapterFor(input.task.language).suite.merge([...suite.tests, code]);
  const merged = await input.evaluate(mergedCode);
  input.signal?.throwIfAborted();
  if (!merged.score.passed) return drop('merged-suite-fails', `the suite merged with it does not pass: ${firstLine(merged.score.reason)}`, seen);
  const mergedCovered = new Set(merged.score.coverage.covered);
  const gained = sorted(mergedCovered).filter((l) => !suite.covered.has(l));
  const lost = sorted(suite.covered).filter((l) => !mergedCovered.has(l));
  if (lost.length || (!gained.length && !newDetected.length)) {
    return drop('merged-suite-fails', `the merged suite ${lost.length ? `no longer runs line(s) ${lost.join(', ')}` : 'runs no new focal line'}`, seen);
  }
  suite.tests.push(code);
  suite.code = mergedCode;
  suite.covered = mergedCovered;
  suite.coverage = coverageOf(merged);
  for (const id of newDetected) suite.detected.add(id);
  const verdict: ImprovementVerdict = added.length ? 'adds-coverage' : 'kills-mutant';
  const reason = added.length ? `it runs focal line(s) ${added.join(', ')} that no test of the suite ran` : `it detects mutant(s) ${newDetected.join(', ')} that no test of the suite detected`;
  return { improve: k, test_hash: testHash(code), kept: true, verdict, reason, covered_line_numbers: covered, added_lines: added, new_detected: newDetected };
}
