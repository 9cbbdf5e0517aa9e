import * as assert from 'node:assert';
import * as vscode from 'vscode';
import type { Engine } from '../../../src/extension/engine';
import { DEFAULT_ENGINE_SETTINGS, type EngineSettings } from '../../../src/shared/protocol';
import { SCORE_FUNCTION } from '../../../src/shared/scoring-protocol';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { descendants, engineServerPid, EXTENSION_ID, openInEditor, screenshot, waitFor } from './helpers';

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
      mutation?: { killed: number; timedOut: number; viable: number; mutants: number };
    };
    assert.ok(result, 'the command returned a score');
    assert.strictEqual(result.functionName, 'Status');
    assert.strictEqual(result.compiled, true);
    assert.strictEqual(result.invoked, true);
    assert.ok(result.coveredLines.length > 0, 'some focal lines covered');
    assert.ok(result.passed, 'the baseline test passes');
    // A passing test is mutation-tested on the lines it covers; the lens then says `caught detected of viable mutants`,
    // detected = killed + timed out, the timed-out ones said beside it (counted as the stored records count them).
    // The baseline's test checks no results: its pass is the smoke state (◌), never a plain ✓.
    assert.ok(result.mutation, 'a mutation score for the passing test');
    const detected = result.mutation.killed + result.mutation.timedOut;
    assert.ok(result.mutation.viable > 0 && detected <= result.mutation.viable, `viable mutants: ${JSON.stringify(result.mutation)}`);
    const timedOut = result.mutation.timedOut ? ` \\(${result.mutation.timedOut} by timing out\\)` : '';
    assert.match(
      result.summary,
      new RegExp(`^◌ smoke test only: runs Status without checking results \\(offline baseline\\) · \\d+ % of the function's lines run · passed all 3 runs · caught ${detected} of ${result.mutation.viable} mutants?${timedOut}$`),
    );
    const after = await waitFor('the score lens', 30_000, async () => {
      const found = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri)) ?? [];
      return found.some((l) => l.command?.title === result.summary) ? found : undefined;
    });
    assert.ok(after.some((l) => l.command?.title === result.summary && l.range.start.line === 6), 'the score is on Status');
    // The lens line is wider than the editor: the words that fit are its verdict (the whole title is checked above).
    const verdict = result.summary.split(' · ')[0];
    const receipt = await screenshot({ name: 'codelens-score', waitForText: verdict });
    assert.strictEqual(receipt.textFound, true, `the workbench shows "${verdict}"`);
  });
});

describe('Cancelling a scoring', () => {
  it('stops the run in the engine server and leaves no process and no disposable copy behind', async function () {
    this.timeout(180_000);
    const editor = await openInEditor('item.go');
    const engine = (await vscode.extensions.getExtension(EXTENSION_ID)!.activate()) as Engine;
    const server = await waitFor('the engine server', 30_000, engineServerPid);
    // On disk, or in memory where the engine makes Go's sandboxes when a tmpfs allows (execute/memory-folder.ts).
    const folders = [os.tmpdir(), '/dev/shm', process.env.XDG_RUNTIME_DIR].filter((d): d is string => !!d && fs.existsSync(d));
    const copies = (): string[] => folders.flatMap((d) => fs.readdirSync(d).filter((n) => n.startsWith('xrt-sandbox-')).map((n) => `${d}/${n}`));
    const copiesBefore = copies();
    const processesBefore = descendants(server);
    const cts = new vscode.CancellationTokenSource();
    const settings: EngineSettings = { ...DEFAULT_ENGINE_SETTINGS, mutation: true };
    const scoring = engine.request(SCORE_FUNCTION, { uri: editor.document.uri.toString(), startLine: 7, settings }, cts.token);
    // Cancelled while the toolchain runs in the sandbox (not while, say, the environment check runs).
    const cmdline = (pid: number): string => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      } catch {
        return '';
      }
    };
    await waitFor('the test run to start', 60_000, () => ([...descendants(server)].some((p) => !processesBefore.has(p) && cmdline(p).includes('xrt-sandbox-')) ? true : undefined));
    cts.cancel();
    await assert.rejects(scoring, (e: Error) => /cancel/i.test(e.message), 'the request ends as cancelled');
    await waitFor('the run\'s processes to be gone', 30_000, () => ([...descendants(server)].every((p) => processesBefore.has(p)) ? true : undefined));
    await waitFor('the disposable copy to be removed', 30_000, () => (copies().every((c) => copiesBefore.includes(c)) ? true : undefined));
  });
});
