import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { URI } from 'vscode-uri';
import { isExecutorKind } from '../engine/execute/create-executor';
import { ScoringRunFolder } from '../engine/task/scoring-run-folder';
import { callTool, toolById, type ToolServices } from '../engine/tools';
import { Workspace } from '../engine/tools/workspace';
import { registerSecret } from '../engine/util/redact';
import { CALL_TOOL, type CallToolParams, type CallToolResult } from '../shared/lm-tools-protocol';
import { DEFAULT_ENGINE_SETTINGS } from '../shared/protocol';
import { generationSettingsFor } from './generation';
import type { ServerState } from './state';
import { onClientRequest } from './wire';

/** Benchmark tasks at once for run_benchmark from the editor: half the cores, at most 4 (the CLI's default). */
const CONCURRENCY = Math.max(1, Math.min(4, Math.floor(os.cpus().length / 2)));

/** Records of tool calls made where the extension gave no storage (its tests' fakes): outside the workspace, per workspace. */
function fallbackRuns(root: string): string {
  return path.join(os.tmpdir(), 'xrepotest-editor-tools', `${path.basename(root)}-${createHash('sha256').update(root).digest('hex').slice(0, 12)}`);
}

/**
 * The tools' services from the server's state and one request's settings and keys: the workspace is
 * the first workspace folder, tests run through the executor the editor's scoring uses, with its
 * limits and its generation settings (keys from the editor's secret storage), scorings kept in the
 * editor's run folder (so the lenses and the annotator see them, and `coverage` reads them back).
 */
export function editorToolServices(state: ServerState, params: Pick<CallToolParams, 'settings' | 'credentials'>): ToolServices {
  const folder = state.workspaceFolders[0];
  if (!folder) throw new Error('no workspace folder is open: the tools work on the files of an open folder');
  const workspace = Workspace.open(URI.parse(folder).fsPath);
  const { settings, credentials } = params;
  const runs = state.editorRun ? path.dirname(state.editorRun.dir) : fallbackRuns(workspace.root);
  const kind = isExecutorKind(settings.executor) ? settings.executor : DEFAULT_ENGINE_SETTINGS.executor;
  return {
    workspace,
    executor: () => state.executor(kind),
    executorKind: kind,
    generation: generationSettingsFor(settings, credentials, state.lspContext, state.editorChat),
    limits: { testMs: settings.testTimeoutSeconds * 1000, memoryBytes: settings.memoryMb * 1024 * 1024 },
    filters: { minLines: settings.minLines, maxLines: settings.maxLines },
    scorings: state.editorRun ?? new ScoringRunFolder(path.join(runs, 'editor')),
    benchRuns: path.join(runs, 'agent-bench'),
    concurrency: CONCURRENCY,
    // What the user sees: an open document's buffer, unsaved edits included.
    readText: (abs) => state.documents.get(URI.file(abs).toString())?.getText() ?? fs.readFileSync(abs, 'utf8'),
    log: (line) => state.connection.console.info(`language-model tool: ${line}`),
  };
}

/** CALL_TOOL: one language-model tool call from the editor, through the engine's `callTool`; cancelling the request cancels the call. */
export function registerLmTools(state: ServerState): void {
  onClientRequest(state.connection, CALL_TOOL, async (params, token): Promise<CallToolResult> => {
    registerSecret(params.credentials?.apiKey);
    registerSecret(params.credentials?.embeddingApiKey);
    let services: ToolServices;
    try {
      services = editorToolServices(state, params);
    } catch (e) {
      return { ok: false, kind: 'refused', text: (e as Error).message };
    }
    const controller = new AbortController();
    const sub = token.onCancellationRequested(() => controller.abort(new Error('cancelled')));
    try {
      const outcome = await callTool(services, toolById(params.tool), params.input, { signal: controller.signal, agent: 'vscode-chat' });
      return outcome.ok ? { ok: true, kind: 'ok', text: outcome.text } : { ok: false, kind: outcome.kind, text: outcome.text };
    } finally {
      sub.dispose();
    }
  });
}
