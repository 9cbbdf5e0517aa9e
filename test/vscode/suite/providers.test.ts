import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Engine } from '../../../src/extension/engine';
import { DEFAULT_ENGINE_SETTINGS, type EngineSettings } from '../../../src/shared/protocol';
import { SCORE_FUNCTION } from '../../../src/shared/scoring-protocol';
import { EXTENSION_ID, openInEditor } from './helpers';

/**
 * Model providers in the editor: the key set through the command lives in secret storage and reaches
 * the engine server only with the request that needs it. The service is a local server speaking the
 * OpenAI chat-completions wire format (the real services are unreachable here; docs/providers.md says
 * how to point the settings at them).
 */
const KEY = 'sk-xrepotest-editor-0123456789abcdef';
const MODEL = 'local-test-model';

/** What a model would answer for Status: a table test over every branch, in a fenced block. */
const REPLY = [
  'Here is a test for `Status`:',
  '```go',
  'package inventory',
  '',
  'import "testing"',
  '',
  'func TestStatusFromModel(t *testing.T) {',
  '\tcases := []struct {',
  '\t\titem  Item',
  '\t\ttoday int',
  '\t\twant  string',
  '\t}{',
  '\t\t{Item{Expires: 5, Quantity: 3}, 5, "expired"},',
  '\t\t{Item{Quantity: 0}, 1, "out-of-stock"},',
  '\t\t{Item{Expires: 10, Quantity: 4}, 8, "expiring"},',
  '\t\t{Item{Quantity: 2, Reorder: 5}, 1, "reorder"},',
  '\t\t{Item{Quantity: 9, Capacity: 10}, 1, "nearly-full"},',
  '\t\t{Item{Quantity: 1, Capacity: 10}, 1, "ok"},',
  '\t}',
  '\tfor _, c := range cases {',
  '\t\tif got := c.item.Status(c.today); got != c.want {',
  '\t\t\tt.Errorf("Status(%d) = %q, want %q", c.today, got, c.want)',
  '\t\t}',
  '\t}',
  '}',
  '```',
].join('\n');

interface Received {
  authorization: string | undefined;
  body: { model: string; messages: Array<{ role: string; content: string }> };
}

function startChatServer(received: Received[]): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (chunk: Buffer) => (data += chunk.toString()));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(data) as Received['body'];
      received.push({ authorization: req.headers.authorization, body });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${received.length}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: REPLY }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 900, completion_tokens: 250, total_tokens: 1150 },
        }),
      );
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Every file under a folder (the workbench's logs), recursively. */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

describe('model providers in the editor (OpenAI-compatible wire format, key from secret storage)', () => {
  const received: Received[] = [];
  let server: http.Server;
  const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('xrepotest');

  before(async () => {
    server = await startChatServer(received);
  });

  after(async () => {
    for (const key of ['provider', 'model', 'baseUrl', 'mode', 'lsp.source']) await config().update(key, undefined, vscode.ConfigurationTarget.Global);
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends the key from secret storage, uses the reply, and scores it as the model\'s test', async function () {
    this.timeout(180_000);
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    const editor = await openInEditor('item.go');
    await ext.activate();
    const stored = await vscode.commands.executeCommand<boolean>('xrepotest.setApiKey', 'openai-compatible', KEY);
    assert.strictEqual(stored, true, 'the key was stored');
    const port = (server.address() as AddressInfo).port;
    await config().update('provider', 'openai-compatible', vscode.ConfigurationTarget.Global);
    await config().update('model', MODEL, vscode.ConfigurationTarget.Global);
    await config().update('baseUrl', `http://127.0.0.1:${port}/v1`, vscode.ConfigurationTarget.Global);

    const result = (await vscode.commands.executeCommand('xrepotest.generateScoredTests', editor.document.uri.toString(), 7)) as {
      functionName: string;
      provider: string;
      compiled: boolean;
      passed: boolean;
      testsRan: number;
      coveredLines: number[];
      executableLines: number[];
      testCode: string;
      summary: string;
    };
    assert.ok(result, 'the command returned a score');
    assert.strictEqual(received.length, 1, 'one call reached the service');
    assert.strictEqual(received[0].authorization, `Bearer ${KEY}`, 'the stored key authorised the call');
    assert.strictEqual(received[0].body.model, MODEL);
    const prompt = received[0].body.messages.map((m) => m.content).join('\n');
    assert.match(prompt, /func \(it Item\) Status\(today int\) string/, 'the prompt holds the focal function');

    assert.strictEqual(result.provider, 'openai-compatible');
    assert.match(result.testCode, /func TestStatusFromModel/, 'the test is the one in the reply');
    assert.strictEqual(result.compiled, true);
    assert.strictEqual(result.passed, true);
    assert.strictEqual(result.testsRan, 1);
    // Six cases reach every branch: all executable focal lines run.
    assert.deepStrictEqual(result.coveredLines, result.executableLines);
    assert.doesNotMatch(result.summary, /baseline/);
  });

  it('in mode lsp, the prompt carries definitions from the editor\'s language server (gopls, through the bridge)', async function () {
    this.timeout(180_000);
    const editor = await openInEditor('item.go');
    await config().update('mode', 'lsp', vscode.ConfigurationTarget.Global);
    await config().update('lsp.source', 'editor', vscode.ConfigurationTarget.Global);
    const before = received.length;
    const result = (await vscode.commands.executeCommand('xrepotest.generateScoredTests', editor.document.uri.toString(), 7)) as { passed: boolean } | undefined;
    assert.ok(result, 'the command returned a score');
    assert.strictEqual(received.length, before + 1, 'one call reached the service');
    const prompt = received[before].body.messages.map((m) => m.content).join('\n');
    // Status's receiver type, defined in inventory.go: only a language server finds it from item.go.
    const itemStruct = /type Item struct \{[^}]*Quantity[^}]*\}/s;
    assert.match(prompt, itemStruct, 'the definition of Item, from gopls in the editor');
    assert.doesNotMatch(received[0].body.messages.map((m) => m.content).join('\n'), itemStruct, 'mode standard had no such context');
    assert.strictEqual(result.passed, true);
  });

  it('refuses a provider without a key, saying which command sets it', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    const engine = ext.exports as Engine;
    const editor = await openInEditor('item.go');
    const settings: EngineSettings = { ...DEFAULT_ENGINE_SETTINGS, provider: 'anthropic', model: 'claude-test' };
    await assert.rejects(
      engine.request(SCORE_FUNCTION, { uri: editor.document.uri.toString(), startLine: 7, settings, credentials: {} }),
      /no anthropic API key: run "XRepoTest: Set an API key"/,
    );
  });

  it('never writes the key to a log', () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    const engine = ext.exports as { context: vscode.ExtensionContext };
    // The extension's log folder sits under the session's logs folder, which holds every log of it.
    let logs = engine.context.logUri.fsPath;
    while (path.basename(logs) !== 'logs' && path.dirname(logs) !== logs) logs = path.dirname(logs);
    const files = filesUnder(logs);
    assert.ok(files.some((f) => /XRepoTest/i.test(path.basename(f)) || fs.readFileSync(f, 'utf8').includes('stored the openai-compatible API key')), `the XRepoTest log is among ${files.length} log files`);
    const leaking = files.filter((f) => fs.readFileSync(f, 'utf8').includes(KEY));
    assert.deepStrictEqual(leaking, [], 'log files holding the key');
  });
});
