import { GENERATED_TESTS_SCHEMA } from './output-schemas';
import { runTaskStep } from '../task/run-task-step';
import { defineTool, optional } from './definition';
import { ToolRefusal } from './errors';
import { configuredGeneration } from './generation';
import { executorFor, loadedTaskOf, stepEvaluation } from './evaluation';
import { focalTarget, type FunctionSelector } from './focal-target';
import { SELECTOR_PROPERTIES, SELECTOR_REQUIRED } from './selector-schema';
import { scoreText, toolScoreOf, type ToolScore } from './tool-score';

export interface GenerateTestsArgs extends FunctionSelector {
  samples?: number;
  repairRounds?: number;
}

export interface GeneratedTests {
  provider: string;
  model: string;
  mode: string;
  /** The offline baseline wrote them: smoke tests, a lower bound, not a model's. */
  baseline: boolean;
  tests: Array<{ sample: number; round: number; testCode: string; score: ToolScore }>;
}

/** Samples and repair rounds an agent may ask for at once: each is a model call and a run. */
const MAX_SAMPLES = 5;
const MAX_REPAIR_ROUNDS = 3;

/**
 * The engine's task step for one function of the workspace, as the editor's "Generate scored tests":
 * the configured provider writes a test (in the configured context mode), it runs in a disposable
 * copy, is scored, and failing tests are repaired for the rounds asked; every slot is kept.
 */
export const GENERATE_TESTS = defineTool<GenerateTestsArgs, GeneratedTests>({
  id: 'generateTests',
  title: 'Generate scored unit tests for a function',
  description: (nameOf) =>
    "Generates unit tests for one function of the workspace with the model the user configured (or the offline baseline, which writes smoke tests), runs each " +
    'in a disposable, isolated copy of the workspace and scores it (CSR, TPR, Cov with the lines not run, IR, failure category). Returns each test\'s code ' +
    `and score; nothing is written into the workspace. To score a test you wrote yourself use ${nameOf('scoreTest')}.`,
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: [...SELECTOR_REQUIRED],
    properties: {
      ...SELECTOR_PROPERTIES,
      samples: optional({ type: 'integer', minimum: 1, maximum: MAX_SAMPLES, description: `Independent tests to generate (default 1, at most ${MAX_SAMPLES}).` } as const),
      repairRounds: optional({
        type: 'integer',
        minimum: 0,
        maximum: MAX_REPAIR_ROUNDS,
        description: `Rounds in which a failing test's error log goes back to the model for a fix (default 0, at most ${MAX_REPAIR_ROUNDS}).`,
      } as const),
    },
  },
  outputSchema: GENERATED_TESTS_SCHEMA,
  runsCode: true,
  callsModel: true,
  async run(services, args, call) {
    const target = await focalTarget(services, args);
    const executor = await executorFor(services, target.adapter.id);
    const generation = configuredGeneration(services.generation);
    const task = loadedTaskOf(target);
    const samples = args.samples ?? 1;
    const labels = { provider: services.generation.provider, model: generation.params.model, mode: generation.mode };
    let scored = 0;
    try {
      const slots = await runTaskStep(
        task,
        {
          provider: generation.provider,
          params: generation.params,
          labels,
          prompt: () => {
            call.progress?.({ done: scored, total: samples, message: `${target.task.function_name}: generating (${generation.provider.id})` });
            return generation.prompts.promptFor(target.task, target.adapter.id, target.root, call.signal);
          },
          evaluation: stepEvaluation(services, target, executor, call, () => scored, samples),
          store: services.scorings.storeFor(target.task, target.root),
        },
        {
          samples,
          repairRounds: args.repairRounds ?? 0,
          mutation: false,
          signal: call.signal,
          // A failed call is no test: the agent hears why instead of a score of an empty test.
          onGenerated: (g) => {
            if (g.error) throw new ToolRefusal(`the ${generation.provider.id} provider did not answer: ${g.error}`);
          },
          onSlot: (slot) => {
            if (slot.generation.round === 0) scored = Math.min(samples, slot.generation.sample + 1);
          },
        },
      );
      return {
        provider: labels.provider,
        model: labels.model,
        mode: labels.mode,
        baseline: generation.provider.isBaseline === true,
        tests: slots
          .filter((s) => s.result)
          .map((s) => ({ sample: s.generation.sample, round: s.generation.round, testCode: s.generation.test_code, score: toolScoreOf(s.result!, target.root, services.executorKind) })),
      };
    } finally {
      await generation.prompts.close();
    }
  },
  text(r) {
    const who = r.baseline ? 'the offline baseline (smoke tests without assertions: a lower bound; the user can configure a model)' : `${r.provider} ${r.model}`;
    const parts = [`${r.tests.length} test(s) written by ${who}, context mode ${r.mode}.`];
    for (const t of r.tests) parts.push('', `## Sample ${t.sample}${t.round ? `, repair round ${t.round}` : ''}`, scoreText(t.score), '', 'Test code:', '```', t.testCode, '```');
    return parts.join('\n');
  },
});
