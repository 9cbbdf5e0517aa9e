import { CancellationTokenSource, type Connection } from 'vscode-languageserver/node';
import type { EditorChat } from '../engine/generate/editor-chat';
import { EDITOR_CHAT, type EditorChatParams } from '../shared/chat-protocol';

/**
 * Provider `vscode-lm` on the server: each completion is a request to the extension (EDITOR_CHAT),
 * which asks the editor's chat model; the generation's signal cancels the request there. `selector`
 * is the request's `xrepotest.model`.
 */
export function editorChatOver(connection: Pick<Connection, 'sendRequest'>, selector: string): EditorChat {
  return async (request, signal) => {
    signal?.throwIfAborted();
    const cts = new CancellationTokenSource();
    const onAbort = (): void => cts.cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const params: EditorChatParams = { selector, system: request.system, messages: request.messages, maxTokens: request.maxTokens };
      const reply = await connection.sendRequest(EDITOR_CHAT, params, cts.token);
      signal?.throwIfAborted();
      return reply;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      cts.dispose();
    }
  };
}
