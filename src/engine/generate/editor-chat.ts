import type { ChatMessage, CompletionRequest, CompletionResult, Provider } from './types';

/** One request to the editor's chat model (provider `vscode-lm`): the prompt as the other providers send it. */
export interface EditorChatRequest {
  system: string;
  messages: ChatMessage[];
  maxTokens: number;
}

/** The editor's answer: the reply, the model that gave it, and token counts where the editor reports them. */
export interface EditorChatReply {
  text: string;
  /** The model's id as the editor names it (`copilot/gpt-4o`). */
  model: string;
  inputTokens: number | null;
  outputTokens: number | null;
}

/** Asks the editor's chat model (the engine server bridges it to the extension host); the signal cancels. */
export type EditorChat = (request: EditorChatRequest, signal?: AbortSignal) => Promise<EditorChatReply>;

/**
 * Provider `vscode-lm`: the editor's own chat models (`vscode.lm`), reached through whoever runs the
 * engine inside the editor. The same prompts and repair rounds as every provider (the conversation is
 * passed whole); usage is what the editor reports (0 where it does not), and no cost is known.
 */
export function editorChatProvider(chat: EditorChat): Provider {
  return {
    id: 'vscode-lm',
    async complete(request: CompletionRequest): Promise<CompletionResult> {
      const started = Date.now();
      const reply = await chat({ system: request.system, messages: request.messages, maxTokens: request.params.maxTokens }, request.signal);
      return {
        text: reply.text,
        usage: { inputTokens: reply.inputTokens ?? 0, outputTokens: reply.outputTokens ?? 0 },
        costUsd: null,
        cached: false,
        latencyMs: Date.now() - started,
      };
    },
  };
}
