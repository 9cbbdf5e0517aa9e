import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLI } from '../helpers/paths';
import { emptyReleaseRow, jsonl, releaseRow } from '../helpers/release-rows';
import { result } from '../helpers/report-fixtures';

/**
 * The bundled CLI over the release's result files (issue 19): `report` and `report --compare` on
 * rows of its detailed_results.jsonl as they are, its summary.json, and `inspect`.
 */

function cli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const pct = (x: number): number => Math.round(x * 10000) / 100;

describe("the CLI's report over the release's result files (bundled)", () => {
  let dir: string;
  let folder: string;
  let rowsFile: string;
  before(() => {
    assert.ok(fs.existsSync(CLI), `${CLI} is missing: run npm run build`);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-cli-release-'));
    folder = path.join(dir, 'results', 'ruby', 'standard', 'gpt-4o');
    fs.mkdirSync(folder, { recursive: true });
    rowsFile = path.join(folder, 'detailed_results.jsonl');
    // Three Ruby tasks with up to two responses (N = 6), as the harness writes them: a null coverage where the test did not compile.
    fs.writeFileSync(
      rowsFile,
      jsonl([
        releaseRow({ task: 0, language: 'ruby', repo: 'hashie', responses: [{ passed: true, invoked: true, cov: [3, 4] }, { compiled: true, invoked: true, cov: [1, 4] }] }),
        releaseRow({ task: 1, language: 'ruby', repo: 'hashie', responses: [{ compiled: false, cov: null }] }),
        emptyReleaseRow(2, 'ruby'),
      ]),
    );
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads the rows as they are: the harness\'s rates, exit 0, and what it does not record on standard error', () => {
    const r = cli(['report', rowsFile]);
    assert.equal(r.code, 0, r.stderr);
    // Compiled 2, passed 1, coverage (3/4 + 1/4) = 1, invoked 2, over N = 6; tasks 3.
    const [csr, tpr, cov, , ir] = [2 / 6, 1 / 6, 1 / 6, 0, 2 / 6].map((x) => pct(x).toFixed(1));
    assert.match(r.stdout, new RegExp(`^ruby +3 +6 +${csr} +${tpr} +${cov} +\\S+ +${ir} +—$`, 'm'), 'IR strict: not recorded');
    assert.match(r.stdout, /^scored by the release's harness$/m);
    assert.match(r.stderr, /3 rows of the release's harness, 2 response slot\(s\) per task \(6 slots\); not recorded there: failure category, strict invocation, environment verdicts, timings/);
    assert.doesNotMatch(r.stderr, /not a result record|TypeError|at .*\.js:\d+/);
  });

  it('writes the summary keys with the release meanings, and the report with its harness and differences, as JSON', () => {
    const r = cli(['report', rowsFile, '--format', 'json', '--resamples', '200']);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.deepEqual([j.total_samples, j.total_tasks, j.total_slots], [3, 3, 6]);
    assert.deepEqual([j.compiled_rate, j.test_pass_rate, j.line_coverage, j.invocation_rate], [pct(2 / 6), pct(1 / 6), pct(1 / 6), pct(2 / 6)]);
    assert.equal(j.strict_invocation_rate, null);
    assert.deepEqual(j.scored_by, { xrepotest: 0, release_harness: 6 });
    assert.deepEqual(j.report.totals.harnesses, { xrepotest: 0, release: 6 });
    assert.ok(j.report.differences.some((d: { on: string; item: number }) => d.on === 'total_samples' && d.item === 11));
  });

  it('checks the summary.json beside the rows key for key and says which keys do not follow', () => {
    const summary = path.join(folder, 'summary.json');
    fs.writeFileSync(summary, JSON.stringify({ total_samples: 3, compiled_rate: (2 / 6) * 100, line_coverage: (1 / 6) * 100, test_pass_rate: (1 / 6) * 100, invocation_rate: (2 / 6) * 100 }, null, 4));
    const agrees = cli(['report', folder]);
    assert.equal(agrees.code, 0, agrees.stderr);
    assert.match(agrees.stdout, /the release's summary\.json .*summary\.json against its rows .*detailed_results\.jsonl: every key agrees/);
    fs.writeFileSync(summary, JSON.stringify({ total_samples: 3, compiled_rate: 50, line_coverage: (1 / 6) * 100, test_pass_rate: (1 / 6) * 100, invocation_rate: (2 / 6) * 100 }, null, 4));
    const differs = cli(['report', rowsFile, '--format', 'markdown']);
    assert.equal(differs.code, 0, differs.stderr);
    assert.match(differs.stdout, /\*\*1 key\(s\) differ\*\*/);
    assert.match(differs.stdout, /\| compiled\\_rate \| 50 \| 33\.3333 \| \*\*differs\*\* \|/);
    // Alone: shown as given (text), refused for tables.
    const alone = cli(['report', summary]);
    assert.equal(alone.code, 0, alone.stderr);
    assert.match(alone.stdout, /no detailed_results\.jsonl beside it was loaded: shown as given/);
    const html = cli(['report', summary, '--format', 'html']);
    assert.notEqual(html.code, 0);
    assert.match(html.stderr, /a summary\.json alone has no per-slot rows to build html tables from/);
    fs.rmSync(summary);
  });

  it('compares the harness\'s run with ours on the same tasks, and says which harness scored each side', () => {
    const theirs = path.join(dir, 'theirs.jsonl');
    fs.writeFileSync(theirs, jsonl(Array.from({ length: 8 }, (_, task) => releaseRow({ task, responses: [{ passed: task % 2 === 0, invoked: true, cov: [1, 2] }] }))));
    const ours = path.join(dir, 'ours.jsonl');
    fs.writeFileSync(ours, jsonl(Array.from({ length: 8 }, (_, task) => result({ task, id: null, passed: task < 6 }))));
    const r = cli(['report', '--compare', theirs, ours, '--resamples', '200']);
    assert.equal(r.code, 0, r.stderr);
    // Pairs: both pass 0, 2, 4; only theirs 6; only ours 1, 3, 5.
    assert.match(r.stdout, /^go +8 +50\.0 +75\.0 +25\.0 +1 +3 /m);
    assert.match(r.stdout, /^A scored by the release's harness; B scored by xrepotest$/m);
    assert.match(r.stdout, /theirs was scored by the release's harness, ours by xrepotest: their definitions differ/);
    assert.match(r.stdout, /Holm–Bonferroni .*plain Bonferroni/);
    const j = JSON.parse(cli(['report', '--compare', theirs, ours, '--format', 'json', '--resamples', '200']).stdout);
    assert.deepEqual([j.comparison.scoredByA, j.comparison.scoredByB], ["the release's harness", 'xrepotest']);
    assert.deepEqual([j.runs[0].total_samples, j.runs[1].total_samples], [8, 8]);
    assert.ok(j.differences.some((d: { item: number | null }) => d.item === 9), 'the paired test\'s difference (Holm, not Bonferroni) in the JSON too');
  });

  it('no longer crashes on a null coverage_stats entry, in our rows or theirs', () => {
    const file = path.join(dir, 'nulls.jsonl');
    const ours = result({ task: 0, compiled: false }) as unknown as { coverage_stats: unknown[] };
    ours.coverage_stats = [null];
    fs.writeFileSync(file, jsonl([ours, releaseRow({ task: 1, responses: [{ compiled: false, cov: null }] })]));
    for (const format of ['text', 'json', 'markdown', 'html']) {
      const r = cli(['report', file, '--format', format, '--resamples', '100']);
      assert.equal(r.code, 0, `${format}: ${r.stderr}`);
      assert.equal(r.stderr.includes('TypeError'), false, r.stderr);
    }
  });

  it('inspect says the rows are results of the release harness and reads its summary.json', () => {
    const summary = path.join(dir, 'summary.json');
    fs.writeFileSync(summary, JSON.stringify({ total_samples: 3, compiled_rate: 33.3, line_coverage: 16.7, test_pass_rate: 16.7, invocation_rate: 33.3 }, null, 4));
    const r = cli(['inspect', rowsFile, summary]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /results of the release's harness: 3 tasks, 2 response slot\(s\) per task, 6 slots/);
    assert.match(r.stdout, /the release's summary: total_samples 3 \(tasks\)/);
  });
});
