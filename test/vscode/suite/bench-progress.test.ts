import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AnnotatorApi } from '../../../src/extension/annotator';
import type { BenchTestApi } from '../../../src/extension/bench';
import type { RunBenchmarkResult } from '../../../src/shared/bench-protocol';
import { EXTENSION_ID, REPO_ROOT, runProcess, screenshot, userInput, waitFor, workspaceRoot } from './helpers';

const runBenchmark = (options: object): Thenable<RunBenchmarkResult | undefined> => vscode.commands.executeCommand<RunBenchmarkResult | undefined>('xrepotest.runBenchmark', options);

/** A running task named, its phase, and its time: `Restock in inventory-go: running the test · 3 s of 300 s`. */
const RUNNING_LINE = /\S+ in inventory-go: (gathering context|generating the test|building the project|building the test|running the test|measuring coverage) · \d+ s/;

describe('Benchmark progress and packaging', function () {
  this.timeout(300_000);
  let bench: BenchTestApi;
  let annotator: AnnotatorApi;
  let made: RunBenchmarkResult | undefined;

  before(async () => {
    const ext = vscode.extensions.getExtension<{ bench: BenchTestApi; annotator: AnnotatorApi }>(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is installed`);
    const api = await ext.activate();
    bench = api.bench;
    annotator = api.annotator;
  });
  after(() => {
    bench.pretendWorkspaceTrust(undefined);
    if (made) fs.rmSync(made.runDir, { recursive: true, force: true });
  });

  it('names the running task, its phase and its elapsed time against the limit, says "estimating" before a task ends, and moves every few seconds', async function () {
    // A fresh code-server has a cold Go build cache: the first task's project build alone took 174 s here.
    this.timeout(600_000);
    const seenMessages = bench.messages.length;
    const seenActivity = bench.activity.length;
    // No run folder given: a new one under the extension's storage, where the annotator's picker looks.
    const running = runBenchmark({ dataset: 'example', lang: 'go', limit: 2, provider: 'baseline', mode: 'standard', executor: 'local', concurrency: 1, open: false });
    const line = await waitFor('a progress line naming a running task', 120_000, () => bench.messages.slice(seenMessages).find((m) => RUNNING_LINE.test(m)));
    // No wait for a phase to last: with a warm build cache both tasks take a few seconds in all, so the
    // screenshot shows whatever line is up (its receipt says whether it found one with a limit).
    const shot = screenshot({ name: 'bench-progress-running', waitForText: ' s of 300 s' });
    made = await running;
    assert.ok(made, 'the benchmark ran');
    const receipt = await shot;
    assert.strictEqual(made.interrupted, false);
    assert.strictEqual(made.results, 2);

    const messages = bench.messages.slice(seenMessages);
    const activity = bench.activity.slice(seenActivity).filter((a) => a.runDir === made!.runDir);
    console.log(`progress lines (${messages.length}):\n  ${messages.join('\n  ')}`);
    assert.match(line, RUNNING_LINE);
    assert.ok(
      messages.some((m) => RUNNING_LINE.test(m) && /0\/2 tasks done · estimating the time left/.test(m)),
      'before the first task ended, the line says the time left is being estimated',
    );
    // The test phase carries its limit (the setting's test timeout, 300 s by default).
    const testing = activity.flatMap((a) => a.running).find((r) => r.phase === 'test');
    assert.ok(testing, `a task was seen running its test: ${JSON.stringify(activity.map((a) => a.running.map((r) => r.phase)))}`);
    assert.strictEqual(testing.limitMs, vscode.workspace.getConfiguration('xrepotest').get<number>('limits.testTimeoutSeconds', 300) * 1000);
    assert.ok(messages.some((m) => / · \d+ s of \d+ s/.test(m)), 'a line shows an elapsed time against its limit');
    assert.ok(activity.some((a) => a.running.length > 0 && a.running[0].function && a.running[0].repository === 'inventory-go'));
    // The server's timer: between two activity notifications of the run, never much more than its 2 s.
    const gaps = activity.slice(1).map((a, i) => a.elapsedMs - activity[i].elapsedMs);
    assert.ok(gaps.every((g) => g <= 3500), `activity gaps ${JSON.stringify(gaps)} ms`);
    // Once a task has finished, an estimate replaces "estimating".
    const afterFirst = activity.find((a) => a.tasksDone === 1 && a.running.length);
    if (afterFirst) assert.notStrictEqual(afterFirst.etaMs, null, 'an estimate once a task finished');
    console.log(`screenshot: running task shown ${receipt.textFound}`);
  });

  it('lists the run just made in the annotator\'s picker, with its date, tasks and provider, and opens it', async () => {
    assert.ok(made, 'the benchmark above made a run');
    const opening = vscode.commands.executeCommand<string | undefined>('xrepotest.openAnnotator');
    await waitFor('the run picker', 30_000, () => annotator.lastRunPicks());
    const shot = await screenshot({ name: 'bench-progress-annotator-picker', waitForText: 'Open another run folder' });
    const picks = annotator.lastRunPicks()!;
    const mine = picks.find((p) => p.runDir === made!.runDir);
    assert.ok(mine, `the picker lists ${made.runDir}: ${JSON.stringify(picks)}`);
    assert.match(mine.description ?? '', /^\d{4}-\d\d-\d\d \d\d:\d\d · 2 tasks, 2 results · baseline, standard$/);
    assert.strictEqual(picks[0].runDir, made.runDir, 'the newest run first');
    assert.ok(picks.some((p) => /Open another run folder/.test(p.label)));
    const typed = await userInput({ name: 'annotator-pick', steps: [{ waitForText: 'XRepoTest: open the annotator', type: path.basename(made.runDir), press: 'Enter' }] });
    assert.strictEqual(typed.error, undefined, JSON.stringify(typed));
    assert.strictEqual(await opening, made.runDir);
    const state = await waitFor('the annotator on the run', 60_000, () => {
      const s = annotator.state();
      return s && s.runDir === made!.runDir && !s.loading ? s : undefined;
    });
    assert.strictEqual(state.rows, 2);
    assert.strictEqual(shot.textFound, true, 'the picker was on screen');
  });

  it('refuses generating, running and benchmarking the workspace while it is not trusted, with the reason and "Manage Workspace Trust"', async () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { capabilities: { untrustedWorkspaces: { supported: string } } };
    assert.strictEqual(pkg.capabilities.untrustedWorkspaces.supported, 'limited');
    bench.pretendWorkspaceTrust(false);
    try {
      const uri = vscode.Uri.file(path.join(workspaceRoot(), 'item.go')).toString();
      const scored = await vscode.commands.executeCommand('xrepotest.generateScoredTests', uri, 1);
      assert.strictEqual(scored, undefined, 'nothing was generated');
      const shot = await screenshot({ name: 'bench-progress-untrusted', waitForText: 'disabled until you trust this workspace' });
      assert.strictEqual(shot.textFound, true, 'the refusal says why');
      assert.strictEqual(await runBenchmark({ dataset: 'workspace', provider: 'baseline', executor: 'local', limit: 1, open: false }), undefined, 'no benchmark of the workspace');
      const regenerated = await vscode.commands.executeCommand('xrepotest.regenerate');
      assert.strictEqual(regenerated, undefined);
    } finally {
      bench.pretendWorkspaceTrust(undefined);
    }
  });

  it('packages only what users need, with an icon and no link out of the repository', async function () {
    this.timeout(240_000);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'xrepotest-vsix-content-'));
    try {
      const vsix = path.join(tmp, 'xrepotest.vsix');
      const packed = await runProcess('npm', ['run', 'package', '--', '--out', vsix]);
      assert.strictEqual(packed.code, 0, `npm run package failed:\n${packed.stdout}\n${packed.stderr}`);
      const listed = await runProcess('unzip', ['-Z1', vsix]);
      assert.strictEqual(listed.code, 0, listed.stderr);
      const files = listed.stdout.split('\n').filter(Boolean);
      for (const f of ['extension/dist/extension.js', 'extension/dist/server.js', 'extension/media/icon.png', 'extension/package.json']) assert.ok(files.includes(f), `${f} in the .vsix`);
      const dev = files.filter((f) => /^extension\/dist\/bench-|\.map$|^extension\/(src|test|scripts|bench)\//.test(f));
      assert.deepStrictEqual(dev, [], 'no dev bundle, source map or source in the .vsix');
      const out = path.join(tmp, 'x');
      assert.strictEqual((await runProcess('unzip', ['-q', vsix, 'extension/package.json', 'extension/media/icon.png', 'extension/readme.md', 'extension/README.md', '-d', out])).code <= 11, true);
      const manifest = JSON.parse(fs.readFileSync(path.join(out, 'extension', 'package.json'), 'utf8')) as { icon?: string };
      assert.strictEqual(manifest.icon, 'media/icon.png');
      const png = fs.readFileSync(path.join(out, 'extension', 'media', 'icon.png'));
      assert.strictEqual(png.subarray(1, 4).toString(), 'PNG');
      const [width, height] = [png.readUInt32BE(16), png.readUInt32BE(20)];
      assert.ok(width >= 128 && width === height, `icon ${width}×${height}`);
      const readme = ['readme.md', 'README.md'].map((n) => path.join(out, 'extension', n)).find((f) => fs.existsSync(f));
      assert.ok(readme, 'the README is in the .vsix');
      assert.doesNotMatch(fs.readFileSync(readme, 'utf8'), /\]\(\.\.\//, 'no link to a file outside the repository');
      console.log(`.vsix: ${files.length} files, ${(fs.statSync(vsix).size / 1024 / 1024).toFixed(1)} MB, icon ${width}×${height}`);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
