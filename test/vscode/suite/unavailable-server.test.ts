/**
 * Runs last (files run in name order): it stops the engine server, as a crash past the client's
 * restarts would, and checks that the commands are still there and say what failed and what to do.
 * A server that never starts takes the same road (EngineServer in src/extension/engine-start.ts,
 * unit-tested in test/unit/wire.test.ts with a start that fails).
 */
import * as assert from 'node:assert';
import * as vscode from 'vscode';
import type { Engine } from '../../../src/extension/engine';
import { EXTENSION_ID, openInEditor } from './helpers';

describe('with the engine server down', () => {
  let engine: Engine;

  before(async function () {
    this.timeout(60_000);
    engine = (await vscode.extensions.getExtension(EXTENSION_ID)!.activate()) as Engine;
    assert.deepStrictEqual(engine.server.status, { state: 'running' }, 'the server started for the suite');
    await engine.client.stop();
    assert.strictEqual(engine.client.isRunning(), false);
  });

  it('keeps every contributed command registered', async () => {
    const pkg = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { contributes: { commands: Array<{ command: string }> } };
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.deepStrictEqual(
      pkg.contributes.commands.map((c) => c.command).filter((c) => !registered.has(c)),
      [],
    );
  });

  it('"Check the environment" still runs and reports that the server is down, and what to do', async () => {
    const result = (await vscode.commands.executeCommand('xrepotest.checkEnvironment')) as { engineNotRunning?: string };
    assert.ok(result?.engineNotRunning, JSON.stringify(result));
    assert.match(result.engineNotRunning, /^the engine server stopped \(/);
    assert.match(result.engineNotRunning, /Developer: Reload Window/);
  });

  it('a command that needs the server fails with that message instead of "Client is not running"', async () => {
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('xrepotest.runBenchmark', { dataset: 'example', open: false })), (e: Error) => {
      assert.match(e.message, /the engine server stopped/);
      assert.match(e.message, /"XRepoTest" output/);
      return true;
    });
    const editor = await openInEditor('item.go');
    const scored = await vscode.commands.executeCommand('xrepotest.generateScoredTests', editor.document.uri.toString(), 7);
    assert.strictEqual(scored, undefined, 'the scoring command ends quietly (the message is shown to the user)');
  });
});
