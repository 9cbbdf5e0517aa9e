import Ajv from 'ajv';
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RunFolderLogs } from '../../src/engine/task/slot-store';
import { callTool, TOOL_IDS, TOOLS, toolById } from '../../src/engine/tools';
import type { FocalFunctions } from '../../src/engine/tools/focal-functions';
import type { FocalCoverage } from '../../src/engine/tools/coverage';
import { latestScoring } from '../../src/engine/tools/known-scores';
import { lineRanges, scoreText, toolScoreOf } from '../../src/engine/tools/tool-score';
import { fixtureWorkspace, scoredRecord, toolServices } from '../helpers/tool-services';

/** The agents' tools (issue 18) without a transport: the registry, scores as an agent reads them, and the read-only tools. */
describe('agent tools', () => {
  let ws: ReturnType<typeof fixtureWorkspace>;
  let statusCode: string;
  const lines = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);
  const call = () => ({ signal: new AbortController().signal });

  before(() => {
    ws = fixtureWorkspace('inventory-go');
    statusCode = fs.readFileSync(path.join(ws.root, 'item.go'), 'utf8').split('\n').slice(6, 29).join('\n');
  });
  after(() => ws.cleanup());

  describe('the registry', () => {
    it('holds each tool once, with an object schema that refuses unknown fields and a description naming other tools as the caller does', () => {
      assert.deepEqual(TOOLS.map((t) => t.id), [...TOOL_IDS]);
      for (const t of TOOLS) {
        const schema = t.inputSchema as { type: string; additionalProperties: boolean };
        assert.equal(schema.type, 'object', t.id);
        assert.equal(schema.additionalProperties, false, t.id);
        assert.ok(t.title && t.description((id) => `<${id}>`).length > 80, t.id);
      }
      assert.match(toolById('scoreTest').description((id) => `<${id}>`), /<focalFunctions> lists a file's functions/);
    });

    it('says which tools run code or call the model (an editor confirms those)', () => {
      const flags = Object.fromEntries(TOOLS.map((t) => [t.id, [t.runsCode, t.callsModel]]));
      assert.deepEqual(flags, { focalFunctions: [false, false], scoreTest: [true, false], generateTests: [true, true], coverage: [false, false], runBenchmark: [true, true], mutants: [true, false] });
    });

    it('declares an output schema for every tool, one a JSON Schema validator compiles, naming the fields its results always have', () => {
      const ajv = new Ajv({ strict: false });
      for (const t of TOOLS) {
        const schema = t.outputSchema as { type: string; required?: string[] };
        assert.equal(schema.type, 'object', t.id);
        assert.ok((schema.required ?? []).length > 0, `${t.id}: no required field`);
        assert.doesNotThrow(() => ajv.compile(t.outputSchema), t.id);
      }
      // A score lacking a field is refused: the schema is not a formality.
      const check = ajv.compile(toolById('scoreTest').outputSchema);
      assert.equal(check({ function: 'F' }), false);
    });
  });

  describe('a score as an agent reads it', () => {
    it('gives the lines not run, the runner\'s message in workspace paths, and the metrics in words', () => {
      const record = scoredRecord({
        repo: 'inventory-go', file: 'item.go', fn: 'Status', focalCode: statusCode, start: 7, end: 29,
        executable: [8, 9, 10, 12, 15, 18, 19, 21, 22, 24, 26, 28], covered: [8, 9, 10, 12, 15, 18, 21, 24, 28], passed: false,
        feedback: '/tmp/xrt-sandbox-ns4026531836-77-AbC12/xrepotest_0123_test.go:9: Status() = "ok", want "expired"',
      });
      const s = toolScoreOf(record, '/ws/inventory-go', 'local');
      assert.deepEqual(s.coverage.uncoveredLines, [19, 22, 26]);
      assert.equal(s.coverage.percent, 75);
      assert.equal(s.runnerMessage, '/ws/inventory-go/xrepotest_0123_test.go:9: Status() = "ok", want "expired"');
      assert.deepEqual(s.failingCases.map((c) => c.name), ['TestX']);
      assert.equal(s.file, 'item.go');
      const text = scoreText(s);
      assert.match(text, /^Test of Status \(item\.go:7-29\): FAILED\./);
      assert.match(text, /focal line coverage \(Cov\): 75% \(9 of 12 executable lines\); lines not run: 19, 22, 26/);
      assert.match(text, /calls Status \(IR\): yes/);
      assert.match(text, /failure category: Logic & Assertion/);
    });

    it('decodes the runner\'s JSON as a terminal shows it (Go\'s test2json events), and says the reason once', () => {
      const events = [
        { Action: 'output', Package: 'example.com/inventory', Test: 'TestX', Output: '=== RUN   TestX\n' },
        { Action: 'output', Package: 'example.com/inventory', Test: 'TestX', Output: '    x_test.go:9: no\n' },
        { Action: 'fail', Package: 'example.com/inventory', Test: 'TestX' },
      ].map((e) => JSON.stringify(e));
      const feedback = ['1 of 1 tests failed', '', ...events].join('\n');
      const s = toolScoreOf(scoredRecord({ repo: 'r', file: 'item.go', fn: 'Status', focalCode: '', start: 7, end: 29, executable: [8], covered: [], passed: false, feedback }), '/ws', 'local');
      assert.match(s.runnerMessage ?? '', /^1 of 1 tests failed\n=== RUN {3}TestX\n {4}x_test\.go:9: no$/);
      const text = scoreText({ ...s, reason: '1 of 1 tests failed' });
      assert.doesNotMatch(text, /- why:/, 'the message starts with the reason');
      assert.match(scoreText({ ...s, reason: 'the test phase timed out' }), /- why: the test phase timed out/);
    });

    it('writes line numbers as ranges', () => {
      assert.equal(lineRanges([3, 4, 5, 9, 11, 12]), '3-5, 9, 11-12');
      assert.equal(lineRanges([]), '');
    });

    it('tells the latest scoring of the current code from an older one (stale)', () => {
      const old = scoredRecord({ repo: 'r', file: 'item.go', fn: 'Status', focalCode: 'old code', start: 7, end: 29, executable: [8], covered: [], passed: false });
      const now = scoredRecord({ repo: 'r', file: 'item.go', fn: 'Status', focalCode: statusCode, start: 7, end: 29, executable: [8], covered: [8], passed: true });
      assert.equal(latestScoring([now, old], { name: 'Status', focalCode: statusCode })?.record, now, 'the current code wins over a later scoring of older code');
      assert.deepEqual(latestScoring([old], { name: 'Status', focalCode: statusCode }), { record: old, stale: true });
      assert.equal(latestScoring([old], { name: 'GetLabel', focalCode: '' }), null);
    });
  });

  describe('the read-only tools', () => {
    it('focal_functions lists a file\'s functions with the editor\'s verdicts and the current score', async () => {
      const services = toolServices(ws.root, ws.outside);
      const logs = new RunFolderLogs(services.scorings.dir);
      logs.results.append(scoredRecord({ repo: 'inventory-go', file: 'item.go', fn: 'Status', focalCode: statusCode, start: 7, end: 29, executable: lines(8, 10), covered: [8, 9], passed: true }));
      logs.close();
      const r = await callTool(services, toolById('focalFunctions'), { file: 'item.go' }, call());
      assert.ok(r.ok, r.text);
      const v = r.value as FocalFunctions;
      assert.equal(v.language, 'go');
      const byName = Object.fromEntries(v.functions.map((f) => [f.name, f]));
      assert.deepEqual(Object.keys(byName), ['Status', 'GetLabel', 'CategoryLabel']);
      assert.equal(byName.Status.inBenchmark, true);
      assert.equal(byName.GetLabel.inBenchmark, false, 'an accessor: outside the filter, still testable');
      assert.equal(byName.GetLabel.testable, true);
      assert.match(byName.GetLabel.note ?? '', /outside the benchmark's filter/);
      assert.deepEqual(byName.Status.score?.coverage.uncoveredLines, [10]);
      assert.equal(byName.Status.score?.stale, false);
      assert.equal(byName.GetLabel.score, undefined);
      assert.match(r.text, /- Status: focal \(in the benchmark\), lines 7-29.*; last scored: passed, Cov 66\.67%, lines not run 10, calls it/);
    });

    it('coverage says when nothing is known yet, and that a scoring is stale once the code changed', async () => {
      const services = toolServices(ws.root, path.join(ws.outside, 'fresh'));
      const none = await callTool(services, toolById('coverage'), { file: 'item.go', function: 'Status' }, call());
      assert.ok(none.ok);
      assert.equal((none.value as FocalCoverage).known, false);
      assert.match(none.text, /No test of Status \(item\.go:7-29\) has been scored yet/);
      assert.ok(!fs.existsSync(services.scorings.dir), 'asking creates no run folder');
      const logs = new RunFolderLogs(services.scorings.dir);
      logs.results.append(scoredRecord({ repo: 'inventory-go', file: 'item.go', fn: 'Status', focalCode: 'func (it Item) Status(today int) string { return "" }', start: 7, end: 9, executable: [8], covered: [], passed: false }));
      logs.close();
      const stale = await callTool(services, toolById('coverage'), { file: 'item.go', function: 'Status' }, call());
      assert.ok(stale.ok);
      const v = stale.value as FocalCoverage;
      assert.equal(v.known, true);
      assert.equal(v.stale, true);
      assert.deepEqual(v.coverage?.uncoveredLines, [8]);
      assert.match(stale.text, /Stale: the function has changed since/);
    });
  });
});
