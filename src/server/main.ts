import {
  CodeLens,
  createConnection,
  ProposedFeatures,
  TextDocuments,
  TextDocumentSyncKind,
  type InitializeResult,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { URI } from 'vscode-uri';
import { checkEnvironment, formatEnvironment } from '../engine/environment';
import * as path from 'node:path';
import { classifyDocument } from '../engine/extract/document';
import { evaluateTest } from '../engine/execute/evaluate';
import { DockerExecutor } from '../engine/execute/docker';
import { LocalExecutor } from '../engine/execute/local';
import type { Executor } from '../engine/execute/types';
import { taskForDocumentFunction } from '../engine/extract/document';
import { baselineProvider } from '../engine/generate/baseline';
import { generateOne } from '../engine/generate/generate';
import { PAPER_PARAMS } from '../engine/generate/types';
import { adapterForPath } from '../engine/languages';
import { buildPrompt } from '../engine/prompt/templates';
import {
  CHECK_ENVIRONMENT,
  SCORE_FUNCTION,
  type CheckEnvironmentResult,
  type EngineSettings,
  type ScoreFunctionParams,
  type ScoreFunctionResult,
} from '../shared/protocol';

/**
 * The engine server: the engine in its own process, so parsing (and later containers and
 * indexing) never blocks the extension host. For now it offers a code lens on every focal function.
 */
const connection = createConnection(ProposedFeatures.all);
const documents = new TextDocuments(TextDocument);
let filters = { minLines: 20, maxLines: 50 };
let settings: EngineSettings = { minLines: 20, maxLines: 50, provider: 'baseline', executor: 'local', testTimeoutSeconds: 300, memoryMb: 2048 };
let workspaceFolders: string[] = [];
/** Scores of this session, per document and focal function start line, for the code lenses. */
const scores = new Map<string, Map<number, ScoreFunctionResult>>();
let executor: Promise<Executor> | undefined;

connection.onInitialize((params): InitializeResult => {
  const init = params.initializationOptions as Partial<EngineSettings> | undefined;
  workspaceFolders = (params.workspaceFolders ?? []).map((f) => f.uri);
  settings = { ...settings, ...init };
  filters = { minLines: settings.minLines, maxLines: settings.maxLines };
  return { capabilities: { textDocumentSync: TextDocumentSyncKind.Incremental, codeLensProvider: { resolveProvider: false } } };
});

connection.onCodeLens(async (params): Promise<CodeLens[]> => {
  const doc = documents.get(params.textDocument.uri);
  if (!doc) return [];
  const folder = workspaceFolders.find((f) => doc.uri.startsWith(f.endsWith('/') ? f : f + '/'));
  const relPath = folder ? doc.uri.slice(folder.replace(/\/$/, '').length + 1) : URI.parse(doc.uri).path;
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

function workspaceOf(uri: string): { root: string; relPath: string } {
  const folder = workspaceFolders.find((f) => uri.startsWith(f.endsWith('/') ? f : f + '/'));
  const file = URI.parse(uri).fsPath;
  const root = folder ? URI.parse(folder).fsPath : path.dirname(file);
  return { root, relPath: path.relative(root, file).split(path.sep).join('/') };
}

function executorFor(): Promise<Executor> {
  executor ??= settings.executor === 'docker' ? DockerExecutor.create() : Promise.resolve(new LocalExecutor());
  return executor;
}

/** `TPR 1/1 · Cov 85% · IR ✓`: what the lens shows once a function is scored. */
function summaryOf(r: Omit<ScoreFunctionResult, 'summary'>): string {
  const cov = r.executableLines.length ? Math.round((100 * r.coveredLines.length) / r.executableLines.length) : 0;
  const tpr = r.compiled ? `TPR ${r.testsPassed}/${r.testsRan}` : 'does not compile';
  return `${r.passed ? '✓' : '✗'} ${tpr} · Cov ${cov}% · IR ${r.invoked ? '✓' : '✗'}${r.provider === 'baseline' ? ' (baseline)' : ''}`;
}

// Generate, run and score one focal function, with work-done progress and cancellation.
connection.onRequest(SCORE_FUNCTION, async (params: ScoreFunctionParams, token): Promise<ScoreFunctionResult> => {
  const doc = documents.get(params.uri);
  if (!doc) throw new Error(`${params.uri} is not open`);
  const { root, relPath } = workspaceOf(params.uri);
  const adapter = adapterForPath(relPath);
  const task = await taskForDocumentFunction(root, relPath, doc.getText(), params.startLine, filters);
  if (!adapter || !task) throw new Error(`no focal function starts on line ${params.startLine} of ${relPath}`);
  if (settings.provider !== 'baseline') {
    throw new Error(`the editor runs the baseline provider for now; run \`xrepotest generate --provider ${settings.provider}\` from a terminal for models`);
  }
  const progress = await connection.window.createWorkDoneProgress();
  const controller = new AbortController();
  token.onCancellationRequested(() => controller.abort(new Error('cancelled')));
  progress.token.onCancellationRequested(() => controller.abort(new Error('cancelled')));
  progress.begin(`XRepoTest: ${task.function_name}`, 0, 'generating', true);
  try {
    const prompt = buildPrompt(task, adapter.id, 'standard', {});
    const generation = await generateOne({
      provider: baselineProvider,
      params: { model: 'baseline', ...PAPER_PARAMS },
      prompt,
      messages: [{ role: 'user', content: prompt.user }],
      task,
      language: adapter.id,
      sample: 0,
      round: 0,
      signal: controller.signal,
    });
    progress.report(30, 'running the test in a disposable copy');
    const e = await evaluateTest(task, adapter.id, generation.test_code, {
      executor: await executorFor(),
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
      provider: baselineProvider.id,
    };
    const full = { ...result, summary: summaryOf(result) };
    const perDoc = scores.get(params.uri) ?? new Map<number, ScoreFunctionResult>();
    perDoc.set(params.startLine, full);
    scores.set(params.uri, perDoc);
    void connection.sendRequest("workspace/codeLens/refresh");
    return full;
  } finally {
    progress.done();
  }
});

// What this machine can run (executors, images, language servers) and what to install.
connection.onRequest(CHECK_ENVIRONMENT, async (): Promise<CheckEnvironmentResult> => {
  const report = await checkEnvironment();
  return { ...report, text: formatEnvironment(report) };
});

documents.listen(connection);
connection.listen();
