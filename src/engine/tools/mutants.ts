import { generateMutants, type Mutant } from '../mutate/mutants';
import { runMutationTesting, type MutationResult } from '../mutate/run';
import { scoreTest } from '../task/run-task-step';
import type { ResultRecord } from '../store/results';
import { defineTool, optional } from './definition';
import { ToolArgumentError } from './errors';
import { executorFor, loadedTaskOf, stepEvaluation } from './evaluation';
import { focalTarget, type FocalTarget, type FunctionSelector } from './focal-target';
import { scoringsOfFile } from './known-scores';
import { SELECTOR_PROPERTIES, SELECTOR_REQUIRED } from './selector-schema';
import type { ToolCall, ToolServices } from './services';
import { lineRanges } from './tool-score';
import { TOOL_MUTANTS_SCHEMA } from './output-schemas';

/** One mutant the test did not catch, as an agent reads it. */
export interface ToolMutant {
  id: string;
  operator: string;
  line: number;
  original: string;
  replacement: string;
  /** A unified diff of the focal file: the changed lines before and after. */
  diff: string;
}

/** What mutation testing found for one test: the counts, and the survivors to write tests against. */
export interface ToolMutation {
  ran: boolean;
  /** Why no mutant was run (the test does not pass, runs no line of the function, …); null when they ran. */
  reason: string | null;
  mutants: number;
  viable: number;
  killed: number;
  timedOut: number;
  unviable: number;
  survived: number;
  score: number;
  readsSource: boolean;
  survivors: ToolMutant[];
}

export interface ToolMutants extends ToolMutation {
  function: string;
  file: string;
  startLine: number;
  endLine: number;
  test: { source: 'given' | 'kept'; passed: boolean; testHash: string };
}

export interface MutantsArgs extends FunctionSelector {
  testCode?: string;
  maxMutants?: number;
}

/** As the editor's "Check with mutants" (mutants.ts): at most this many, spread over the operators. */
export const DEFAULT_TOOL_MUTANTS = 40;
const MAX_TOOL_MUTANTS = 200;

/** `@@ -12 +12 @@` hunk of the lines the edit touches, before and after. */
export function mutantDiff(file: string, source: string, m: Pick<Mutant, 'startIndex' | 'endIndex' | 'replacement'>): string {
  const lineStart = source.lastIndexOf('\n', m.startIndex - 1) + 1;
  const endNl = source.indexOf('\n', m.endIndex);
  const lineEnd = endNl < 0 ? source.length : endNl;
  const before = source.slice(lineStart, lineEnd).split('\n');
  const after = (source.slice(lineStart, m.startIndex) + m.replacement + source.slice(m.endIndex, lineEnd)).split('\n');
  const first = source.slice(0, lineStart).split('\n').length;
  const span = (n: number): string => (n === 1 ? `${first}` : `${first},${n}`);
  return [`--- a/${file}`, `+++ b/${file}`, `@@ -${span(before.length)} +${span(after.length)} @@`, ...before.map((l) => `-${l}`), ...after.map((l) => `+${l}`)].join('\n');
}

const notRun = (reason: string): ToolMutation => ({
  ran: false,
  reason,
  mutants: 0,
  viable: 0,
  killed: 0,
  timedOut: 0,
  unviable: 0,
  survived: 0,
  score: 0,
  readsSource: false,
  survivors: [],
});

/**
 * Mutation testing of a test already scored (its record says whether it passed and which focal
 * lines it ran): mutants on those lines, each run in its own disposable copy through the user's
 * executor, and the survivors with their diffs (the same ids the editor's Improve works from).
 */
export async function mutationOfScoredTest(services: ToolServices, target: FocalTarget, record: ResultRecord, call: ToolCall, maxMutants = DEFAULT_TOOL_MUTANTS): Promise<ToolMutation> {
  const name = target.task.function_name;
  if (!record.checks[0].tests) return notRun(`the test does not pass: mutants are judged by a passing test (a failing test fails on every mutant)`);
  const covered = record.coverage_stats[0].covered_line_numbers;
  if (!covered.length) return notRun(`the test runs none of ${name}'s lines: mutants are made only on the lines a test runs`);
  const executor = await executorFor(services, target.adapter.id);
  const testCode = record.test[0] ?? '';
  call.progress?.({ done: 0, message: `${name}: making mutants of lines ${lineRanges(covered)}` });
  const result: MutationResult = await runMutationTesting(target.task, target.adapter.id, testCode, {
    executor,
    repoDir: target.root,
    coveredLines: covered,
    maxMutants,
    limits: { memoryBytes: services.limits.memoryBytes },
    signal: call.signal,
    onMutant: (done, total, r) => call.progress?.({ done, total, message: `${name}: mutant ${done} of ${total} ${r.outcome}` }),
  });
  call.signal.throwIfAborted();
  if (result.error) return notRun(result.error);
  // The same edits again for their places in the file (ids are a hash of the edit: the same in every run).
  const made = new Map((await generateMutants(target.task, target.adapter.id, { coveredLines: covered, maxMutants })).map((m) => [m.id, m]));
  const survivors = result.perMutant
    .filter((m) => m.outcome === 'survived')
    .map((m) => {
      const edit = made.get(m.id);
      return { id: m.id, operator: m.operator, line: m.line, original: m.original, replacement: m.replacement, diff: edit ? mutantDiff(target.relPath, target.task.file_content, edit) : '' };
    });
  return {
    ran: true,
    reason: result.readsSource ? 'the test failed on a copy of the source that differs only in a comment or whitespace: it reads the source, so no mutant is counted' : null,
    mutants: result.mutants,
    viable: result.viable,
    killed: result.killed,
    timedOut: result.timedOut,
    unviable: result.unviable,
    survived: result.survived,
    score: result.score,
    readsSource: result.readsSource === true,
    survivors,
  };
}

/** The latest passing scoring kept for the function's current code. */
function keptPassingTest(services: ToolServices, target: FocalTarget): ResultRecord | null {
  const records = scoringsOfFile(services, target.relPath);
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i];
    if (r.function_name === target.task.function_name && r.focal_code === target.task.focal_code && r.checks[0].tests) return r;
  }
  return null;
}

export function mutationText(m: ToolMutation, name: string): string {
  if (!m.ran) return `No mutant was run for the test of ${name}: ${m.reason}.`;
  if (m.readsSource) return `The test of ${name} ${m.reason}; its mutation score is 0.`;
  const head = `Mutants of ${name}: caught ${m.killed + m.timedOut} of ${m.viable} (score ${m.score.toFixed(2)})${m.timedOut ? `, ${m.timedOut} by running out of time` : ''}${m.unviable ? `; ${m.unviable} more did not compile and are not counted` : ''}.`;
  if (!m.survivors.length) return m.mutants ? `${head} None survived.` : `No mutant on the lines the test runs (no change of the operators applies there).`;
  return [
    head,
    `${m.survivors.length} survived: the test still passes with each change below; a test that checks the result each one changes would catch it.`,
    ...m.survivors.map((s) => `\n${s.operator} on line ${s.line} (${s.id}): ${s.original} → ${s.replacement}\n${s.diff}`),
  ].join('\n');
}

export const MUTANTS = defineTool<MutantsArgs, ToolMutants>({
  id: 'mutants',
  title: 'Surviving mutants of a passing test',
  description: (nameOf) =>
    "Runs mutation testing for a passing test of one function: small changes to the function's lines the test runs (a + turned into a -, a condition " +
    'negated, a constant changed, a statement removed), each in a disposable, isolated copy of the workspace, and returns the mutants the test did not ' +
    'catch, each with its operator, line and diff, and the caught count. Without testCode it takes the latest passing test kept for the function (from ' +
    `${nameOf('scoreTest')} or ${nameOf('generateTests')}); with testCode it scores that test first. Write tests that fail on the survivors.`,
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: [...SELECTOR_REQUIRED],
    properties: {
      ...SELECTOR_PROPERTIES,
      testCode: optional({ type: 'string', minLength: 1, maxLength: 200_000, description: 'A test to score and mutation-test; default: the latest passing test kept for the function.' } as const),
      maxMutants: optional({ type: 'integer', minimum: 1, maximum: MAX_TOOL_MUTANTS, description: `At most this many mutants (default ${DEFAULT_TOOL_MUTANTS}).` } as const),
    },
  },
  outputSchema: TOOL_MUTANTS_SCHEMA,
  runsCode: true,
  callsModel: false,
  async run(services, args, call) {
    const target = await focalTarget(services, args);
    let record: ResultRecord | null;
    let source: 'given' | 'kept';
    if (args.testCode !== undefined) {
      const executor = await executorFor(services, target.adapter.id);
      const origin = { round: 0, mode: null, provider: 'agent', model: call.agent ?? 'agent', baseline: false };
      record = await scoreTest(loadedTaskOf(target), args.testCode, 0, origin, stepEvaluation(services, target, executor, call, () => 0, 1), call.signal);
      call.signal.throwIfAborted();
      services.scorings.storeFor(target.task, target.root).addResult(loadedTaskOf(target), { provider: origin.provider, model: origin.model, mode: 'standard' }, record);
      source = 'given';
    } else {
      record = keptPassingTest(services, target);
      if (!record) throw new ToolArgumentError(`no passing test of ${target.task.function_name}'s current code is kept: pass testCode, or score one first with score_test`);
      source = 'kept';
    }
    const mutation = await mutationOfScoredTest(services, target, record, call, args.maxMutants ?? DEFAULT_TOOL_MUTANTS);
    return {
      function: target.task.function_name,
      file: target.relPath,
      startLine: target.task.function_component.start_line,
      endLine: target.task.function_component.end_line,
      test: { source, passed: record.checks[0].tests, testHash: record.xrt.test_hash },
      ...mutation,
    };
  },
  text: (r) => mutationText(r, r.function),
});
