import * as assert from 'node:assert';
import * as vscode from 'vscode';
import { sandboxesOf } from '../../helpers/own-sandboxes';
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

  it('scores Status and shows the score at once; with mutation testing on, the mutants fill in on the lens after it', async function () {
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
      lensSummary?: string;
      mutation?: unknown;
    };
    assert.ok(result, 'the command returned a score');
    assert.strictEqual(result.functionName, 'Status');
    assert.strictEqual(result.compiled, true);
    assert.strictEqual(result.invoked, true);
    assert.ok(result.coveredLines.length > 0, 'some focal lines covered');
    assert.ok(result.passed, 'the baseline test passes');
    // Issue 30: the score never waits for mutation testing.
    assert.strictEqual(result.mutation, undefined, 'the score came with no mutants: it did not wait for them');
    // The baseline's test checks no results: its pass is the smoke state (◌), never a plain ✓; the lens says it short.
    assert.match(result.summary, /^◌ smoke test only: runs Status without checking results \(offline baseline\) · \d+ % of the function's lines run · passed all 3 runs$/);
    assert.match(result.lensSummary ?? '', /^◌ smoke · \d+ %$/);
    // Then the mutants, asked for by the extension after the score, fill in: `detected/viable mutants`.
    const mutated = await waitFor('the mutants on the score lens', 240_000, async () => {
      const found = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri)) ?? [];
      return found.find((l) => l.range.start.line === 6 && /^◌ smoke · \d+ % · \d+\/\d+ mutants$/.test(l.command?.title ?? ''));
    });
    const [, detected, viable] = /(\d+)\/(\d+) mutants$/.exec(mutated.command!.title)!.map(Number);
    assert.ok(viable > 0 && detected <= viable, mutated.command!.title);
    // The score's hover carries the plain words, the mutants' meaning included.
    const titles = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri))!.filter((l) => l.range.start.line === 6).map((l) => l.command?.title);
    assert.ok(titles.includes('Accept test') && titles.indexOf('Accept test') === titles.indexOf(mutated.command!.title) + 1, `the actions follow the score: ${titles.join(' | ')}`);
    const receipt = await screenshot({ name: 'codelens-score', waitForText: mutated.command!.title });
    assert.strictEqual(receipt.textFound, true, `the workbench shows "${mutated.command!.title}"`);
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
    // The server's own copies: another xrepotest process may make and remove its own meanwhile.
    const copies = (): string[] => folders.flatMap((d) => sandboxesOf(d, server).filter((n) => n.startsWith('xrt-sandbox-')).map((n) => `${d}/${n}`));
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
