import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runInspect } from '../../src/cli/inspect-command';
import { emptyReleaseRow, jsonl, releaseRow } from '../helpers/release-rows';

/** `inspect` over the release's result files: its rows are tasks and results; its summary.json is read, not parsed as JSONL. */
describe("inspect: the release's detailed_results.jsonl and summary.json", () => {
  let dir: string;
  before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-inspect-release-'))));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function inspect(files: string[], json = false): Promise<{ code: number; out: string; err: string }> {
    const out: string[] = [];
    const err: string[] = [];
    const write = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };
    (process.stdout as { write: unknown }).write = (s: string) => (out.push(String(s)), true);
    (process.stderr as { write: unknown }).write = (s: string) => (err.push(String(s)), true);
    try {
      const code = await runInspect(files, json);
      return { code, out: out.join(''), err: err.join('') };
    } finally {
      (process.stdout as { write: unknown }).write = write.out;
      (process.stderr as { write: unknown }).write = write.err;
    }
  }

  it('says the rows are results of the release harness, with slots per task and what it does not record', async () => {
    const file = path.join(dir, 'detailed_results.jsonl');
    fs.writeFileSync(file, jsonl([releaseRow({ task: 0, responses: [{ passed: true, cov: [1, 2] }, {}] }), releaseRow({ task: 1, responses: [{}] }), emptyReleaseRow(2)]));
    const r = await inspect([file]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^3 tasks$/m, 'the rows are the release\'s task records too');
    assert.match(r.out, /results of the release's harness: 3 tasks, 2 response slot\(s\) per task, 6 slots; not recorded there: failure category, strict invocation, environment verdicts, timings/);
    const j = JSON.parse((await inspect([file], true)).out);
    assert.deepEqual([j.results[0].harness, j.results[0].rows, j.results[0].slots, j.results[0].perTask], ['release', 3, 6, 2]);
  });

  it("reads the release's summary.json as a summary (tasks, percent), and refuses one that is not", async () => {
    const file = path.join(dir, 'summary.json');
    fs.writeFileSync(file, JSON.stringify({ total_samples: 3, compiled_rate: 50, line_coverage: 12.5, test_pass_rate: 25, invocation_rate: 40 }, null, 4));
    const r = await inspect([file]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /the release's summary: total_samples 3 \(tasks\), compiled_rate 50\.00, test_pass_rate 25\.00, line_coverage 12\.50, invocation_rate 40\.00/);
    assert.equal(r.err, '', 'not read line by line as JSONL');
    fs.writeFileSync(file, JSON.stringify({ total_samples: 'three', compiled_rate: 50 }));
    const bad = await inspect([file]);
    assert.equal(bad.code, 1);
    assert.match(bad.err, /not the release's summary\.json: .*total_samples must be integer/);
  });
});
