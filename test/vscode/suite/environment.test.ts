import * as assert from 'node:assert';
import * as vscode from 'vscode';
import { EXTENSION_ID } from './helpers';

describe('environment check and settings', () => {
  it('the check command answers from the engine server with every language', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    await ext.activate();
    const report = (await vscode.commands.executeCommand('xrepotest.checkEnvironment')) as {
      languages: Array<{ language: string; local: string | null }>;
      missing: string[];
      text: string;
    };
    assert.ok(report, 'the command returned the report');
    assert.deepStrictEqual(report.languages.map((l) => l.language).sort(), ['go', 'julia', 'php', 'ruby', 'rust']);
    assert.strictEqual(report.languages.find((l) => l.language === 'go')!.local, null, 'go runs on this machine');
    assert.match(report.text, /^Executor: local \(setting xrepotest\.executor\)/);
    assert.doesNotMatch(report.text, /npm install|scripts\/setup\.sh/, 'no developer advice in the default text');
  });

  it('the settings are contributed with descriptions, and hold no API key', () => {
    const pkg = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { contributes: { configuration: { properties: Record<string, { description?: string }> } } };
    const props = pkg.contributes.configuration.properties;
    for (const key of ['xrepotest.provider', 'xrepotest.model', 'xrepotest.baseUrl', 'xrepotest.mode', 'xrepotest.executor', 'xrepotest.limits.testTimeoutSeconds', 'xrepotest.limits.memoryMb']) {
      assert.ok(props[key]?.description, `${key} is described`);
    }
    assert.ok(!Object.keys(props).some((k) => /key|token|secret/i.test(k)), 'no setting holds a secret');
  });
});
