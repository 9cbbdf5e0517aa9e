import { strict as assert } from 'node:assert';
import { EDITOR_CHAT_PROVIDER, GenerationSettingsError, providerFromSettings, PROVIDER_KINDS, type GenerationSettings } from '../../src/engine/generate/options';
import type { EditorChatRequest } from '../../src/engine/generate/editor-chat';
import type { CompletionRequest } from '../../src/engine/generate/types';
import { noChatModelMessage } from '../../src/extension/chat-model';
import { editorChatOver } from '../../src/server/editor-chat';
import { generationSettingsFor } from '../../src/server/generation';
import { chatSelector, EDITOR_CHAT, type EditorChatParams } from '../../src/shared/chat-protocol';
import { DEFAULT_ENGINE_SETTINGS, PROVIDER_SETTINGS } from '../../src/shared/protocol';

/** Provider vscode-lm (issue 18, part 1): the editor's chat models, bridged from the engine server to the extension. */
describe('provider vscode-lm: the editor\'s chat models through the bridge', () => {
  const hints = { provider: '--provider', model: 'pass --model', mode: '--mode', embedding: '', checkout: '' };
  const request = (signal?: AbortSignal): CompletionRequest =>
    ({ system: 'SYS', messages: [{ role: 'user', content: 'write a test' }, { role: 'assistant', content: 'old' }, { role: 'user', content: 'fix it' }], params: { model: 'm', temperature: 0, maxTokens: 4096, topP: 1 }, sample: 0, round: 1, signal }) as unknown as CompletionRequest;

  it('is a provider of the editor and the engine, refused where no editor answers (the CLI)', () => {
    assert.ok(PROVIDER_SETTINGS.includes('vscode-lm'));
    assert.equal(EDITOR_CHAT_PROVIDER, 'vscode-lm');
    // The CLI does not offer it: nothing there would answer.
    assert.ok(!(PROVIDER_KINDS as readonly string[]).includes('vscode-lm'));
    const cli: GenerationSettings = { provider: 'vscode-lm', mode: 'standard', credentials: { from: 'environment' }, hints };
    assert.throws(() => providerFromSettings(cli), (e: Error) => e instanceof GenerationSettingsError && /only inside VS Code/.test(e.message));
  });

  it('sends the same system prompt and whole conversation (repair rounds included), and reports the editor\'s token counts', async () => {
    const asked: EditorChatRequest[] = [];
    const provider = providerFromSettings({
      provider: 'vscode-lm',
      mode: 'standard',
      credentials: { from: 'settings' },
      hints,
      editorChat: async (r) => {
        asked.push(r);
        return { text: '```go\nfunc TestX(t *testing.T) {}\n```', model: 'copilot/gpt-4o', inputTokens: 120, outputTokens: null };
      },
    });
    assert.equal(provider.id, 'vscode-lm');
    const out = await provider.complete(request());
    assert.deepEqual(asked, [{ system: 'SYS', messages: request().messages, maxTokens: 4096 }]);
    assert.match(out.text, /TestX/);
    assert.deepEqual(out.usage, { inputTokens: 120, outputTokens: 0 });
    assert.equal(out.costUsd, null);
    assert.equal(out.cached, false);
  });

  it('the editor\'s settings give it the bridge only for vscode-lm, with xrepotest.model as the selector; records name vscode-lm without a model', () => {
    const selectors: string[] = [];
    const chat = (s: string) => {
      selectors.push(s);
      return async () => ({ text: '', model: '', inputTokens: null, outputTokens: null });
    };
    const lm = generationSettingsFor({ ...DEFAULT_ENGINE_SETTINGS, provider: 'vscode-lm', model: 'copilot/gpt-4o' }, undefined, undefined, chat);
    assert.ok(lm.editorChat);
    assert.deepEqual(selectors, ['copilot/gpt-4o']);
    assert.equal(generationSettingsFor({ ...DEFAULT_ENGINE_SETTINGS, provider: 'vscode-lm' }, undefined, undefined, chat).model, 'vscode-lm');
    assert.equal(generationSettingsFor({ ...DEFAULT_ENGINE_SETTINGS, provider: 'baseline' }, undefined, undefined, chat).editorChat, undefined);
  });

  it('the server asks the extension with EDITOR_CHAT and cancels that request when the generation is cancelled', async () => {
    const sent: Array<{ method: string; params: EditorChatParams; cancelled: () => boolean }> = [];
    let answer: (v: unknown) => void = () => undefined;
    const connection = {
      sendRequest: (type: { method: string }, params: EditorChatParams, token: { isCancellationRequested: boolean }) => {
        sent.push({ method: type.method, params, cancelled: () => token.isCancellationRequested });
        return new Promise((resolve) => (answer = resolve));
      },
    };
    const chat = editorChatOver(connection as never, 'gpt-4o');
    const done = chat({ system: 'S', messages: [{ role: 'user', content: 'U' }], maxTokens: 10 });
    answer({ text: 'reply', model: 'copilot/gpt-4o', inputTokens: 3, outputTokens: 1 });
    assert.deepEqual(await done, { text: 'reply', model: 'copilot/gpt-4o', inputTokens: 3, outputTokens: 1 });
    assert.equal(sent[0].method, EDITOR_CHAT.method);
    assert.deepEqual(sent[0].params, { selector: 'gpt-4o', system: 'S', messages: [{ role: 'user', content: 'U' }], maxTokens: 10 });

    const controller = new AbortController();
    const pending = chat({ system: 'S', messages: [], maxTokens: 10 }, controller.signal);
    assert.equal(sent[1].cancelled(), false);
    controller.abort(new Error('cancelled'));
    assert.equal(sent[1].cancelled(), true, 'the extension\'s request is cancelled');
    // Given up at once, without waiting for the extension's answer (a model may ignore the cancellation).
    await assert.rejects(pending, /cancelled/);
    // Already cancelled: nothing is asked.
    await assert.rejects(chat({ system: 'S', messages: [], maxTokens: 10 }, controller.signal), /cancelled/);
    assert.equal(sent.length, 2);
  });

  it('chooses models by vendor/family, id or family, and says what to do when none answers', () => {
    assert.deepEqual(chatSelector(''), [{}]);
    assert.deepEqual(chatSelector('copilot/gpt-4o'), [{ vendor: 'copilot', family: 'gpt-4o' }, { id: 'copilot/gpt-4o' }]);
    assert.deepEqual(chatSelector('gpt-4o'), [{ id: 'gpt-4o' }, { family: 'gpt-4o' }]);
    assert.match(noChatModelMessage('', []), /the editor offers no chat model: install and sign in to a chat extension/);
    assert.match(noChatModelMessage('gpt-9', ['copilot/gpt-4o']), /no chat model matches xrepotest.model "gpt-9" \(the editor offers: copilot\/gpt-4o\)/);
  });
});
