import * as path from 'node:path';
import type { CancellationToken } from 'vscode-languageserver/node';
import { toResultRecord } from '../engine/store/results';
import type { LoadedTask } from '../engine/tasks/load';
import type { MutationResult } from '../engine/mutate/run';
import { MUTATE_CANDIDATE, type MutateCandidateParams, type ScoreFunctionResult } from '../shared/scoring-protocol';
import { evaluateFor, focalOf, recentEvaluation, resultOf, withMutation, withProgress } from './candidates';
import { editorMutation, showScoreOnLens } from './scoring';
import type { ServerState } from './state';
import { onClientRequest } from './wire';

/** Why "Check with mutants" is refused on a test that does not pass. */
export const MUTANTS_NEED_A_PASS = 'mutants check a passing test, and this one does not pass: "Repair with model" or "Regenerate" first';

/**
 * "Check with mutants" (issue 30): mutation testing of one passing test, asked for after its score
 * was shown (it is off by default in the editor: a score is never held back by 40 mutant runs). The
 * test's last run gives the lines it covers (else it runs once more); the answer is its score with the
 * mutation counts, shown on the lens.
 */
export function registerMutating(state: ServerState): void {
  onClientRequest(state.connection, MUTATE_CANDIDATE, async (params: MutateCandidateParams, token: CancellationToken): Promise<ScoreFunctionResult> => {
    const focal = await focalOf(state, params.uri, params.startLine, params.settings);
    const result = await withProgress(
      state,
      token,
      `XRepoTest: checking the test of ${focal.task.function_name} with mutants`,
      'reading what the test covers',
      async (p) => {
        const e = recentEvaluation(focal, params.testCode) ?? (await evaluateFor(state, focal, params.testCode, params.settings, p));
        if (!e.score.passed) throw new Error(MUTANTS_NEED_A_PASS);
        const executor = await state.executor(params.settings.executor);
        let mutation: MutationResult | undefined;
        const counted = await editorMutation(focal, params.settings, executor, p, (m) => (mutation = m))(params.testCode, e.score.coverage.covered);
        // The slot's record again, now with its mutants: reports and the annotator keep a slot's last record (report/dedupe.ts).
        const record = toResultRecord(focal.task, params.testCode, params.sample, e, { round: params.round, mode: params.settings.mode, provider: params.provider, model: params.model, baseline: params.provider === 'baseline' });
        record.xrt.mutation = counted ?? null;
        const task: LoadedTask = { task: focal.task, language: focal.adapter.id, file: path.join(focal.root, focal.relPath), line: 0 };
        state.editorRun?.storeFor(focal.task, focal.root).addResult(task, { provider: params.provider, model: params.model, mode: params.settings.mode }, record);
        const by = { provider: params.provider, model: params.model, sample: params.sample, round: params.round };
        return withMutation(resultOf(focal, params.testCode, by, e), mutation);
      },
      { focal, phase: { kind: 'mutation', done: 0, total: 0 } },
    );
    showScoreOnLens(state, result);
    return result;
  });
}
