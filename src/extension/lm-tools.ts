import * as vscode from 'vscode';
import { CALL_TOOL, EDITOR_TOOLS, editorToolName, type CallToolResult, type EditorToolInfo } from '../shared/lm-tools-protocol';
import { wasCancelled, type Engine } from './engine';
import { toolConfirmation, toolTrustRefusal } from './lm-tools-model';
import { engineSettings, requestSettings } from './settings';
import { workspaceTrusted } from './trust';

type Input = Record<string, unknown>;

/**
 * One language-model tool: the user confirms what runs code or asks a model, an untrusted workspace
 * refuses what runs code, and the call goes to the engine server (CALL_TOOL) with the settings and
 * the keys the editor's own scoring uses; cancelling the invocation cancels the server's request.
 * The result is the engine's text, redacted there; a call that could not be made is an error with
 * the engine's words, which the model reads.
 */
function editorTool(tool: EditorToolInfo, { request, context, log }: Engine): vscode.LanguageModelTool<Input> {
  return {
    prepareInvocation(options) {
      const input = options.input ?? {};
      // Nothing to confirm when the call will be refused (untrusted workspace): invoke says why.
      const confirmation = workspaceTrusted() || !tool.runsCode ? toolConfirmation(tool, input, engineSettings()) : undefined;
      return {
        invocationMessage: `XRepoTest: ${tool.id}${typeof input.function === 'string' ? ` of ${input.function}` : ''}`,
        ...(confirmation ? { confirmationMessages: { title: confirmation.title, message: new vscode.MarkdownString(confirmation.message) } } : {}),
      };
    },
    async invoke(options, token) {
      const refusal = workspaceTrusted() ? undefined : toolTrustRefusal(tool);
      if (refusal) throw new Error(refusal);
      let result: CallToolResult;
      try {
        result = await request(CALL_TOOL, { tool: tool.id, input: options.input ?? {}, ...(await requestSettings(context.secrets)) }, token);
      } catch (e) {
        if (wasCancelled(e) || token.isCancellationRequested) throw new vscode.CancellationError();
        throw e;
      }
      if (result.kind === 'cancelled') throw new vscode.CancellationError();
      if (!result.ok) {
        log.info(`${editorToolName(tool.id)}: ${result.kind}: ${result.text}`);
        throw new Error(result.text);
      }
      return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(result.text)]);
    },
  };
}

/**
 * For the extension's tests: a registered tool's own prepareInvocation (VS Code answers confirmations
 * itself while extension tests run, without showing them, so the test asks the tool what it would show).
 */
export interface LmToolsTestApi {
  prepare(name: string, input: Input): Promise<vscode.PreparedToolInvocation | null | undefined>;
}

/** The tools package.json contributes (`contributes.languageModelTools`), each registered with its implementation. */
export function registerLmTools(engine: Engine): LmToolsTestApi {
  const tools = new Map(EDITOR_TOOLS.map((t) => [editorToolName(t.id), editorTool(t, engine)]));
  if (vscode.lm?.registerTool) for (const [name, tool] of tools) engine.context.subscriptions.push(vscode.lm.registerTool(name, tool));
  else engine.log.info('this editor has no language-model tools API (vscode.lm.registerTool): the XRepoTest tools are not offered to its chat');
  return {
    prepare: async (name, input) => tools.get(name)?.prepareInvocation?.({ input }, new vscode.CancellationTokenSource().token),
  };
}
