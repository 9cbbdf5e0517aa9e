import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import * as vscode from 'vscode';
import type { AnnotatorApi } from '../../../src/extension/annotator';
import type { BenchTestApi } from '../../../src/extension/bench';
import type { RunBenchmarkResult } from '../../../src/shared/bench-protocol';
import { descendants, engineServerPid, EXTENSION_ID, REPO_ROOT, screenshot, userInput, waitFor, workspaceRoot } from './helpers';

const MB = 1024 * 1024;

function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

function lines(file: string): number {
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).length;
}

const runBenchmark = (options: object): Thenable<RunBenchmarkResult> => vscode.commands.executeCommand<RunBenchmarkResult>('xrepotest.runBenchmark', options);

describe('Run a benchmark from the command palette (example dataset, baseline, local executor)', () => {
  let api: BenchTestApi;
  let tmp: string;
  before(async () => {
    const ext = vscode.extensions.getExtension<{ bench: BenchTestApi }>(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is installed`);
    api = (await ext.activate()).bench;
    assert.ok(api, 'activate() returns the bench API for tests');
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'xrepotest-bench-'));
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('runs 3 Go tasks in the engine server with progress, writes the run folder and opens the report', async function () {
    this.timeout(300_000);
    const runDir = path.join(tmp, 'run-a');
    const before = process.memoryUsage();
    const delay = monitorEventLoopDelay({ resolution: 10 });
    const during = { rss: 0, heap: 0, serverRss: 0 };
    let serverPid: number | undefined;
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      during.rss = Math.max(during.rss, m.rss);
      during.heap = Math.max(during.heap, m.heapUsed);
      if (serverPid) during.serverRss = Math.max(during.serverRss, rssOf(serverPid));
    }, 50);
    const seenBefore = api.progress.length;
    delay.enable();
    const running = runBenchmark({ dataset: 'example', lang: 'go', limit: 3, provider: 'baseline', mode: 'standard', executor: 'local', runDir, concurrency: 1 });
    try {
      const first = await waitFor('the first progress notification', 120_000, () => api.progress.slice(seenBefore).find((p) => p.runDir === runDir));
      serverPid = first.pid;
      const shot = screenshot({ name: 'bench-progress', waitForText: 'XRepoTest benchmark' });
      const result = await running;
      delay.disable();
      clearInterval(sampler);
      const receipt = await shot;

      const mb = (n: number): string => (n / MB).toFixed(0);
      const ms = (ns: number): string => (ns / 1e6).toFixed(1);
      console.log(
        `extension host memory: before rss ${mb(before.rss)} MB heap ${mb(before.heapUsed)} MB; during the run max rss ${mb(during.rss)} MB heap ${mb(during.heap)} MB; ` +
          `event-loop delay during the run p50 ${ms(delay.percentile(50))} ms p99 ${ms(delay.percentile(99))} ms max ${ms(delay.max)} ms; ` +
          `engine server (pid ${result.pid}, extension host pid ${process.pid}) max rss ${mb(during.serverRss)} MB`,
      );

      // The work happened in the engine server, not here.
      assert.notStrictEqual(result.pid, process.pid);
      assert.strictEqual(result.pid, engineServerPid(), 'the pid is the engine server\'s, a child of the extension host');
      const events = api.progress.slice(seenBefore).filter((p) => p.runDir === runDir);
      assert.ok(events.every((p) => p.pid === result.pid), 'every progress came from the engine server');

      assert.strictEqual(result.interrupted, false);
      assert.strictEqual(result.tasks, 3);
      assert.strictEqual(result.results, 3);
      assert.strictEqual(lines(path.join(runDir, 'results.jsonl')), 3);
      assert.ok(fs.statSync(path.join(runDir, 'report.html')).size > 0, 'report.html');
      assert.strictEqual(result.reports.html, path.join(runDir, 'report.html'));
      const checkouts = JSON.parse(fs.readFileSync(path.join(runDir, 'checkouts.json'), 'utf8')) as Record<string, string>;
      // The example's checkout: the packaged copy (dist/example, after `npm run package`) or the fixture itself.
      assert.deepStrictEqual(Object.keys(checkouts), ['inventory-go']);
      const checkout = checkouts['inventory-go'];
      assert.ok(path.isAbsolute(checkout) && checkout.startsWith(REPO_ROOT + path.sep), checkout);
      const itemGo = (dir: string): string => fs.readFileSync(path.join(dir, 'item.go'), 'utf8');
      assert.strictEqual(itemGo(checkout), itemGo(path.join(REPO_ROOT, 'test', 'fixtures', 'inventory-go')));
      // One per result and one per task: 6 for 3 tasks, the last one says all are done.
      assert.strictEqual(events.length, 6, `progress notifications: ${JSON.stringify(events.map((e) => `${e.tasksDone}/${e.tasksTotal}`))}`);
      assert.deepStrictEqual(events[events.length - 1].tasksDone, 3);
      assert.match(result.summaryText, /^language\s+tasks\s+slots\s+CSR/);

      // The results land in the annotator view.
      const annotator = (vscode.extensions.getExtension(EXTENSION_ID)!.exports as { annotator: AnnotatorApi }).annotator;
      const opened = await waitFor('the annotator on the run', 60_000, () => {
        const state = annotator.state();
        return state && state.runDir === runDir && !state.loading ? state : undefined;
      });
      assert.strictEqual(opened.rows, 3, 'the annotator lists the 3 results');

      const panel = await waitFor('the report panel', 30_000, () => api.reportPanel);
      assert.strictEqual(panel.title, 'XRepoTest report');
      assert.match(panel.webview.html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-[^']+';/);
      assert.doesNotMatch(panel.webview.html, /unsafe-(eval|inline)|<script/);
      assert.strictEqual(panel.webview.options.enableScripts, false);
      // The workbench tells the extension host about tabs a moment after the panel exists.
      const tab = await waitFor('the report\'s tab', 30_000, () =>
        vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('xrepotest.report')),
      );
      assert.strictEqual(tab.label, 'XRepoTest report');
      const shown = await screenshot({ name: 'bench-report', waitForText: 'XRepoTest: benchmark done' });
      console.log(`screenshots: progress shown ${receipt.textFound}, report + summary message shown ${shown.textFound}`);
      assert.strictEqual(shown.textFound, true, 'the summary message is shown');
    } finally {
      delay.disable();
      clearInterval(sampler);
    }
  });

  it('stops a run cancelled after its first progress, keeps its results, leaves no process behind, and resumes in the same folder', async function () {
    this.timeout(300_000);
    const runDir = path.join(tmp, 'run-b');
    const server = await waitFor('the engine server', 30_000, engineServerPid);
    const alreadyThere = descendants(server);
    const seenBefore = api.progress.length;
    const running = runBenchmark({ dataset: 'example', lang: 'go', provider: 'baseline', executor: 'local', runDir, concurrency: 1, open: false });
    await waitFor('the first progress notification', 120_000, () => api.progress.slice(seenBefore).find((p) => p.runDir === runDir));
    const duringRun = [...descendants(server)].filter((p) => !alreadyThere.has(p)).length;
    api.cancelAll();
    const cancelled = await running;
    assert.strictEqual(cancelled.pid, server);
    assert.strictEqual(cancelled.interrupted, true);
    assert.strictEqual(cancelled.tasks, 5);
    assert.ok(cancelled.results >= 1 && cancelled.results < 5, `kept ${cancelled.results} of 5 results`);
    assert.strictEqual(lines(path.join(runDir, 'results.jsonl')), cancelled.results, 'results.jsonl holds what the result says');
    // What the cancelled task had started (go test, its build, the sandbox) is stopped.
    const newSince = (): number[] => [...descendants(server)].filter((p) => !alreadyThere.has(p));
    await waitFor('the run\'s processes to end', 30_000, () => (newSince().length === 0 ? true : undefined)).catch(() => undefined);
    assert.deepStrictEqual(newSince(), [], 'no process of the run is left');
    console.log(`cancelled after ${cancelled.results} of 5 results; the run had ${duringRun} processes under the engine server at its first progress, 0 after the cancel`);

    const resumed = await runBenchmark({ dataset: 'example', lang: 'go', provider: 'baseline', executor: 'local', runDir, concurrency: 1, open: false });
    assert.strictEqual(resumed.interrupted, false);
    assert.strictEqual(resumed.resumed, cancelled.results, 'the results from before were reused');
    assert.strictEqual(resumed.results, 5);
    assert.strictEqual(lines(path.join(runDir, 'results.jsonl')), 5, 'no result doubled');
  });

  it('runs a benchmark picked in the quick picks: tasks from this workspace, 2 of them, a new run folder', async function () {
    this.timeout(300_000);
    const seenBefore = api.progress.length;
    // Started as from the palette, without options: the pickers ask, the runner answers as a user.
    const running = vscode.commands.executeCommand<RunBenchmarkResult | undefined>('xrepotest.runBenchmark');
    const receipt = await userInput({
      name: 'bench-pickers',
      steps: [
        { waitForText: 'XRepoTest benchmark (1/6): dataset', type: 'This workspace', press: 'Enter' },
        { waitForText: 'XRepoTest benchmark (2/6): where tests come from', type: 'baseline', press: 'Enter' },
        { waitForText: 'XRepoTest benchmark (4/6): context', type: 'standard', press: 'Enter' },
        { waitForText: 'XRepoTest benchmark (5/6): where tests run', type: 'local', press: 'Enter' },
        { waitForText: 'XRepoTest benchmark (6/6): how many tasks', type: '2', press: 'Enter' },
        { waitForText: 'XRepoTest benchmark: run folder', type: 'A new run folder', press: 'Enter' },
      ],
    });
    assert.strictEqual(receipt.error, undefined, `the pickers took the answers: ${JSON.stringify(receipt)}`);
    const result = await running;
    assert.ok(result, 'the picked benchmark ran');
    assert.strictEqual(result.interrupted, false);
    assert.strictEqual(result.tasks, 2, 'the limit typed in the last input box');
    assert.strictEqual(result.results, 2);
    // The workspace's own focal functions, with the workspace as their checkout.
    const checkouts = JSON.parse(fs.readFileSync(path.join(result.runDir, 'checkouts.json'), 'utf8')) as Record<string, string>;
    assert.deepStrictEqual(Object.values(checkouts), [workspaceRoot()]);
    const settings = JSON.parse(fs.readFileSync(path.join(result.runDir, 'run.json'), 'utf8')) as { provider: string; mode: string; executor: string };
    assert.deepStrictEqual([settings.provider, settings.mode, settings.executor], ['baseline', 'standard', 'local']);
    assert.ok(api.progress.slice(seenBefore).some((p) => p.runDir === result.runDir), 'progress came for the picked run');
    fs.rmSync(result.runDir, { recursive: true, force: true });
  });

  it('refuses an options object it cannot use, saying what to pass', async () => {
    await assert.rejects(Promise.resolve(runBenchmark({ dataset: 'example', provider: 'gpt' })), /provider "gpt": use one of baseline/);
  });
});
