import * as path from 'node:path';
import { noEngineVerdict, verdictOfProblem } from '../environment';
import type { Executor } from '../execute/types';
import type { LanguageId } from '../languages';
import type { StepEvaluation } from '../task/run-task-step';
import type { LoadedTask } from '../tasks/load';
import { ToolRefusal } from './errors';
import type { FocalTarget } from './focal-target';
import type { ToolCall, ToolServices } from './services';

/**
 * The executor, when it can run the language here; otherwise a refusal with the cause and the fix,
 * before anything is generated or run (as the editor refuses a scoring): a machine's gap is never
 * scored as the test's failure, and no model is paid for a test that cannot run.
 */
export async function executorFor(services: ToolServices, language: LanguageId): Promise<Executor> {
  let executor: Executor;
  try {
    executor = await services.executor();
  } catch (e) {
    const why = e instanceof Error ? e.message.split('\n')[0] : String(e);
    const verdict = services.executorKind === 'docker' ? noEngineVerdict(why) : { cause: why, fix: 'run `xrepotest doctor` to see what this machine lacks' };
    throw new ToolRefusal(`tests cannot run here: ${verdict.cause}; ${verdict.fix}`);
  }
  const missing = await executor.unavailable?.(language);
  if (missing) {
    const verdict = verdictOfProblem({ cause: 'toolchain-missing', reason: missing }, language, services.executorKind);
    throw new ToolRefusal(`${language} tests cannot run here: ${verdict.cause}; ${verdict.fix}`);
  }
  return executor;
}

/** The target as the task step takes it. */
export function loadedTaskOf(target: FocalTarget): LoadedTask {
  return { task: target.task, language: target.adapter.id, file: path.join(target.root, target.relPath), line: 0 };
}

/**
 * How the tools run a test: in a disposable copy of the workspace through the user's executor, with
 * the user's limits — what the editor's scoring uses; the agent chooses none of it. Phases are the call's progress.
 */
export function stepEvaluation(services: ToolServices, target: FocalTarget, executor: Executor, call: ToolCall, done: () => number, total: number): StepEvaluation {
  return {
    executor,
    checkout: target.root,
    timeouts: { testMs: services.limits.testMs },
    limits: { memoryBytes: services.limits.memoryBytes },
    onPhase: (phase) => call.progress?.({ done: done(), total, message: `${target.task.function_name}: ${phase}` }),
  };
}
