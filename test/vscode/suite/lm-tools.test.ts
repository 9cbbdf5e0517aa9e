import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { sandboxesOf } from '../../helpers/own-sandboxes';
import { EDITOR_TOOLS, editorToolName } from '../../../src/shared/lm-tools-protocol';
import type { BenchTestApi } from '../../../src/extension/bench';
import type { LmToolsTestApi } from '../../../src/extension/lm-tools';
import { descendants, engineServerPid, EXTENSION_ID, REPO_ROOT, waitFor } from './helpers';

/**
 * The language-model tools (issue 18, part 2) as VS Code 1.100 offers them to chat: registered
 * (`vscode.lm.tools`) and invoked with `vscode.lm.invokeTool` on the Go fixture. Invoked without a
 * chat request (`toolInvocationToken: undefined`), VS Code 1.100 calls `prepareInvocation` and shows
 * its confirmation as a modal dialog (LanguageModelToolsService.invokeTool, the branch without a chat
 * context) — but its DialogService answers every confirm with "confirmed" without showing anything
 * while extension tests run (`isExtensionDevelopment && extensionTestsLocationURI`: "refused to show
 * confirmation dialog in tests"). So the confirmation is checked as the extension prepares it
 * (`lmTools.prepare`, the registered tool's own prepareInvocation), and the invocations go through.
 */
const text = (r: vscode.LanguageModelToolResult): string =>
  r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');

function invoke(name: string, input: object, token = new vscode.CancellationTokenSource().token): Thenable<vscode.LanguageModelToolResult> {
  return vscode.lm.invokeTool(name, { toolInvocationToken: undefined, input }, token);
}

const generated = (name: string): string => fs.readFileSync(path.join(REPO_ROOT, 'test', 'data', 'generated', 'go', name), 'utf8');

describe('Language-model tools (vscode.lm)', () => {
  let bench: BenchTestApi;
  let lmTools: LmToolsTestApi;
  before(async function () {
    this.timeout(60_000);
    ({ bench, lmTools } = (await vscode.extensions.getExtension(EXTENSION_ID)!.activate()) as { bench: BenchTestApi; lmTools: LmToolsTestApi });
  });

  it('registers every tool, with the schema package.json declares', async function () {
    this.timeout(30_000);
    const names = EDITOR_TOOLS.map((t) => editorToolName(t.id));
    const listed = await waitFor('the tools in vscode.lm.tools', 20_000, () => {
      const ours = vscode.lm.tools.filter((t) => t.name.startsWith('xrepotest_'));
      return ours.length === names.length ? ours : undefined;
    });
    assert.deepStrictEqual(listed.map((t) => t.name).sort(), [...names].sort());
    const score = listed.find((t) => t.name === 'xrepotest_scoreTest')!;
    assert.deepStrictEqual((score.inputSchema as { required?: string[] }).required, ['file', 'function', 'testCode']);
    assert.match(score.description, /scores it/);
  });

  it('asks before a tool runs code or asks a model, and not before one that only reads', async function () {
    const score = await lmTools.prepare('xrepotest_scoreTest', { file: 'item.go', function: 'Status', testCode: 'x' });
    assert.strictEqual(score?.confirmationMessages?.title, 'Run a test of Status (item.go)?');
    const message = score.confirmationMessages.message;
    assert.match(typeof message === 'string' ? message : message.value, /disposable copy of the workspace \(executor local, at most 300 s per run\)/);
    const generate = await lmTools.prepare('xrepotest_generateTests', { file: 'item.go', function: 'Status' });
    const gm = generate?.confirmationMessages?.message;
    assert.match(typeof gm === 'string' ? gm : (gm?.value ?? ''), /offline baseline/);
    assert.strictEqual((await lmTools.prepare('xrepotest_focalFunctions', { file: 'item.go' }))?.confirmationMessages, undefined);
    assert.strictEqual((await lmTools.prepare('xrepotest_coverage', { file: 'item.go', function: 'Status' }))?.confirmationMessages, undefined);
  });

  it('lists the focal functions of item.go', async function () {
    this.timeout(60_000);
    const out = text(await invoke('xrepotest_focalFunctions', { file: 'item.go' }));
    assert.match(out, /Status/, out);
  });

  it('refuses a path outside the workspace, saying so', async function () {
    this.timeout(60_000);
    await assert.rejects(Promise.resolve(invoke('xrepotest_focalFunctions', { file: '/etc/hostname' })), (e: Error) => {
      assert.match(e.message, /\/etc\/hostname is outside the workspace/);
      return true;
    });
    await assert.rejects(Promise.resolve(invoke('xrepotest_focalFunctions', { file: '../../x.go' })), /outside the workspace/);
  });

  it('scores a passing test: compiled, passed, calls the function', async function () {
    this.timeout(240_000);
    const result = invoke('xrepotest_scoreTest', { file: 'item.go', function: 'Status', testCode: generated('pass.go') });
    const out = text(await result);
    assert.match(out, /^Test of Status \(item\.go:7-29\): PASSED\./, out);
    assert.match(out, /- compiled \(CSR\): yes/);
    assert.match(out, /- passed \(TPR\): yes, 3 of 3 test cases passed/);
    assert.match(out, /- calls Status \(IR\): yes/);
  });

  it('scores a failing test: compiled, failed, calls the function, Logic & Assertion', async function () {
    this.timeout(240_000);
    const result = invoke('xrepotest_scoreTest', { file: 'item.go', function: 'Status', testCode: generated('fail.go') });
    const out = text(await result);
    assert.match(out, /^Test of Status \(item\.go:7-29\): FAILED\./, out);
    assert.match(out, /- compiled \(CSR\): yes/);
    assert.match(out, /- passed \(TPR\): no, 0 of 1 test cases passed/);
    assert.match(out, /- calls Status \(IR\): yes/);
    assert.match(out, /failure category: Logic & Assertion/);
  });

  it('reads the last coverage back without running anything', async function () {
    this.timeout(60_000);
    // The latest scoring of Status is the failing test's (above): 7 of its 12 lines, kept by the agent's label.
    const out = text(await invoke('xrepotest_coverage', { file: 'item.go', function: 'Status' }));
    assert.match(out, /^Last known coverage of Status \(item\.go:7-29\): 58\.33% \(7 of 12 executable lines\), by a test that failed \(agent vscode-chat\)\./, out);
  });

  it('refuses to run code in an untrusted workspace, without asking first', async function () {
    this.timeout(60_000);
    bench.pretendWorkspaceTrust(false);
    try {
      await assert.rejects(Promise.resolve(invoke('xrepotest_scoreTest', { file: 'item.go', function: 'Status', testCode: generated('pass.go') })), /Scoring a test is disabled until you trust this workspace/);
      // The read-only tools still answer (lenses show in an untrusted workspace too).
      assert.match(text(await invoke('xrepotest_focalFunctions', { file: 'item.go' })), /Status/);
    } finally {
      bench.pretendWorkspaceTrust(undefined);
    }
  });

  it('cancelling the invocation stops the run in the engine server: no process and no disposable copy left', async function () {
    this.timeout(240_000);
    const server = await waitFor('the engine server', 30_000, engineServerPid);
    const folders = [os.tmpdir(), '/dev/shm', process.env.XDG_RUNTIME_DIR].filter((d): d is string => !!d && fs.existsSync(d));
    // The server's own copies: another xrepotest process may make and remove its own meanwhile.
    const copies = (): string[] => folders.flatMap((d) => sandboxesOf(d, server).filter((n) => n.startsWith('xrt-sandbox-')).map((n) => `${d}/${n}`));
    const cmdline = (pid: number): string => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      } catch {
        return '';
      }
    };
    const copiesBefore = copies();
    const processesBefore = descendants(server);
    const slow = 'package inventory\n\nimport (\n\t"testing"\n\t"time"\n)\n\nfunc TestSlow(t *testing.T) {\n\ttime.Sleep(120 * time.Second)\n\t_ = Item{}.Status(1)\n}\n';
    const cts = new vscode.CancellationTokenSource();
    const started = Date.now();
    const result = Promise.resolve(invoke('xrepotest_scoreTest', { file: 'item.go', function: 'Status', testCode: slow }, cts.token));
    result.catch(() => undefined);
    await waitFor('the test run to start', 60_000, () => ([...descendants(server)].some((p) => !processesBefore.has(p) && cmdline(p).includes('xrt-sandbox-')) ? true : undefined));
    cts.cancel();
    await assert.rejects(result, (e: Error) => {
      assert.ok(e instanceof vscode.CancellationError || /cancel/i.test(e.message), `cancelled, got ${e.name}: ${e.message}`);
      return true;
    });
    await waitFor("the run's processes to be gone", 30_000, () => ([...descendants(server)].every((p) => processesBefore.has(p)) ? true : undefined));
    await waitFor('the disposable copy to be removed', 30_000, () => (copies().every((c) => copiesBefore.includes(c)) ? true : undefined));
    assert.ok(Date.now() - started < 110_000, `ended ${Math.round((Date.now() - started) / 1000)} s after the start, before the test's two minutes`);
  });
});
