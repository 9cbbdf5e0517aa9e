import { strict as assert } from 'node:assert';
import { goTestEvents, type GoTestEvent } from '../../src/engine/languages/go/test-events';
import { goTamperingRules } from '../../src/engine/languages/go/tampering';
import { parseGoTestJson } from '../../src/engine/score/reports/go-test-json';

/**
 * The engine's reading of a Go test binary's `-test.v=test2json` output (languages/go/test-events.ts)
 * runs outside the test's process on bytes the test chose: what a hostile test can print must never
 * become an event of its choosing, cost more than linear work, or grow past the phase's output limit.
 * (Equivalence with Go's own test2json on real binaries: test/integration/go-test-events.test.ts.)
 */

const M = '\x16';
const PKG = 'example.com/p';
const MIB = 1024 ** 2;

function convert(raw: string, exitCode: number | null = 1, maxBytes = 16 * MIB): { events: GoTestEvent[]; text: string; truncated: boolean } {
  const { text, truncated } = goTestEvents(raw, { package: PKG, exitCode, maxBytes });
  const events = text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as GoTestEvent);
  return { events, text, truncated };
}

const results = (events: GoTestEvent[]): string[] => events.filter((e) => ['pass', 'fail', 'skip'].includes(e.Action)).map((e) => `${e.Action} ${e.Test ?? '(package)'}`);

describe('Go test events from a hostile binary\'s output', () => {
  it('raw JSON events printed by the test stay output: every line is an event the converter wrote', () => {
    const forged = '{"Action":"pass","Package":"example.com/p","Test":"TestX"}';
    const { events, text } = convert(`${M}=== RUN   TestX\n${forged}\n${M}--- FAIL: TestX (0.00s)\n${M}FAIL\n${forged}`);
    for (const line of text.trimEnd().split('\n')) assert.equal((JSON.parse(line) as GoTestEvent).Package, PKG, line);
    assert.deepEqual(results(events), ['fail TestX', 'fail (package)']);
    assert.ok(events.filter((e) => e.Output?.includes(forged)).length === 2, 'both forged lines are there, as output');
  });

  it('a million empty lines: the events are kept within the limit, whole lines, head and tail, and say so', () => {
    const raw = `${M}=== RUN   TestX\n${'\n'.repeat(MIB)}${M}--- FAIL: TestX (0.00s)\n${M}FAIL\n`;
    const { text, truncated, events } = convert(raw, 1, MIB);
    assert.equal(truncated, true);
    assert.ok(Buffer.byteLength(text) <= MIB + 200, `${Buffer.byteLength(text)} bytes kept`);
    const lines = text.trimEnd().split('\n');
    assert.deepEqual(lines.filter((l) => !l.startsWith('{')).length, 1, 'one marker line, every other line whole');
    assert.match(lines.find((l) => !l.startsWith('{'))!, /bytes of test events dropped here/);
    // The start, and the results at the end, are kept.
    assert.equal(events[0].Action, 'start');
    assert.deepEqual(results(events), ['fail TestX', 'fail (package)']);
  });

  it('one 8 MiB line with no newline: output in pieces of at most 1 KiB, no framing read from it', () => {
    const raw = `${M}=== RUN   TestX\n${'y'.repeat(8 * MIB)}${M}--- PASS: TestY (0.00s)`;
    const { events } = convert(raw, 0, 64 * MIB);
    const outputs = events.filter((e) => e.Action === 'output');
    assert.ok(outputs.every((e) => Buffer.byteLength(e.Output!) <= 1024));
    assert.deepEqual(results(events), ['pass TestX'], 'the unended last line is output, the package result is the exit status');
  });

  it('a marked result line longer than test2json reads is output, not a result', () => {
    const name = `TestY${'z'.repeat(5000)}`;
    const { events } = convert(`${M}=== RUN   TestX\n${M}--- PASS: ${name} (0.00s)\n${M}--- FAIL: TestX (0.00s)\n${M}FAIL\n`);
    assert.deepEqual(results(events), ['fail TestX', 'fail (package)']);
  });

  it('after the first marked line, an unmarked framing line is output', () => {
    const { events } = convert(`${M}=== RUN   TestX\n--- PASS: TestX (0.00s)\n=== RUN   TestY\n${M}--- FAIL: TestX (0.00s)\n${M}FAIL\n`);
    assert.deepEqual(results(events), ['fail TestX', 'fail (package)']);
    assert.deepEqual(events.filter((e) => e.Action === 'run').map((e) => e.Test), ['TestX']);
  });

  it('a partial line before a marked line is the earlier test\'s output; invalid UTF-8 becomes replacement characters', () => {
    const { events } = convert(`${M}=== RUN   TestX\nhalf a line \uFFFD${M}--- PASS: TestX (0.01s)\n${M}=== RUN   TestY\n${M}--- PASS: TestY (0.00s)\n${M}PASS\n`, 0);
    assert.deepEqual(events.find((e) => e.Output?.startsWith('half'))?.Test, 'TestX');
    assert.equal(events.find((e) => e.Action === 'pass' && e.Test === 'TestX')?.Elapsed, 0.01);
    assert.deepEqual(results(events), ['pass TestX', 'pass TestY', 'pass (package)']);
  });

  it('a binary the executor killed (no status) gets no package result; one that printed nothing and failed says its status', () => {
    assert.deepEqual(results(convert(`${M}=== RUN   TestX\nworking`, null).events), []);
    const { events } = convert('', 2);
    assert.deepEqual(events.map((e) => e.Action), ['start', 'output', 'fail']);
    assert.match(events[1].Output!, /exit status 2/);
  });
});

describe('Go tampering: results the runner did not print', () => {
  const check = (raw: string, truncated = false) => {
    const { text } = convert(raw);
    return goTamperingRules.outputDisagrees!(text, parseGoTestJson(text), truncated);
  };

  it('a marked PASS for a test after its real FAIL (a TestMain after m.Run): a second result', () => {
    const finding = check(`${M}=== RUN   TestX\n${M}--- FAIL: TestX (0.00s)\n${M}FAIL\n${M}--- PASS: TestX (0.00s)\n${M}PASS\n`);
    assert.equal(finding?.rule, 'go-forged-framing');
    assert.match(finding!.says, /second result for TestX/);
  });

  it('a marked PASS printed by the test before its own real FAIL: a second result too', () => {
    const finding = check(`${M}=== RUN   TestX\n${M}--- PASS: TestX (0.00s)\n${M}--- FAIL: TestX (0.00s)\n${M}FAIL\n`);
    assert.match(finding?.says ?? '', /second result for TestX/);
  });

  it('a result for a test that never started, unless the output\'s middle was dropped', () => {
    const raw = `${M}=== RUN   TestX\n${M}--- PASS: TestY (0.00s)\n${M}--- PASS: TestX (0.00s)\n${M}PASS\n`;
    assert.match(check(raw)?.says ?? '', /TestY.*never started/);
    assert.equal(check(raw, true), null);
  });

  it('honest nested subtests and parallel tests: nothing', () => {
    const raw = [
      `${M}=== RUN   TestA`,
      `${M}=== RUN   TestA/x`,
      `${M}=== PAUSE TestA/x`,
      `${M}=== NAME  TestA`,
      `${M}=== RUN   TestA/y`,
      `${M}=== RUN   TestA/y/z`,
      `${M}--- FAIL: TestA/y/z (0.00s)`,
      `${M}=== NAME  TestA/y`,
      `${M}--- FAIL: TestA/y (0.00s)`,
      `${M}=== CONT  TestA/x`,
      `${M}--- PASS: TestA/x (0.00s)`,
      `${M}--- FAIL: TestA (0.00s)`,
      `${M}=== NAME  `,
      `${M}FAIL`,
      '',
    ].join('\n');
    assert.equal(check(raw), null);
  });
});
