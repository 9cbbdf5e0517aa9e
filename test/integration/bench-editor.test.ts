import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkoutsOf, runBenchmark } from '../../src/engine/bench/run-benchmark';
import type { BenchProgress } from '../../src/engine/bench/bench';
import { LocalExecutor } from '../../src/engine/execute/local';
import { baselineProvider } from '../../src/engine/generate/baseline';
import { PAPER_PARAMS } from '../../src/engine/generate/types';
import { buildPrompt } from '../../src/engine/prompt/templates';
import { loadTasks, type LoadedTask } from '../../src/engine/tasks/load';
import { checkTasks, loadManifest } from '../../src/engine/tasks/manifest';
import { REPO_ROOT } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';

describe('bench from the editor: the shared orchestration', () => {
  it('names each repository\'s checkout by the task\'s repository, else the first segment of file_path', () => {
    const task = (file_path: string, name?: string): { task: LoadedTask; checkout: string } => ({
      task: { task: { file_path, ...(name ? { repository: { name, url: '', commit: null } } : {}) }, language: 'go', file: '', line: 1 } as unknown as LoadedTask,
      checkout: `rel/${name ?? file_path.split('/')[0]}`,
    });
    assert.deepEqual(checkoutsOf([task('inventory-go/item.go', 'inventory'), task('geometry-rs/src/lib.rs'), task('geometry-rs/src/x.rs')]), {
      inventory: path.resolve('rel/inventory'),
      'geometry-rs': path.resolve('rel/geometry-rs'),
    });
  });

  it('runs the example\'s Go tasks with an injected log and progress, and writes checkouts.json beside the results', async function () {
    this.timeout(300_000);
    if (!hasTool('go', ['version'])) skipBecause(this, 'go is not installed (the local executor runs the Go tasks)');
    const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-bench-editor-'));
    try {
      const lines: string[] = [];
      const progress: BenchProgress[] = [];
      const stderr = process.stderr.write;
      let wroteStderr = false;
      process.stderr.write = ((chunk: string) => ((wroteStderr = true), stderr.call(process.stderr, chunk))) as typeof process.stderr.write;
      const outcome = await runBenchmark(
        {
          dataset: [path.join(REPO_ROOT, 'examples', 'fixtures', 'tasks.jsonl')],
          manifest: path.join(REPO_ROOT, 'examples', 'fixtures', 'manifest.json'),
          lang: 'go',
          limit: 2,
          runDir,
          concurrency: 2,
          settings: { provider: 'baseline', model: 'baseline', mode: 'standard', samples: 1, repairRounds: 0, params: { model: 'baseline', ...PAPER_PARAMS }, executor: 'local', mutation: false },
        },
        {
          executor: async () => new LocalExecutor(),
          provider: () => baselineProvider,
          promptBuilder: () => ({ promptFor: async (bt) => buildPrompt(bt.task.task, bt.task.language, 'standard', {}), close: async () => undefined }),
        },
        { log: (l) => lines.push(l), onProgress: (p) => progress.push({ ...p }), signal: new AbortController().signal },
      ).finally(() => (process.stderr.write = stderr));
      assert.equal(wroteStderr, false, 'everything went through the injected log');
      assert.equal(outcome.tasks, 2);
      assert.equal(outcome.results.length, 2);
      assert.equal(outcome.interrupted, false);
      assert.ok(lines.some((l) => /^bench: 2 tasks \(go 2\), 1 sample\(s\).*offline baseline/.test(l)), lines.join('\n'));
      assert.equal(progress[progress.length - 1].tasksDone, 2);
      const checkouts = JSON.parse(fs.readFileSync(path.join(runDir, 'checkouts.json'), 'utf8')) as Record<string, string>;
      assert.deepEqual(checkouts, { 'inventory-go': path.join(REPO_ROOT, 'test', 'fixtures', 'inventory-go') });
      for (const f of ['results.jsonl', 'summary.json', 'report.html', 'report.md', 'report.json']) assert.ok(fs.existsSync(path.join(runDir, f)), f);
      assert.equal(outcome.reports.html, path.join(runDir, 'report.html'));
    } finally {
      fs.rmSync(runDir, { recursive: true, force: true });
    }
  });

  it('packages the example dataset with its repositories, and every task finds its checkout there', async function () {
    this.timeout(60_000);
    if (!hasTool('git')) skipBecause(this, 'git is not installed (the script copies the committed files)');
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-example-pkg-'));
    try {
      execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'package-example.mjs'), out], { stdio: 'ignore' });
      const { tasks } = await loadTasks([path.join(out, 'tasks.jsonl')]);
      const checked = checkTasks(tasks, loadManifest(path.join(out, 'manifest.json')));
      assert.equal(checked.excluded.length, 0, checked.excluded.map((e) => e.reason).join('\n'));
      assert.equal(checked.usable.length, tasks.length);
      assert.ok(checked.usable.every((u) => u.checkout.startsWith(path.join(out, 'repos'))), 'the copies, not the test fixtures');
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
});
