import { strict as assert } from 'node:assert';
import { parseTrace, traceDisagrees } from '../../src/engine/tracer/report';

describe('the line tracer\'s report against the coverage profile', () => {
  const report = JSON.stringify({ hit: [19, 22, 24], lines: [19, 22, 24, 26, 34], planted: 9 });

  it('a profile that counts only traced lines, or lines with no address, agrees', () => {
    assert.equal(traceDisagrees(report, [22, 24], 'rust-coverage-rewritten'), null);
    // 28 has no address in the line table: the profile's word alone, never flagged.
    assert.equal(traceDisagrees(report, [22, 24, 28], 'rust-coverage-rewritten'), null);
    assert.equal(traceDisagrees(report, [], 'rust-coverage-rewritten'), null);
  });

  it('a line the profile counts that had an address and never trapped is a rewritten profile', () => {
    const f = traceDisagrees(report, [22, 26, 34], 'rust-coverage-rewritten');
    assert.equal(f?.rule, 'rust-coverage-rewritten');
    assert.match(f!.says, /26, 34 ran, but the line tracer/);
  });

  it('no report (the tracer was killed), or a garbled one, is tracer-ended', () => {
    for (const sealed of ['', 'not json', '{"hit":[1]}', '{"hit":["1"],"lines":[],"planted":0}']) {
      assert.equal(parseTrace(sealed), null, sealed);
      assert.equal(traceDisagrees(sealed, [], 'rust-coverage-rewritten')?.rule, 'tracer-ended', sealed);
    }
  });
});
