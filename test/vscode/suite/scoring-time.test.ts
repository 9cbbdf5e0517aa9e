import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { findProjectRoot, focalPathInRepo } from '../../../src/engine/execute/sandbox';
import { extractRepository } from '../../../src/engine/extract/extract';
import { adapterFor } from '../../../src/engine/languages';
import { runNativeSteps } from '../../../src/engine/languages/native-steps';
import { openInEditor, waitFor, workspaceRoot } from './helpers';

/*
 * Issue 15, item 5: the time from "Generate scored tests" to the score in the lens, PRINTED next to
 * the language's own test command with coverage on the same test (the adapter's `native` part, as
 * `npm run bench:execute` runs it). Nothing here asserts a time: wall clocks depend on the machine and
 * its load. What is asserted is what makes the figures mean something: the scoring passed, the lens
 * showed its score, and the native run of the same test exited 0.
 *
 * Run alone: npx tsc -p test/vscode && XREPOTEST_VSCODE_GREP='scored test to the lens' node out/test/vscode/run.js
 * (XREPOTEST_TIMING_ROUNDS rounds after a first one, default 3.)
 */

const ROUNDS = Number(process.env.XREPOTEST_TIMING_ROUNDS ?? 3);
const STATUS_LINE = 7;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

const ms = (x: number): string => `${x.toFixed(0)} ms`;

describe('Time from a scored test to the lens (inventory-go, baseline, local; printed, not asserted)', () => {
  // What is timed is generation + scoring: mutation testing (a run per mutant, on by default in the
  // editor) is turned off here whatever an earlier test left, and the settings are put back after.
  const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('xrepotest');
  // Likewise the reruns of a passing test (flaky detection, 2 by default): one scored run is timed.
  let mutationBefore: boolean | undefined;
  let rerunsBefore: number | undefined;
  before(async () => {
    mutationBefore = config().inspect<boolean>('mutation.enabled')?.globalValue;
    rerunsBefore = config().inspect<number>('reruns')?.globalValue;
    await config().update('mutation.enabled', false, vscode.ConfigurationTarget.Global);
    await config().update('reruns', 0, vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    await config().update('mutation.enabled', mutationBefore, vscode.ConfigurationTarget.Global);
    await config().update('reruns', rerunsBefore, vscode.ConfigurationTarget.Global);
  });

  it('prints generation + scoring + overhead beside the native test command with coverage', async function () {
    this.timeout(900_000);
    const effective = ['mutation.enabled', 'reruns', 'executor', 'provider', 'mode'].map((k) => `${k}=${JSON.stringify(config().get(k))}`).join(' ');
    console.log(`      settings: ${effective}`);
    const editor = await openInEditor('item.go');
    const uri = editor.document.uri;
    const lensTitles = async (): Promise<string[]> =>
      ((await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri)) ?? [])
        .filter((l) => l.range.start.line === STATUS_LINE - 1)
        .map((l) => l.command?.title ?? '');
    await waitFor('the Generate lens on Status', 60_000, async () => ((await lensTitles()).includes('Generate scored tests') ? true : undefined));

    // Generation alone: the baseline builder the server calls, on the task the server extracts.
    const root = workspaceRoot();
    const { tasks } = await extractRepository(root, { languages: ['go'] });
    const task = tasks.find((t) => t.function_name === 'Status');
    assert.ok(task, 'Status is a task of the workspace');
    const adapter = adapterFor('go');

    type Round = { total: number; command: number; lens: number; phases: number; generation: number };
    const rounds: Round[] = [];
    let testCode = '';
    for (let i = 0; i <= ROUNDS; i++) {
      const g0 = process.hrtime.bigint();
      await adapter.baseline(task);
      const generation = Number(process.hrtime.bigint() - g0) / 1e6;
      const t0 = process.hrtime.bigint();
      const result = (await vscode.commands.executeCommand('xrepotest.generateScoredTests', uri.toString(), STATUS_LINE)) as
        | { passed: boolean; summary: string; lensSummary?: string; testCode: string; phases: Array<{ phase: string; durationMs: number }>; mutation?: unknown }
        | undefined;
      const t1 = process.hrtime.bigint();
      assert.ok(result?.passed, `the baseline test of Status passes (${result?.summary})`);
      await waitFor('the score in the lens', 60_000, async () => ((await lensTitles()).includes(result.lensSummary ?? result.summary) ? true : undefined));
      const t2 = process.hrtime.bigint();
      testCode = result.testCode;
      const phases = result.phases.reduce((a, p) => a + p.durationMs, 0);
      const round = { total: Number(t2 - t0) / 1e6, command: Number(t1 - t0) / 1e6, lens: Number(t2 - t1) / 1e6, phases, generation };
      rounds.push(round);
      console.log(
        `      round ${i}${i === 0 ? ' (first, untimed in the medians)' : ''}: ${ms(round.total)} to the lens = command ${ms(round.command)} ` +
          `(sandbox phases ${ms(phases)}: ${result.phases.map((p) => `${p.phase} ${p.durationMs}`).join(', ')}) + lens ${ms(round.lens)}${result.mutation ? ' (with a mutation score)' : ''}`,
      );
    }

    // The same test, natively with coverage, in a warm copy of the workspace (never the workspace itself).
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-timing-native-'));
    const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-timing-out-'));
    const native: number[] = [];
    try {
      fs.cpSync(root, copy, { recursive: true, filter: (src) => !['.git', '.xrt', 'target'].includes(path.basename(src)) });
      const focalFile = path.join(copy, focalPathInRepo(task));
      const projectRoot = findProjectRoot(copy, focalFile, adapter.toolchain.manifests);
      for (let i = 0; i <= ROUNDS; i++) {
        const run = await adapter.native.prepare({ projectRoot, focalFile, task, testCode: adapter.native.mark(testCode, `xrepotest timing ${i} ${Date.now()}`), outDir });
        try {
          const t0 = process.hrtime.bigint();
          const r = await runNativeSteps(run.withCoverage);
          const t = Number(process.hrtime.bigint() - t0) / 1e6;
          assert.ok(r.ok, r.ok ? '' : `native: ${r.failed.argv.join(' ')}: ${r.failed.output}`);
          if (i > 0) native.push(t);
        } finally {
          run.restore();
        }
      }
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
      fs.rmSync(outDir, { recursive: true, force: true });
    }

    const warm = rounds.slice(1);
    const total = median(warm.map((r) => r.total));
    const nativeMs = median(native);
    const generation = median(warm.map((r) => r.generation));
    const phases = median(warm.map((r) => r.phases));
    console.log(
      `      median of ${warm.length} rounds, load ${os.loadavg()[0].toFixed(2)}: command -> score in the lens ${ms(total)} ` +
        `= generation (baseline, timed alone) ${ms(generation)} + scoring (sandbox phases) ${ms(phases)} + overhead ${ms(total - generation - phases)}; ` +
        `native go test with coverage ${ms(nativeMs)}; beyond native ${ms(total - nativeMs)} (ratio ${(total / nativeMs).toFixed(2)})`,
    );
  });
});
