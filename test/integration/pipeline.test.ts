import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLI, REPO_ROOT } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';

function cli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd: REPO_ROOT });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const EXAMPLE = path.join(REPO_ROOT, 'examples', 'fixtures');

describe('the example dataset', () => {
  it('equals a fresh extraction of the fixtures (it cannot drift from them)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-example-check-'));
    try {
      const fresh = path.join(dir, 'tasks.jsonl');
      const names = ['geometry-rs', 'inventory-go', 'textkit-php', 'bookshelf-rb', 'MiniStats.jl'];
      assert.equal(cli(['extract', ...names.map((n) => path.join('test', 'fixtures', n)), '--out', fresh, '--no-progress']).code, 0);
      const strip = (file: string): unknown[] =>
        fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => {
          const { repository: _r, ...rest } = JSON.parse(l);
          return rest;
        });
      assert.deepEqual(strip(path.join(EXAMPLE, 'tasks.jsonl')), strip(fresh));
      const committed = fs.readFileSync(path.join(EXAMPLE, 'tasks.jsonl'), 'utf8');
      assert.doesNotMatch(committed, /"path":/, 'no machine path in the committed records');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('extract -> generate -> run -> report, with the baseline and replay providers', function () {
  this.timeout(600_000);
  let dir: string;
  let tasks: string;
  before(function () {
    if (!hasTool('php') || !hasTool('rspec')) skipBecause(this, 'php and rspec are needed for the tasks this pipeline runs');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-pipeline-'));
    tasks = path.join(dir, 'tasks.jsonl');
    assert.equal(cli(['extract', 'test/fixtures/textkit-php', 'test/fixtures/bookshelf-rb', '--out', tasks, '--no-progress']).code, 0);
  });
  after(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

  it('scores the baseline, labels it, and replays its responses to the same scores', () => {
    const gens = path.join(dir, 'baseline.jsonl');
    const generated = cli(['generate', tasks, '--provider', 'baseline', '--out', gens, '--no-progress']);
    assert.equal(generated.code, 0, generated.stderr);
    assert.match(generated.stderr, /wrote 10 generations for 10 tasks .*the offline baseline: a lower bound/);
    const records = fs.readFileSync(gens, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.ok(records.every((r) => r.baseline === true && r.provider === 'baseline' && r.test_code.length > 0 && r.raw_response.includes('```')));

    const results = path.join(dir, 'baseline-results.jsonl');
    const run = cli(['run', tasks, '--tests', gens, '--repos', 'test/fixtures', '--executor', 'local', '--out', results, '--no-progress']);
    assert.equal(run.code, 0, run.stderr);
    const report = cli(['report', results, '--format', 'json']);
    const summary = JSON.parse(report.stdout);
    assert.equal(summary.total_samples, 10);
    assert.ok(summary.compiled_rate >= 80, `baseline CSR ${summary.compiled_rate}`);
    assert.equal(summary.baseline_samples, 10);
    assert.match(cli(['report', results]).stdout, /offline baseline provider: a lower bound/);

    const replayed = path.join(dir, 'replay.jsonl');
    const replay = cli(['generate', tasks, '--provider', 'replay', '--replay', gens, '--out', replayed, '--no-progress']);
    assert.equal(replay.code, 0, replay.stderr);
    const again = fs.readFileSync(replayed, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(again.map((r) => r.test_code), records.map((r) => r.test_code));
    const replayResults = path.join(dir, 'replay-results.jsonl');
    assert.equal(cli(['run', tasks, '--tests', replayed, '--repos', 'test/fixtures', '--executor', 'local', '--out', replayResults, '--no-progress']).code, 0);
    const replaySummary = JSON.parse(cli(['report', replayResults, '--format', 'json']).stdout);
    for (const key of ['total_samples', 'compiled_rate', 'test_pass_rate', 'line_coverage', 'invocation_rate']) assert.equal(replaySummary[key], summary[key], key);
  });

  it('prints the prompt that would be sent', () => {
    const r = cli(['prompt', tasks, '--language', 'php', '--task-id', '0', '--mode', 'file']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /--- system\nYou are an expert PHP developer/);
    assert.match(r.stdout, /#CURRENT FILE: textkit-php\//);
    assert.match(r.stdout, /Generate unit tests for this PHP function from textkit-php\//);
  });
});

describe('the main job: a benchmark over the example dataset', function () {
  this.timeout(900_000);
  let dir: string;
  after(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

  it('scores every task it can run here, and its HTML report renders in headless Chromium', async function () {
    if (!fs.existsSync('/usr/bin/chromium')) skipBecause(this, 'chromium is not installed (Debian: chromium)');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-main-job-'));
    const runDir = path.join(dir, 'run');
    const r = cli(['bench', '--dataset', path.join(EXAMPLE, 'tasks.jsonl'), '--manifest', path.join(EXAMPLE, 'manifest.json'), '--executor', 'local', '--run-dir', runDir, '--concurrency', '2', '--no-progress']);
    assert.equal(r.code, 0, r.stderr);
    const excluded = fs.existsSync(path.join(runDir, 'excluded.jsonl')) ? fs.readFileSync(path.join(runDir, 'excluded.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)) : [];
    // Only languages whose toolchain is missing here may be left out, and each says why.
    for (const e of excluded) assert.match(e.reason, /cannot run (\w+) here: .* is not installed/);
    const results = fs.readFileSync(path.join(runDir, 'results.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(results.length + excluded.length, 25, 'every task is scored or excluded with a reason');
    assert.ok(results.every((x) => typeof x.checks[0].tests === 'boolean' && x.xrt.baseline === true));

    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 1400 } });
      await page.goto('file://' + path.join(runDir, 'report.html'));
      const headings = await page.locator('h2').allTextContents();
      assert.ok(headings.includes('Per language') && headings.includes('Failure categories'), headings.join(' | '));
      const languages = new Set(results.map((x) => x.xrt.language));
      const firstColumn = await page.locator('table').first().locator('tbody tr td:first-child').allTextContents();
      for (const l of languages) assert.ok(firstColumn.some((c) => c.startsWith(l)), `a row for ${l} in ${firstColumn.join(', ')}`);
      assert.ok((await page.locator('svg rect').count()) > languages.size, 'the charts have bars');
      assert.match(await page.locator('body').innerText(), /offline baseline provider: a lower bound/);
      const shot = path.join(dir, 'example-report.png');
      await page.screenshot({ path: shot, fullPage: true });
      assert.ok(fs.statSync(shot).size > 20_000, 'a real screenshot');
      process.stdout.write(`      screenshot: ${shot}\n`);
    } finally {
      await browser.close();
    }
  });
});
