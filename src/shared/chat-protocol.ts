/**
 * Provider `vscode-lm` (issue 18, part 1): the editor's own chat models. The engine server asks the
 * extension (a server -> client request, as the LSP bridge does), and the extension answers with
 * `vscode.lm.selectChatModels` and the model's `sendRequest`. Plain types only.
 */
import { ServerRequest } from './wire';

export interface EditorChatParams {
  /** Which model: `xrepotest.model` as given (`vendor/family`, or a model id or family; empty: the first the editor offers). */
  selector: string;
  system: string;
  messages: Array<{ role: 'user' | 'assistant'; content: string }>;
  maxTokens: number;
}

export interface EditorChatResult {
  text: string;
  /** `vendor/id` of the model that answered. */
  model: string;
  /** Counted by the model (`countTokens`) where it can; null where not. */
  inputTokens: number | null;
  outputTokens: number | null;
}

/** Server -> client: one completion from the editor's chat model; cancelling the request cancels it there. */
export const EDITOR_CHAT = new ServerRequest<EditorChatParams, EditorChatResult>('xrepotest/editor/chat');

/** `vendor/family` → both; one word → matched as an id, else a family (the extension tries both). */
export function chatSelector(selector: string): Array<{ vendor?: string; family?: string; id?: string }> {
  const s = selector.trim();
  if (!s) return [{}];
  const slash = s.indexOf('/');
  if (slash > 0) return [{ vendor: s.slice(0, slash), family: s.slice(slash + 1) }, { id: s }];
  return [{ id: s }, { family: s }];
}
