import * as assert from 'node:assert';
import * as vscode from 'vscode';
import type { ChatTestApi } from '../../../src/extension/chat';
import { EXTENSION_ID, skipBecause, waitFor } from './helpers';

/**
 * Provider vscode-lm (issue 18, part 1) in the editor: the engine server's completions answered by a
 * chat model of the editor. The model is the test-only extension chat-model (test/vscode/chat-model),
 * registered with VS Code 1.100's proposed chatProvider API (the runner enables it for that extension
 * alone); it answers with a fixed Go test and keeps what it was asked.
 */
describe('Provider vscode-lm: the editor\'s chat models', () => {
  const config = () => vscode.workspace.getConfiguration('xrepotest');
  let saved: { provider?: string; model?: string } = {};
  const invoke = (input: object) => vscode.lm.invokeTool('xrepotest_generateTests', { toolInvocationToken: undefined, input }, new vscode.CancellationTokenSource().token);
  const text = (r: vscode.LanguageModelToolResult): string => r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');

  before(async function () {
    this.timeout(60_000);
    await vscode.extensions.getExtension(EXTENSION_ID)!.activate();
    const models = await vscode.lm.selectChatModels({ vendor: 'xrepotest-test' });
    if (!models.length) {
      skipBecause(this, 'no chat model from the test extension chat-model (its proposed API chatProvider not enabled, or it did not install)');
    }
    saved = { provider: config().inspect<string>('provider')?.globalValue, model: config().inspect<string>('model')?.globalValue };
  });
  after(async () => {
    await vscode.commands.executeCommand('xrepotestTest.chatMode', 'pass');
    await config().update('provider', saved.provider, vscode.ConfigurationTarget.Global);
    await config().update('model', saved.model, vscode.ConfigurationTarget.Global);
  });

  it('generates a test with the chosen chat model, from the same prompt, and scores it', async function () {
    this.timeout(240_000);
    await config().update('provider', 'vscode-lm', vscode.ConfigurationTarget.Global);
    await config().update('model', 'xrepotest-test/xrepotest-echo', vscode.ConfigurationTarget.Global);
    const out = text(await invoke({ file: 'item.go', function: 'Status', samples: 1, repairRounds: 0 }));
    assert.match(out, /^1 test\(s\) written by vscode-lm xrepotest-test\/xrepotest-echo, context mode standard\./, out);
    assert.match(out, /TestStatusFromChatModel/);
    assert.match(out, /Test of Status \(item\.go:7-29\): PASSED\./, out);
    const asked = (await vscode.commands.executeCommand<Array<Array<{ role: string; text: string }>>>('xrepotestTest.chatRequests')) ?? [];
    assert.ok(asked.length >= 1, 'the chat model was asked');
    const last = asked[asked.length - 1];
    // The system prompt goes first as a user message (VS Code's chat messages have no system role), then the task's prompt.
    assert.strictEqual(last[0].role, 'user');
    assert.match(last[0].text, /unit test/i);
    assert.ok(last.some((m) => m.text.includes('func (it Item) Status') || m.text.includes('Status(')), 'the focal function is in the prompt');
  });

  it('says what to do when no chat model matches the setting', async function () {
    this.timeout(120_000);
    await config().update('provider', 'vscode-lm', vscode.ConfigurationTarget.Global);
    await config().update('model', 'nobody/no-such-model', vscode.ConfigurationTarget.Global);
    await assert.rejects(Promise.resolve(invoke({ file: 'item.go', function: 'Status', samples: 1, repairRounds: 0 })), (e: Error) => {
      assert.match(e.message, /no chat model matches xrepotest.model "nobody\/no-such-model" \(the editor offers: [^)]*xrepotest-test\/xrepotest-echo/);
      return true;
    });
  });

  it('repairs with the chat model: the failing test, its error and the repair request go back as one conversation', async function () {
    this.timeout(300_000);
    await config().update('provider', 'vscode-lm', vscode.ConfigurationTarget.Global);
    await config().update('model', 'xrepotest-echo', vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('xrepotestTest.chatMode', 'failThenPass');
    const before = ((await vscode.commands.executeCommand<unknown[]>('xrepotestTest.chatRequests')) ?? []).length;
    const out = text(await invoke({ file: 'item.go', function: 'Status', samples: 1, repairRounds: 1 }));
    assert.match(out, /## Sample 0\n[\s\S]*FAILED/, out);
    assert.match(out, /## Sample 0, repair round 1\n[\s\S]*PASSED/, out);
    const asked = ((await vscode.commands.executeCommand<Array<Array<{ role: string; text: string }>>>('xrepotestTest.chatRequests')) ?? []).slice(before);
    assert.strictEqual(asked.length, 2, 'a first request and one repair');
    const repair = asked[1];
    // system, prompt, the model's earlier reply, the repair request with the runner's message.
    assert.deepStrictEqual(repair.map((m) => m.role), ['user', 'user', 'assistant', 'user']);
    assert.strictEqual(repair[1].text, asked[0][1].text, 'the same prompt');
    assert.match(repair[2].text, /Status\(\) = %q, want out-of-stock|"ok"/);
    assert.match(repair[3].text, /Status\(\) = "out-of-stock"/);
  });

  it('cancelling the call cancels the request to the editor\'s chat model, and the call ends at once', async function () {
    this.timeout(120_000);
    const { chat } = (await vscode.extensions.getExtension(EXTENSION_ID)!.activate()) as { chat: ChatTestApi };
    await config().update('provider', 'vscode-lm', vscode.ConfigurationTarget.Global);
    await config().update('model', 'xrepotest-test/xrepotest-echo', vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('xrepotestTest.chatMode', 'hang');
    const state = async () => (await vscode.commands.executeCommand<{ pending: number; cancelled: number }>('xrepotestTest.chatState'))!;
    const pendingBefore = (await state()).pending;
    const cancelledBefore = chat.cancelledRequests();
    const cts = new vscode.CancellationTokenSource();
    const call = Promise.resolve(vscode.lm.invokeTool('xrepotest_generateTests', { toolInvocationToken: undefined, input: { file: 'item.go', function: 'Status', samples: 1, repairRounds: 0 } }, cts.token));
    call.catch(() => undefined);
    await waitFor('the chat model to be asked', 60_000, async () => ((await state()).pending > pendingBefore ? true : undefined));
    cts.cancel();
    const cancelledAt = Date.now();
    await assert.rejects(call, (e: Error) => e instanceof vscode.CancellationError || /cancel/i.test(e.message));
    // The engine server cancelled its request to the extension (server -> client), which stopped reading the model.
    await waitFor("the extension's chat request to be cancelled", 30_000, () => (chat.cancelledRequests() > cancelledBefore ? true : undefined));
    assert.ok(Date.now() - cancelledAt < 30_000);
    // VS Code 1.100 does not pass a consumer's cancellation on to a chat model provider once its request
    // has started ($startChatRequest returns before the provider's promise ends, and the RPC token is
    // dropped with the reply): the test model never sees it, so its own token is not checked here.
  });
});
