import { scoreTest } from '../task/run-task-step';
import { defineTool, optional } from './definition';
import { mutationOfScoredTest, mutationText, type ToolMutation } from './mutants';
import { TOOL_SCORE_SCHEMA } from './output-schemas';
import { executorFor, loadedTaskOf, stepEvaluation } from './evaluation';
import { focalTarget, type FunctionSelector } from './focal-target';
import { SELECTOR_PROPERTIES, SELECTOR_REQUIRED } from './selector-schema';
import { scoreText, toolScoreOf, type ToolScore } from './tool-score';

export interface ScoreTestArgs extends FunctionSelector {
  testCode: string;
  mutants?: boolean;
}

/** Larger than any unit test an agent writes; a bound on what is written into the sandbox. */
export const MAX_TEST_CODE_CHARS = 200_000;

/**
 * Places a test the agent wrote beside the focal function in a disposable copy of the workspace,
 * runs it isolated (the executor and limits the user chose), scores it, and keeps the score as the
 * function's current one (labelled with the agent's name).
 */
export const SCORE_TEST = defineTool<ScoreTestArgs, ToolScore & { mutation?: ToolMutation }>({
  id: 'scoreTest',
  title: 'Score a unit test for a function',
  description: (nameOf) =>
    'Runs the given unit test against one function of the workspace and scores it, without touching the workspace: the test is placed where the ' +
    "language's tests go in a disposable, isolated copy (no network, limits), compiled, run, and measured. Returns whether it compiled (CSR) and " +
    'passed (TPR), the focal function\'s line coverage with the line numbers it did not run (Cov), whether it calls the function (IR), the failure ' +
    "category and the compiler's or runner's message. Write the test as the language's test file would hold it (Go: a _test.go file of the same " +
    'package; Rust: a #[cfg(test)] module using super::*; PHP: a PHPUnit test class; Ruby: an RSpec file; Julia: @testset code). ' +
    `${nameOf('focalFunctions')} lists a file's functions.`,
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: [...SELECTOR_REQUIRED, 'testCode'],
    properties: {
      ...SELECTOR_PROPERTIES,
      testCode: { type: 'string', minLength: 1, maxLength: MAX_TEST_CODE_CHARS, description: 'The whole test file, as source code.' },
      mutants: optional({
        type: 'boolean',
        description: `Also run mutation testing when the test passes, and return the mutants it does not catch with their diffs (as ${'mutants'} does; takes one run per mutant).`,
      } as const),
    },
  },
  outputSchema: TOOL_SCORE_SCHEMA,
  runsCode: true,
  callsModel: false,
  async run(services, args, call) {
    const target = await focalTarget(services, args);
    const executor = await executorFor(services, target.adapter.id);
    const task = loadedTaskOf(target);
    const origin = { round: 0, mode: null, provider: 'agent', model: call.agent ?? 'agent', baseline: false };
    call.progress?.({ done: 0, total: 1, message: `${target.task.function_name}: preparing a disposable copy` });
    const record = await scoreTest(task, args.testCode, 0, origin, stepEvaluation(services, target, executor, call, () => 0, 1), call.signal);
    call.signal.throwIfAborted();
    services.scorings.storeFor(target.task, target.root).addResult(task, { provider: origin.provider, model: origin.model, mode: 'standard' }, record);
    const score = toolScoreOf(record, target.root, services.executorKind);
    if (!args.mutants) {
      call.progress?.({ done: 1, total: 1, message: `${target.task.function_name}: scored` });
      return score;
    }
    // The mutants' own progress counts them; the scoring is done.
    const mutation = await mutationOfScoredTest(services, target, record, { ...call, progress: (p) => call.progress?.({ ...p, message: p.message }) });
    call.progress?.({ done: 1, total: 1, message: `${target.task.function_name}: scored, mutants run` });
    return { ...score, mutation };
  },
  text: (s) => (s.mutation ? `${scoreText(s)}\n\n${mutationText(s.mutation, s.function)}` : scoreText(s)),
});
