import { CodeLensRefreshRequest, type CancellationToken, type CodeLens } from 'vscode-languageserver/node';
import { classifyDocument } from '../engine/extract/document';
import { generateOne } from '../engine/generate/generate';
import { adapterForPath } from '../engine/languages';
import {
  FOCAL_FUNCTION_AT,
  SCORE_FUNCTION,
  type FocalFunctionAtParams,
  type FocalFunctionAtResult,
  type ScoreFunctionParams,
  type ScoreFunctionResult,
} from '../shared/scoring-protocol';
import type { GenerationRecord, Provider } from '../engine/generate/types';
import type { EngineSettings } from '../shared/protocol';
import { evaluateFor, focalOf, resultOf, withMutation, withProgress, type Focal, type Progress } from './candidates';
import { paramsFor, promptFor, providerFor } from './generation';
import type { ServerState } from './state';
import { onClientRequest } from './wire';

/** Scores of this session, per document and focal function start line, for the code lenses. */
const scores = new Map<string, Map<number, ScoreFunctionResult>>();

/** The function's lens shows this score from now on (the latest generated test's). */
function showScoreOnLens(state: ServerState, result: ScoreFunctionResult): void {
  const perDoc = scores.get(result.uri) ?? new Map<number, ScoreFunctionResult>();
  perDoc.set(result.startLine, result);
  scores.set(result.uri, perDoc);
  void state.connection.sendRequest(CodeLensRefreshRequest.type);
}

/** One generation for the focal function: the settings' prompt, sample `sample`, round 0. */
async function generateSample(state: ServerState, focal: Focal, provider: Provider, settings: EngineSettings, sample: number, p: Progress): Promise<GenerationRecord> {
  const prompt = await promptFor(focal.task, focal.adapter.id, focal.root, settings, state.lspContext, p.signal);
  p.report(10, `generating (${provider.id})`);
  const generation = await generateOne({
    provider,
    params: paramsFor(settings),
    prompt,
    messages: [{ role: 'user', content: prompt.user }],
    task: focal.task,
    language: focal.adapter.id,
    sample,
    round: 0,
    signal: p.signal,
  });
  if (generation.error) throw new Error(`generation failed: ${generation.error}`);
  return generation;
}

/**
 * A generated test, scored: run in a disposable copy, mutation-tested if it passes, and shown on the
 * function's lens (what generating, regenerating and repairing share).
 */
export async function scoreGenerated(state: ServerState, focal: Focal, generation: GenerationRecord, provider: Provider, settings: EngineSettings, p: Progress): Promise<ScoreFunctionResult> {
  const e = await evaluateFor(state, focal, generation.test_code, settings, p);
  const by = { provider: provider.id, model: generation.model, sample: generation.sample, round: generation.round };
  const result = await withMutation(state, focal, resultOf(focal, generation.test_code, by, e), settings, p);
  showScoreOnLens(state, result);
  return result;
}

/** A new sample for the focal function, scored (the lens's "Generate scored tests" is sample 0; "Regenerate" the next). */
export async function scoreNewSample(state: ServerState, params: ScoreFunctionParams, sample: number, first: string, token: CancellationToken): Promise<ScoreFunctionResult> {
  const settings = params.settings;
  const focal = await focalOf(state, params.uri, params.startLine, settings);
  const provider = providerFor(settings, params.credentials);
  return withProgress(state, token, `XRepoTest: ${focal.task.function_name}`, first, async (p) => {
    const generation = await generateSample(state, focal, provider, settings, sample, p);
    p.report(30, 'running the test in a disposable copy');
    return scoreGenerated(state, focal, generation, provider, settings, p);
  });
}

/** Code lenses on focal functions, and generating + scoring one of them with progress and cancellation. */
export function registerScoring(state: ServerState): void {
  const { connection, documents } = state;

  connection.onCodeLens(async (params): Promise<CodeLens[]> => {
    const doc = documents.get(params.textDocument.uri);
    if (!doc) return [];
    const filters = { minLines: state.settings.minLines, maxLines: state.settings.maxLines };
    const focal = (await classifyDocument(state.workspaceOf(doc.uri).relPath, doc.getText(), filters)).filter((f) => f.rule === null);
    const scored = scores.get(doc.uri);
    return focal.flatMap((f) => {
      const range = { start: { line: f.startLine - 1, character: 0 }, end: { line: f.startLine - 1, character: 0 } };
      const lenses: CodeLens[] = [
        { range, command: { title: `XRepoTest: focal function ${f.name} (${f.nonCommentLines} lines)`, command: '' } },
        { range, command: { title: 'Generate scored tests', command: 'xrepotest.generateScoredTests', arguments: [doc.uri, f.startLine] } },
      ];
      const score = scored?.get(f.startLine);
      if (score) lenses.push({ range, command: { title: score.summary, command: '' } });
      return lenses;
    });
  });

  onClientRequest(connection, FOCAL_FUNCTION_AT, async (params: FocalFunctionAtParams): Promise<FocalFunctionAtResult> => {
    const doc = documents.get(params.uri);
    if (!doc) return { why: 'the file is not open in the editor' };
    const { relPath } = state.workspaceOf(params.uri);
    if (!adapterForPath(relPath)) return { why: `${relPath} is not Rust, Go, Julia, PHP or Ruby` };
    const filters = { minLines: params.settings.minLines, maxLines: params.settings.maxLines };
    const line = params.line + 1;
    const around = (await classifyDocument(relPath, doc.getText(), filters))
      .filter((f) => f.startLine <= line && line <= f.endLine)
      .sort((a, b) => b.startLine - a.startLine)[0];
    if (!around) return { why: 'the cursor is not inside a function' };
    if (around.rule !== null) return { why: `${around.name} is not a focal function (${around.rule})` };
    return { name: around.name, startLine: around.startLine, endLine: around.endLine };
  });

  onClientRequest(connection, SCORE_FUNCTION, (params: ScoreFunctionParams, token) =>
    scoreNewSample(state, params, 0, params.settings.mode === 'standard' ? 'generating' : `gathering ${params.settings.mode} context`, token),
  );
}
