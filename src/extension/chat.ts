import * as vscode from 'vscode';
import { ResponseError } from 'vscode-languageclient/node';
import { chatSelector, EDITOR_CHAT, type EditorChatParams, type EditorChatResult } from '../shared/chat-protocol';
import { noChatModelMessage } from './chat-model';
import type { Engine } from './engine';

/** The first chat model the selector finds: `vendor/family` (else as an id), one word as an id, else a family. */
async function chooseModel(selector: string): Promise<vscode.LanguageModelChat | undefined> {
  for (const s of chatSelector(selector)) {
    const [model] = await vscode.lm.selectChatModels(s);
    if (model) return model;
  }
  return undefined;
}

/**
 * Provider `vscode-lm`: the engine server's completions answered by the editor's chat models
 * (`vscode.lm`), the same system prompt and conversation as every provider (VS Code's chat messages
 * have no system role: it goes first, as a user message). The server's cancellation cancels the
 * model's request; a refused consent or a missing model is an error that says what to do.
 */
export function registerChat({ client, log }: Engine): ChatTestApi {
  let cancelled = 0;
  client.onRequest(EDITOR_CHAT, async (params: EditorChatParams, token: vscode.CancellationToken): Promise<EditorChatResult> => {
    const counting = token.onCancellationRequested(() => cancelled++);
    try {
      return await answer(params, token);
    } finally {
      counting.dispose();
    }
  });
  return { cancelledRequests: () => cancelled };

  async function answer(params: EditorChatParams, token: vscode.CancellationToken): Promise<EditorChatResult> {
    if (!vscode.lm?.selectChatModels) throw new ResponseError(1, 'vscode-lm: this editor has no language model API (vscode.lm); choose another xrepotest.provider');
    const model = await chooseModel(params.selector);
    if (!model) {
      const all = (await vscode.lm.selectChatModels()).map((m) => `${m.vendor}/${m.family}`);
      throw new ResponseError(1, noChatModelMessage(params.selector, all));
    }
    const messages = [
      vscode.LanguageModelChatMessage.User(params.system),
      ...params.messages.map((m) => (m.role === 'user' ? vscode.LanguageModelChatMessage.User(m.content) : vscode.LanguageModelChatMessage.Assistant(m.content))),
    ];
    let text = '';
    try {
      const response = await model.sendRequest(messages, { justification: 'XRepoTest writes unit tests for the function you asked it to test.' }, token);
      // A model that ignores the cancellation (VS Code 1.100 does not pass it on to the provider once its
      // request has started) must not hold the server's request: the reading stops when the token fires.
      const cancelled = new Promise<never>((_, reject) => token.onCancellationRequested(() => reject(new vscode.CancellationError())));
      cancelled.catch(() => undefined);
      await Promise.race([
        (async () => {
          for await (const part of response.text) text += part;
        })(),
        cancelled,
      ]);
    } catch (e) {
      if (e instanceof vscode.LanguageModelError && e.code === vscode.LanguageModelError.NoPermissions.name)
        throw new ResponseError(1, `vscode-lm: using ${model.vendor}/${model.family} was not allowed (the editor asked for consent and it was refused, or not given); allow it, or choose another xrepotest.provider`);
      if (token.isCancellationRequested) throw e;
      throw new ResponseError(1, `vscode-lm: ${model.vendor}/${model.family} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    const count = async (t: string | vscode.LanguageModelChatMessage): Promise<number | null> => model.countTokens(t, token).then((n) => n, () => null);
    const counts = await Promise.all(messages.map(count));
    const inputTokens = counts.every((n): n is number => n !== null) ? counts.reduce((a, b) => a + b, 0) : null;
    log.info(`vscode-lm: ${model.vendor}/${model.id} answered (${text.length} characters)`);
    return { text, model: `${model.vendor}/${model.id}`, inputTokens, outputTokens: await count(text) };
  }
}

/** For the extension's tests: how many of the server's chat requests were cancelled while the model answered. */
export interface ChatTestApi {
  cancelledRequests(): number;
}
