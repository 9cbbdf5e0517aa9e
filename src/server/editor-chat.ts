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
      const reply = connection.sendRequest(EDITOR_CHAT, params, cts.token);
      if (!signal) return await reply;
      // Cancelled: given up at once (the extension is told, and its late answer is dropped).
      reply.catch(() => undefined);
      const aborted = new Promise<never>((_, reject) => {
        const fail = (): void => reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
        if (signal.aborted) fail();
        else signal.addEventListener('abort', fail, { once: true });
      });
      aborted.catch(() => undefined);
      return await Promise.race([reply, aborted]);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      cts.dispose();
    }
  };
}
