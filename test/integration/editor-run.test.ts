import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TextDocuments } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { URI } from 'vscode-uri';
import { loadResults } from '../../src/engine/report/load';
import { readCheckouts } from '../../src/engine/store/checkout-map';
import type { ResultRecord } from '../../src/engine/store/results';
import { summarizeByLanguage } from '../../src/engine/report/summary';
import { DEFAULT_ENGINE_SETTINGS, type EngineSettings } from '../../src/shared/protocol';
import { MUTATE_CANDIDATE, REPAIR_CANDIDATE, RUN_CANDIDATE, SCORE_FUNCTION, REGENERATE_CANDIDATE, type ScoreFunctionResult } from '../../src/shared/scoring-protocol';
import { registerMutating } from '../../src/server/mutating';
import { EditorRunFolder } from '../../src/server/editor-run';
import { registerScoring } from '../../src/server/scoring';
import { ServerState } from '../../src/server/state';
import { registerTesting } from '../../src/server/testing';
import { CLI, fixture } from '../helpers/paths';
import { RawServer } from '../helpers/hostile-providers';
import { hasTool, skipBecause } from '../helpers/skip';
import { fakeConnection } from '../helpers/server-connection';

function lines<T>(file: string): T[] {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as T) : [];
}

describe('the editor keeps what it scores: a run folder in the extension storage', function () {
  this.timeout(600_000);
  const root = fixture('inventory-go');
  const file = path.join(root, 'item.go');
  const uri = URI.file(file).toString();
  let storage: string;
  let runDir: string;
  let server: ReturnType<typeof fakeConnection>;
  let folder: EditorRunFolder;

  before(function () {
    if (!hasTool('go', ['version'])) skipBecause(this, 'go is needed to run the Go fixture\'s tests');
    storage = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-editor-run-'));
    folder = EditorRunFolder.inStorage(storage);
    runDir = folder.dir;
    server = fakeConnection();
    const doc = TextDocument.create(uri, 'go', 1, fs.readFileSync(file, 'utf8'));
    const documents = { get: (u: string) => (u === uri ? doc : undefined) } as unknown as TextDocuments<TextDocument>;
    const state = new ServerState(server.connection, documents);
    state.workspaceFolders = [URI.file(root).toString()];
    state.editorRun = folder;
    registerScoring(state);
    registerTesting(state);
    registerMutating(state);
  });
  after(() => {
    folder?.close();
    if (storage) fs.rmSync(storage, { recursive: true, force: true });
  });

  const settings = (over: Partial<EngineSettings> = {}): EngineSettings => ({ ...DEFAULT_ENGINE_SETTINGS, provider: 'baseline', executor: 'local', mutation: false, ...over });

  it('appends each scoring (generate, regenerate, repair) as a bench result record that `report` reads', async () => {
    const unmutated = await server.request(SCORE_FUNCTION, { uri, startLine: 7, settings: settings({ mutation: true }) });
    assert.equal(unmutated.functionName, 'Status');
    assert.equal(unmutated.passed, true, unmutated.reason ?? '');
    // The score is never held back by mutants (issue 30): they are asked for after it ("Check with mutants").
    assert.equal(unmutated.mutation, undefined);
    assert.equal(runDir, path.join(storage, 'runs', 'editor'));
    assert.equal(lines<ResultRecord>(path.join(runDir, 'results.jsonl')).length, 1);
    const scored = await server.request(MUTATE_CANDIDATE, { uri, startLine: 7, testCode: unmutated.testCode, sample: unmutated.sample, round: unmutated.round, provider: unmutated.provider, model: unmutated.model, settings: settings() });
    assert.equal(scored.testCode, unmutated.testCode);
    assert.deepEqual(scored.coveredLines, unmutated.coveredLines);
    // The slot's record again, with its mutants: reports and the annotator keep a slot's last record.
    let results = lines<ResultRecord>(path.join(runDir, 'results.jsonl'));
    assert.equal(results.length, 2);
    assert.equal(results[0].xrt.mutation ?? null, null);
    assert.equal(results[1].xrt.test_hash, results[0].xrt.test_hash);
    results = results.slice(1);
    const first = results[0];
    assert.equal(first.function_name, 'Status');
    assert.deepEqual([first.xrt.sample, first.xrt.round, first.xrt.provider, first.xrt.model, first.xrt.mode], [0, 0, 'baseline', 'baseline', 'standard']);
    assert.equal(first.test[0], scored.testCode);
    assert.equal(first.checks[0].tests, true);
    assert.deepEqual(first.coverage_stats[0].covered_line_numbers, scored.coveredLines);
    // One count for both: the record keeps killed and timed-out apart; the editor shows the same numbers.
    const m = first.xrt.mutation;
    assert.ok(m && scored.mutation, 'the passing test was mutation-tested, and the record says so');
    assert.equal(scored.mutation.killed, m.killed);
    assert.equal(scored.mutation.timedOut, m.timed_out);
    assert.equal(scored.mutation.viable, m.viable);
    assert.equal(scored.mutation.score, m.score);
    assert.ok(scored.summary.includes(`caught ${m.killed + m.timed_out} of ${m.viable} mutant`), scored.summary);
    // The generation is kept beside it, and the workspace folder is named as the repository's checkout.
    assert.equal(lines(path.join(runDir, 'generations.jsonl')).length, 1);
    assert.deepEqual(readCheckouts(runDir), { 'inventory-go': root });

    await server.request(REGENERATE_CANDIDATE, { uri, startLine: 7, sample: 1, settings: settings() });
    // A failing test written by hand, run, then repaired by the model: the repair is round 1 of its sample.
    const failing = 'package inventory\n\nimport "testing"\n\nfunc TestStatusWrong(t *testing.T) {\n\tif got := (Item{Expires: 5}).Status(1); got != "nope" {\n\t\tt.Fatalf("got %q", got)\n\t}\n}\n';
    const ran = await server.request(RUN_CANDIDATE, { uri, startLine: 7, testCode: failing, settings: settings() });
    assert.equal(ran.passed, false);
    // The offline baseline cannot repair (it would return the same test): refused, nothing stored.
    await assert.rejects(server.request(REPAIR_CANDIDATE, { uri, startLine: 7, testCode: failing, sample: 2, round: 0, settings: settings() }), /the offline baseline cannot repair a test/);
    // A model can: a local OpenAI-compatible endpoint answers with a corrected test.
    const fixed = failing.replace('"nope"', '"ok"').replace('TestStatusWrong', 'TestStatusRepaired');
    const model = await new RawServer(() => ({
      body: JSON.stringify({ id: 'r', object: 'chat.completion', created: 0, model: 'local-repairer', choices: [{ index: 0, message: { role: 'assistant', content: '```go\n' + fixed + '```' }, finish_reason: 'stop' }] }),
    })).start();
    let repaired: ScoreFunctionResult;
    try {
      repaired = await server.request(REPAIR_CANDIDATE, { uri, startLine: 7, testCode: failing, sample: 2, round: 0, settings: settings({ provider: 'openai-compatible', model: 'local-repairer', baseUrl: `${model.url}/v1` }) });
    } finally {
      await model.stop();
    }
    assert.equal(repaired.round, 1);
    assert.equal(model.requests.length, 1, 'one request to the model');
    assert.match(JSON.stringify(model.requests[0].body), /TestStatusWrong/, 'the repair prompt carries the failed test');

    results = lines<ResultRecord>(path.join(runDir, 'results.jsonl'));
    // The hand-run test is not the model's: it is not stored under the model's slot.
    // Sample 0's record twice: scored, then again with its mutants; the report keeps the last.
    assert.deepEqual(results.map((r) => [r.xrt.sample, r.xrt.round]), [[0, 0], [0, 0], [1, 0], [2, 1]]);
    const loaded = await loadResults([runDir]);
    assert.equal(loaded.results.length, 3);
    assert.equal(loaded.duplicates, 1);
    assert.ok(loaded.results.find((x) => x.xrt.sample === 0)?.xrt.mutation, 'the kept record of sample 0 is the one with its mutants');
    assert.deepEqual(loaded.problems, []);
    assert.equal(summarizeByLanguage(loaded.results).languages.go.total_slots, 3);

    // `report` reads the folder like a benchmark's (the CLI: `npm run build` first).
    const r = spawnSync(process.execPath, [CLI, 'report', runDir, '--format', 'json'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const report = JSON.parse(r.stdout) as { total_slots: number; languages: Record<string, { total_slots: number }> };
    assert.equal(report.total_slots, 3);
    assert.equal(report.languages.go.total_slots, 3);
  });
});
