import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLI, REPO_ROOT, fixture } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';

function cli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the xrepotest CLI (bundled)', () => {
  let dir: string;
  before(() => {
    assert.ok(fs.existsSync(CLI), `${CLI} is missing: run npm run build`);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-cli-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('extracts several repositories into one task file and prints counts per rule', () => {
    const out = path.join(dir, 'tasks.jsonl');
    const summary = path.join(dir, 'summary.json');
    const r = cli(['extract', fixture('inventory-go'), fixture('bookshelf-rb'), '--out', out, '--summary', summary, '--no-progress']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /inventory-go .*35 functions seen, 5 kept/);
    assert.match(r.stderr, /go +files 9, seen 35, kept 5; dropped: test-code 9, tool-ignored 0, cfg-excluded 0, nightly-only 0, entry-point 0, scaffolding-folder 0, php-visibility 0, name 4, parse-error 1, min-lines 14, max-lines 1, no-return 1/);
    assert.match(r.stderr, /total over 2 repositories: seen 67, kept 10/);
    const lines = fs.readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(lines.length, 10);
    assert.deepEqual(lines.filter((t) => t.language === 'ruby').map((t) => t.task_id), [0, 1, 2, 3, 4]);
    const s = JSON.parse(fs.readFileSync(summary, 'utf8'));
    assert.equal(s.length, 2);
    assert.equal(s[1].languages.ruby.kept, 5);
  });

  it('writes JSONL to standard output without --out, and honours --lang', () => {
    const r = cli(['extract', fixture('textkit-php'), '--lang', 'go', '--no-progress']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '');
    const php = cli(['extract', fixture('textkit-php'), '--lang', 'php', '--no-progress']);
    assert.equal(php.stdout.trim().split('\n').length, 5);
  });

  it('takes line bounds per language', () => {
    const r = cli(['extract', '--lines', 'ruby=5-200', fixture('bookshelf-rb'), '--lines', 'go=20-50', '--no-progress']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /ruby +files 12, seen 32, kept (\d+); dropped: test-code 2, tool-ignored 0, cfg-excluded 0, nightly-only 0, entry-point 0, scaffolding-folder 0, php-visibility 0, name 3, parse-error 1, min-lines (\d+), max-lines 0/);
    const [, kept, minDropped] = /kept (\d+); .*min-lines (\d+)/.exec(r.stderr)!.map(Number);
    assert.ok(kept > 5 && minDropped < 18, `kept ${kept}, min-lines ${minDropped}`);
    const bad = cli(['extract', fixture('bookshelf-rb'), '--lines', 'ruby=10']);
    assert.match(bad.stderr, /--lines ruby=10: expected <language>=<min>-<max>/);
  });

  it('fails clearly on a bad language, a missing folder and inverted bounds', () => {
    const lang = cli(['extract', fixture('textkit-php'), '--lang', 'cobol']);
    assert.notEqual(lang.code, 0);
    assert.match(lang.stderr, /unknown language "cobol": use rust, go, php, ruby or julia/);
    const missing = cli(['extract', path.join(dir, 'nope')]);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /nope: not a folder/);
    const bounds = cli(['extract', fixture('textkit-php'), '--min-lines', '30', '--max-lines', '10']);
    assert.match(bounds.stderr, /--min-lines 30 is above --max-lines 10/);
  });

  it('inspects task files and names malformed lines', () => {
    const file = path.join(dir, 'mixed.jsonl');
    const ok = cli(['extract', fixture('geometry-rs'), '--no-progress']).stdout.trim().split('\n');
    fs.writeFileSync(file, [ok[0], '{broken', ok[1]].join('\n'));
    const r = cli(['inspect', file]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /2 tasks/);
    assert.match(r.stdout, /rust +2 tasks from 1 repositories: geometry-rs/);
    assert.match(r.stderr, new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: not valid JSON`));
  });
});

describe('xrepotest run and report (bundled CLI, local executor)', function () {
  this.timeout(600_000);
  let dir: string;
  before(function () {
    if (!hasTool('php') || !hasTool('phpunit')) skipBecause(this, 'php or phpunit is not installed');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-cli-run-'));
  });
  after(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

  it('runs generations against extracted tasks and reports the release summary keys', () => {
    const tasks = path.join(dir, 'tasks.jsonl');
    assert.equal(cli(['extract', fixture('textkit-php'), '--out', tasks, '--no-progress']).code, 0);
    const slugify = fs.readFileSync(tasks, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).find((t) => t.function_name === 'slugify');
    const data = path.join(REPO_ROOT, 'test', 'data', 'generated', 'php');
    const gens = path.join(dir, 'gens.jsonl');
    fs.writeFileSync(
      gens,
      [
        JSON.stringify({ task_id: slugify.task_id, test_code: fs.readFileSync(path.join(data, 'pass.php'), 'utf8') }),
        // The release's processed.jsonl shape: several samples per task.
        JSON.stringify({ task_id: slugify.task_id, response: [fs.readFileSync(path.join(data, 'fail.php'), 'utf8'), fs.readFileSync(path.join(data, 'nocompile.php'), 'utf8')], status: 'success' }),
        JSON.stringify({ task_id: 9999, test_code: 'x' }),
      ].join('\n') + '\n',
    );
    const results = path.join(dir, 'results.jsonl');
    const run = cli(['run', tasks, '--tests', gens, '--repos', path.dirname(fixture('textkit-php')), '--executor', 'local', '--out', results, '--no-progress', '--concurrency', '2']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /gens\.jsonl:3: no task with task_id 9999/);
    const records = fs.readFileSync(results, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(records.length, 3);
    const byOutcome = records.map((r) => [r.checks[0].compilation, r.checks[0].tests, r.xrt.failure_category]).sort();
    assert.deepEqual(byOutcome, [
      [false, false, 'syntactic-compilation'],
      [true, false, 'logic-assertion'],
      [true, true, null],
    ]);
    for (const r of records) {
      assert.equal(r.function_name, 'slugify');
      assert.equal(r.test.length, 1);
      assert.ok(r.logs[0].includes('$ php -l'));
      assert.ok(typeof r.coverage_stats[0].covered_lines === 'number');
      assert.equal(r.xrt.executor.kind, 'local');
      assert.equal(r.xrt.reason === null, r.checks[0].tests, 'a reason exactly when the slot did not pass');
    }
    const report = cli(['report', results, '--format', 'json']);
    assert.equal(report.code, 0, report.stderr);
    const summary = JSON.parse(report.stdout);
    // One task, three samples: total_samples counts the task as the release does, total_slots the three (METRICS.md item 11).
    assert.equal(summary.total_samples, 1);
    assert.equal(summary.total_slots, 3);
    assert.equal(summary.compiled_rate, 66.67);
    assert.equal(summary.test_pass_rate, 33.33);
    assert.equal(summary.invocation_rate, 66.67);
    assert.ok(summary.line_coverage > 0 && summary.line_coverage < 100);
    assert.equal(summary.languages.php.total_slots, 3);
    const text = cli(['report', results]);
    assert.match(text.stdout, /^php +1 +3 +66\.7 +33\.3/m, 'tasks, slots, CSR, TPR');
  });
});
