import * as assert from 'node:assert';
import * as vscode from 'vscode';
import { openInEditor, screenshot, waitFor } from './helpers';

describe('Generate scored tests from the code lens (baseline provider, local executor)', () => {
  // The runner turns mutation testing off for speed; this test turns it on and puts the runner's value back.
  let before: boolean | undefined;
  after(() => vscode.workspace.getConfiguration('xrepotest').update('mutation.enabled', before, vscode.ConfigurationTarget.Global));

  it('scores Status with its mutation score, and the lens then shows the score', async function () {
    this.timeout(300_000);
    before = vscode.workspace.getConfiguration('xrepotest').inspect<boolean>('mutation.enabled')?.globalValue;
    await vscode.workspace.getConfiguration('xrepotest').update('mutation.enabled', true, vscode.ConfigurationTarget.Global);
    const editor = await openInEditor('item.go');
    const uri = editor.document.uri;
    const lenses = await waitFor('the Generate lens', 30_000, async () => {
      const found = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri)) ?? [];
      return found.some((l) => l.command?.title === 'Generate scored tests') ? found : undefined;
    });
    const generate = lenses.find((l) => l.command?.title === 'Generate scored tests' && l.range.start.line === 6);
    assert.ok(generate?.command, `a "Generate scored tests" lens on Status (line 7); lenses: ${lenses.map((l) => `${l.range.start.line + 1}:${l.command?.title}`).join(' | ')}`);
    const result = (await vscode.commands.executeCommand(generate.command.command, ...(generate.command.arguments ?? []))) as {
      functionName: string;
      passed: boolean;
      compiled: boolean;
      invoked: boolean;
      coveredLines: number[];
      summary: string;
      mutation?: { killed: number; viable: number; mutants: number };
    };
    assert.ok(result, 'the command returned a score');
    assert.strictEqual(result.functionName, 'Status');
    assert.strictEqual(result.compiled, true);
    assert.strictEqual(result.invoked, true);
    assert.ok(result.coveredLines.length > 0, 'some focal lines covered');
    assert.ok(result.passed, 'the baseline test passes');
    // A passing test is mutation-tested on the lines it covers; the lens then carries `MS killed/viable`.
    assert.ok(result.mutation, 'a mutation score for the passing test');
    assert.ok(result.mutation.viable > 0 && result.mutation.killed <= result.mutation.viable, `viable mutants: ${JSON.stringify(result.mutation)}`);
    assert.match(result.summary, new RegExp(`TPR \\d+/\\d+ · Cov \\d+% · IR ✓ · MS ${result.mutation.killed}/${result.mutation.viable} \\(baseline\\)`));
    const after = await waitFor('the score lens', 30_000, async () => {
      const found = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri)) ?? [];
      return found.some((l) => l.command?.title === result.summary) ? found : undefined;
    });
    assert.ok(after.some((l) => l.command?.title === result.summary && l.range.start.line === 6), 'the score is on Status');
    const receipt = await screenshot({ name: 'codelens-score', waitForText: result.summary });
    assert.strictEqual(receipt.textFound, true, `the workbench shows "${result.summary}"`);
  });
});
