import type { CodeLens } from 'vscode-languageserver/node';
import { URI } from 'vscode-uri';
import { evaluateTest } from '../engine/execute/evaluate';
import { classifyDocument, taskForDocumentFunction } from '../engine/extract/document';
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
import { paramsFor, promptFor, providerFor } from './generation';
import type { ServerState } from './state';

/** `TPR 1/1 · Cov 85% · IR ✓`: what the lens shows once a function is scored. */
function summaryOf(r: Omit<ScoreFunctionResult, 'summary'>): string {
  const cov = r.executableLines.length ? Math.round((100 * r.coveredLines.length) / r.executableLines.length) : 0;
  const tpr = r.compiled ? `TPR ${r.testsPassed}/${r.testsRan}` : 'does not compile';
  return `${r.passed ? '✓' : '✗'} ${tpr} · Cov ${cov}% · IR ${r.invoked ? '✓' : '✗'}${r.provider === 'baseline' ? ' (baseline)' : ''}`;
}

/** Code lenses on focal functions, and generating + scoring one of them with progress and cancellation. */
export function registerScoring(state: ServerState): void {
  const { connection, documents } = state;
  /** Scores of this session, per document and focal function start line, for the code lenses. */
  const scores = new Map<string, Map<number, ScoreFunctionResult>>();

  connection.onCodeLens(async (params): Promise<CodeLens[]> => {
    const doc = documents.get(params.textDocument.uri);
    if (!doc) return [];
    const folder = state.workspaceFolders.find((f) => doc.uri.startsWith(f.endsWith('/') ? f : f + '/'));
    const relPath = folder ? doc.uri.slice(folder.replace(/\/$/, '').length + 1) : URI.parse(doc.uri).path;
    const filters = { minLines: state.settings.minLines, maxLines: state.settings.maxLines };
    const focal = (await classifyDocument(decodeURIComponent(relPath), doc.getText(), filters)).filter((f) => f.rule === null);
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

  connection.onRequest(FOCAL_FUNCTION_AT, async (params: FocalFunctionAtParams): Promise<FocalFunctionAtResult> => {
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

  connection.onRequest(SCORE_FUNCTION, async (params: ScoreFunctionParams, token): Promise<ScoreFunctionResult> => {
    const doc = documents.get(params.uri);
    if (!doc) throw new Error(`${params.uri} is not open`);
    const settings = params.settings;
    const { root, relPath } = state.workspaceOf(params.uri);
    const adapter = adapterForPath(relPath);
    const filters = { minLines: settings.minLines, maxLines: settings.maxLines };
    const task = await taskForDocumentFunction(root, relPath, doc.getText(), params.startLine, filters);
    if (!adapter || !task) throw new Error(`no focal function starts on line ${params.startLine} of ${relPath}`);
    const provider = providerFor(settings, params.credentials);
    const progress = await connection.window.createWorkDoneProgress();
    const controller = new AbortController();
    token.onCancellationRequested(() => controller.abort(new Error('cancelled')));
    progress.token.onCancellationRequested(() => controller.abort(new Error('cancelled')));
    progress.begin(`XRepoTest: ${task.function_name}`, 0, settings.mode === 'standard' ? 'generating' : `gathering ${settings.mode} context`, true);
    try {
      const prompt = await promptFor(task, adapter.id, root, settings, state.lspContext, controller.signal);
      progress.report(10, `generating (${provider.id})`);
      const generation = await generateOne({
        provider,
        params: paramsFor(settings),
        prompt,
        messages: [{ role: 'user', content: prompt.user }],
        task,
        language: adapter.id,
        sample: 0,
        round: 0,
        signal: controller.signal,
      });
      if (generation.error) throw new Error(`generation failed: ${generation.error}`);
      progress.report(30, 'running the test in a disposable copy');
      const e = await evaluateTest(task, adapter.id, generation.test_code, {
        executor: await state.executor(settings.executor),
        repoDir: root,
        signal: controller.signal,
        timeouts: { testMs: settings.testTimeoutSeconds * 1000 },
        limits: { memoryBytes: settings.memoryMb * 1024 * 1024 },
        onPhase: (phase) => progress.report(60, phase),
      });
      const result: Omit<ScoreFunctionResult, 'summary'> = {
        functionName: task.function_name,
        compiled: e.score.compiled,
        passed: e.score.passed,
        testsRan: e.testReport.ran,
        testsPassed: e.testReport.passed,
        coveredLines: e.score.coverage.covered,
        executableLines: e.score.coverage.executable,
        invoked: e.score.invocation.invoked,
        failureCategory: e.score.failure?.category ?? null,
        reason: e.score.reason,
        testCode: generation.test_code,
        provider: provider.id,
      };
      const full = { ...result, summary: summaryOf(result) };
      const perDoc = scores.get(params.uri) ?? new Map<number, ScoreFunctionResult>();
      perDoc.set(params.startLine, full);
      scores.set(params.uri, perDoc);
      void connection.sendRequest('workspace/codeLens/refresh');
      return full;
    } finally {
      progress.done();
    }
  });
}
