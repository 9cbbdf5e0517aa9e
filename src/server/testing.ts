import * as path from 'node:path';
import { runContext } from '../engine/execute/evaluate';
import { createSandbox, removeSandbox } from '../engine/execute/sandbox';
import {
  PLACE_CANDIDATE,
  REGENERATE_CANDIDATE,
  REPAIR_CANDIDATE,
  RUN_CANDIDATE,
  type PlaceCandidateParams,
  type PlaceCandidateResult,
  type RegenerateCandidateParams,
  type RepairCandidateParams,
  type RunCandidateParams,
  type ScoreFunctionResult,
} from '../shared/scoring-protocol';
import { acceptedPlacement, workspacePathOf } from './candidate-mapping';
import { environmentResultOf, evaluateFor, feedbackFor, focalOf, resultOf, withProgress } from './candidates';
import { environmentRefusal } from './environment';
import { providerFor } from './generation';
import { scoreNewSample, scoreSlot } from './scoring';
import type { ServerState } from './state';
import { onClientRequest } from './wire';

/** Why "Repair with model" is refused on the offline baseline, with where to choose a model. */
export const BASELINE_CANNOT_REPAIR = "the offline baseline cannot repair a test; choose a model in xrepotest.provider (or run 'XRepoTest: Choose a model')";

/** The Testing view's requests: run a candidate again, repair it with the model, regenerate, place it for "Accept". */
export function registerTesting(state: ServerState): void {
  const { connection } = state;

  onClientRequest(connection, RUN_CANDIDATE, async (params: RunCandidateParams, token): Promise<ScoreFunctionResult> => {
    const focal = await focalOf(state, params.uri, params.startLine, params.settings);
    const by = { provider: params.provider ?? 'manual', model: params.model ?? 'manual', sample: params.sample ?? 0, round: params.round ?? 0 };
    // The machine cannot run the language with this executor (a container engine stopped since): the verdict, not a run.
    const refused = await environmentRefusal(state, focal, params.settings);
    if (refused) return { ...environmentResultOf(focal, by, refused), testCode: params.testCode };
    return withProgress(state, token, `XRepoTest: running a test of ${focal.task.function_name}`, 'running the test in a disposable copy', async (p) => {
      const e = await evaluateFor(state, focal, params.testCode, params.settings, p);
      return resultOf(focal, params.testCode, by, e, params.coverage ?? true);
    }, { focal, phase: { kind: 'starting' } });
  });

  onClientRequest(connection, REPAIR_CANDIDATE, async (params: RepairCandidateParams, token): Promise<ScoreFunctionResult> => {
    const settings = params.settings;
    const focal = await focalOf(state, params.uri, params.startLine, settings);
    const provider = providerFor(settings, params.credentials, state.editorChat);
    // The baseline reads no prompt: "repairing" would return the same test and call it a repair.
    if (provider.isBaseline) throw new Error(BASELINE_CANNOT_REPAIR);
    return withProgress(state, token, `XRepoTest: repairing a test of ${focal.task.function_name}`, 'reading the failed run', async (p) => {
      const { feedback, passed } = await feedbackFor(state, focal, params.testCode, settings, p);
      if (passed) throw new Error('this test passes: there is nothing to repair (use "Regenerate" for another test)');
      return scoreSlot(state, focal, provider, settings, { kind: 'repair', sample: params.sample, round: params.round, testCode: params.testCode, feedback }, p, params.credentials);
    }, { focal, phase: { kind: 'reading-failure' } });
  });

  onClientRequest(connection, REGENERATE_CANDIDATE, (params: RegenerateCandidateParams, token) => scoreNewSample(state, params, params.sample, 'generating another test', token));

  onClientRequest(connection, PLACE_CANDIDATE, async (params: PlaceCandidateParams): Promise<PlaceCandidateResult> => {
    const focal = await focalOf(state, params.uri, params.startLine, params.settings);
    const toolchain = focal.adapter.toolchain;
    // The toolchain decides the place and the code (a class renamed to match its file, a wrapped
    // module) in a copy, exactly as for the run; the workspace is written by the editor, on "Accept".
    const sandbox = createSandbox(focal.root, focal.task, toolchain.manifests);
    try {
      const ctx = runContext(focal.task, focal.adapter.id, params.testCode, sandbox, (await state.executor(params.settings.executor)).capabilities);
      const placement = await toolchain.place(ctx);
      const run = workspacePathOf(path.relative(sandbox.dir, placement.testFile), focal.root);
      const accepted = acceptedPlacement(focal.adapter.id, run.relPath, placement.writtenCode, { relPath: focal.relPath, functionName: focal.task.function_name });
      const insertAt = accepted.append && placement.insertedAt !== undefined ? positionOf(focal.task.file_content, placement.insertedAt) : undefined;
      return { relPath: accepted.relPath, path: path.join(focal.root, accepted.relPath), code: accepted.code, append: accepted.append, ...(insertAt ? { insertAt } : {}), notes: [...placement.notes, ...accepted.notes] };
    } finally {
      removeSandbox(sandbox);
    }
  });
}

/** A character offset as a 0-based line and character (UTF-16 units, as the editor counts). */
function positionOf(text: string, offset: number): { line: number; character: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length - 1;
  return { line, character: offset - (before.lastIndexOf('\n') + 1) };
}
