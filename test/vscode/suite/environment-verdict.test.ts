import * as assert from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { EnvironmentApi } from '../../../src/extension/environment';
import type { TestingApi } from '../../../src/extension/testing';
import type { ScoreFunctionResult } from '../../../src/shared/scoring-protocol';
import { EXTENSION_ID, openInEditor, screenshot, skipBecause, waitFor, workspaceRoot } from './helpers';

type Api = { environment: EnvironmentApi; testing: TestingApi };
type Report = { text: string; executor: string; workspaceLanguages: string[] };

/** A Julia package with one function of focal size (20–50 lines), in the Go workspace's copy. */
const PACKAGE = 'stats_jl';
const SOURCE = `${PACKAGE}/src/Stats.jl`;
const JULIA = [
  'module Stats',
  '',
  '"""Summary statistics of a vector: count, mean, spread and the share above a threshold."""',
  'function summarize(xs::Vector{Float64}, threshold::Float64)',
  '    n = length(xs)',
  '    if n == 0',
  '        return (count = 0, mean = 0.0, min = 0.0, max = 0.0, above = 0.0)',
  '    end',
  '    total = 0.0',
  '    lo = xs[1]',
  '    hi = xs[1]',
  '    above = 0',
  '    for x in xs',
  '        total += x',
  '        if x < lo',
  '            lo = x',
  '        end',
  '        if x > hi',
  '            hi = x',
  '        end',
  '        if x > threshold',
  '            above += 1',
  '        end',
  '    end',
  '    mean = total / n',
  '    share = above / n',
  '    spread = hi - lo',
  '    if spread < 0',
  '        spread = 0.0',
  '    end',
  '    return (count = n, mean = mean, min = lo, max = hi, above = share)',
  'end',
  '',
  'end # module',
  '',
].join('\n');

const api = async (): Promise<Api> => (await vscode.extensions.getExtension(EXTENSION_ID)!.activate()) as Api;
const lensesOf = async (uri: vscode.Uri): Promise<vscode.CodeLens[]> => (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri)) ?? [];

describe('Environment verdicts', () => {
  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(path.join(workspaceRoot(), PACKAGE), { recursive: true, force: true });
  });

  it("the status bar names the workspace's Go, and no container engine with the local executor", async function () {
    this.timeout(60_000);
    const { environment } = await api();
    assert.strictEqual(vscode.workspace.getConfiguration('xrepotest').get('executor'), 'local', 'the suite runs with the local executor');
    const report = (await vscode.commands.executeCommand('xrepotest.checkEnvironment')) as Report;
    assert.deepStrictEqual(report.workspaceLanguages, ['go'], 'the inventory workspace is Go only');
    const { text, tooltip } = environment.status();
    assert.strictEqual(text, '$(beaker) XRepoTest: Go ✓');
    assert.doesNotMatch(`${text}\n${tooltip}`, /docker|container|Rust|PHP|Ruby|Julia/i);
  });

  it('a Julia function on a machine without julia gets "can\'t run here" with How to fix, and no metrics', async function () {
    this.timeout(120_000);
    if (spawnSync('sh', ['-c', 'command -v julia']).status === 0) skipBecause(this, 'julia is installed on this machine: its toolchain is not missing');
    const root = workspaceRoot();
    fs.mkdirSync(path.join(root, PACKAGE, 'src'), { recursive: true });
    fs.writeFileSync(path.join(root, PACKAGE, 'Project.toml'), 'name = "Stats"\nuuid = "5b2a1c3e-8f3d-4c1e-9a55-2f7c0d6e1b11"\nversion = "0.1.0"\n');
    fs.writeFileSync(path.join(root, SOURCE), JULIA);
    const editor = await openInEditor(SOURCE);
    const uri = editor.document.uri;
    assert.strictEqual(editor.document.languageId, 'julia');
    const generate = await waitFor('the Generate lens on summarize', 30_000, async () =>
      (await lensesOf(uri)).find((l) => l.command?.title === 'Generate scored tests' && l.range.start.line === 3),
    );
    const result = (await vscode.commands.executeCommand(generate.command!.command, ...(generate.command!.arguments ?? []))) as ScoreFunctionResult;
    assert.ok(result, 'the command returned a result');
    assert.ok(result.environment, `an environment verdict, not a score: ${result.summary}`);
    assert.match(result.environment.cause, /julia is not installed/);
    assert.match(result.environment.fix, /install Julia .*install\.julialang\.org/);
    assert.strictEqual(result.environment.setting, 'xrepotest.executor');
    assert.strictEqual(result.summary, `⚠ can't run here: ${result.environment.cause}`);
    assert.doesNotMatch(result.summary, /does not compile|Cov|IR|TPR/);
    assert.strictEqual(result.invoked, false, 'no invocation for a test that never ran');
    assert.deepStrictEqual([result.coveredLines, result.executableLines, result.focalLines, result.phases], [[], [], [], []], 'nothing ran, nothing measured');

    // The lens: the verdict, and an action beside it.
    const lenses = await waitFor('the verdict lens', 30_000, async () => {
      const found = await lensesOf(uri);
      return found.some((l) => l.command?.title === result.lensSummary) ? found : undefined;
    });
    const titles = lenses.filter((l) => l.range.start.line === 3).map((l) => l.command?.title);
    assert.ok(!titles.some((t) => /Cov|IR ✓|does not compile/.test(t ?? '')), `no metrics on the lens: ${titles.join(' | ')}`);
    const fix = lenses.find((l) => l.command?.title === 'How to fix' && l.range.start.line === 3);
    assert.strictEqual(fix?.command?.command, 'xrepotest.howToFixEnvironment');
    // The lens alone on screen: no panel or notification from the checks before.
    await vscode.commands.executeCommand('workbench.action.closePanel');
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    const shot = await screenshot({ name: 'environment-lens', waitForText: "can't run here" }).finally(() => vscode.commands.executeCommand('workbench.view.explorer'));
    assert.strictEqual(shot.textFound, true, 'the workbench shows the verdict');

    // "How to fix": the cause and the install instructions in the environment output, with its buttons.
    const section = (await vscode.commands.executeCommand(fix.command.command, ...(fix.command.arguments ?? []))) as string;
    assert.match(section, /^Can't run here \(scoring summarize\): julia is not installed/);
    assert.ok((await api()).environment.outputText().endsWith(section), 'the section is at the end of the environment output, where the panel shows it');
    assert.match(section, /How to fix: install Julia/);
    await screenshot({ name: 'environment-how-to-fix', waitForText: 'How to fix' });

    // The Testing view: errored with the cause and the fix, not a compile error of the test.
    const { testing, environment } = await api();
    const state = await waitFor('the Testing view record', 10_000, () =>
      testing.runs.flatMap((r) => [...r.states.values()]).find((s) => s.messages.some((m) => String(m.message).startsWith("Can't run here"))),
    );
    assert.strictEqual(state.state, 'errored');
    assert.match(String(state.messages[0].message), /^Can't run here: julia is not installed.*\nHow to fix: install Julia/s);
    assert.strictEqual(state.messages[0].contextValue, 'xrepotest.environment', "none of the test's actions (repair, accept) on the machine's gap");

    // The status bar now flags the workspace's Julia, with what is missing.
    const text = await waitFor('the status bar to flag Julia', 30_000, () => {
      const t = environment.status().text;
      return t.includes('Julia') ? t : undefined;
    });
    assert.strictEqual(text, "$(warning) XRepoTest: Go ✓ · Julia can't run (julia missing)");
    await screenshot({ name: 'environment-status', waitForText: "Julia can't run" });
  });

  it('"Check the environment" speaks to a user: the workspace\'s languages, the chosen executor, no developer advice', async function () {
    this.timeout(60_000);
    const { environment } = await api();
    const report = (await vscode.commands.executeCommand('xrepotest.checkEnvironment')) as Report;
    for (const text of [report.text, environment.outputText()]) {
      assert.match(text, /Executor: local \(setting xrepotest\.executor\)/);
      assert.match(text, /Go: ready/);
      assert.doesNotMatch(text, /npm install|scripts\/setup\.sh|\.tools\/bin|podman-service/);
      assert.doesNotMatch(text, /Tried:\s*$/m, 'no dangling "Tried:"');
      assert.doesNotMatch(text, /Container engine|Rust|PHP|Ruby/, 'only the executor and languages of this workspace');
    }
    if (report.workspaceLanguages.includes('julia')) assert.match(report.text, /Julia: can't run here: julia is not installed[^\n]*\n {4}How to fix: install Julia/);
    // The whole text: the output panel maximized, then put back.
    await vscode.commands.executeCommand('workbench.action.toggleMaximizedPanel');
    try {
      const shot = await screenshot({ name: 'environment-check', waitForText: 'Executor: local' });
      assert.strictEqual(shot.textFound, true, 'the environment output shows the check');
    } finally {
      await vscode.commands.executeCommand('workbench.action.toggleMaximizedPanel');
      await vscode.commands.executeCommand('notifications.clearAll');
    }
  });
});
