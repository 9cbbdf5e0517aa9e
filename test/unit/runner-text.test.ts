import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { goToolchain } from '../../src/engine/languages/go/toolchain';
import { cargoJsonText, rustToolchain } from '../../src/engine/languages/rust/toolchain';
import { goTestJsonText } from '../../src/engine/score/reports/go-test-json';
import { focalDeclarationName, phaseOutput } from '../../src/extension/testing-model';
import { REPO_ROOT } from '../helpers/paths';

const captured = (name: string) => fs.readFileSync(path.join(REPO_ROOT, 'test', 'data', 'captured', 'go', name), 'utf8');

describe('Test Results text: the runner\'s output decoded', () => {
  it('turns go test -json into the text go test -v prints, no JSON left', () => {
    const text = goTestJsonText(captured('pass.jsonl'));
    assert.doesNotMatch(text, /\{"Time":/);
    const lines = text.split('\n');
    // A top-level test with its subtests, in the order they ran, then the package's lines.
    assert.deepEqual(lines.slice(0, 8), [
      '=== RUN   TestXrtPopNDrains',
      '=== RUN   TestXrtPopNDrains/zero',
      '--- PASS: TestXrtPopNDrains/zero (0.00s)',
      '=== RUN   TestXrtPopNDrains/two',
      '--- PASS: TestXrtPopNDrains/two (0.00s)',
      '=== RUN   TestXrtPopNDrains/more_than_size',
      '--- PASS: TestXrtPopNDrains/more_than_size (0.00s)',
      '--- PASS: TestXrtPopNDrains (0.00s)',
    ]);
    assert.equal(lines[lines.length - 1], '', 'ends with a newline');
    assert.equal(lines[lines.length - 4], 'PASS');
  });

  it('says that go test\'s coverage line is the package\'s, not the score', () => {
    const text = goTestJsonText(captured('pass.jsonl'));
    assert.match(text, /^coverage: 11\.5% of statements \(go test's figure for the whole package example\.com\/inventory, not the focal function's coverage in the score\)$/m);
    assert.match(text, /^ok {2}\texample\.com\/inventory\t0\.004s\tcoverage: 11\.5% of statements \(go test's figure for the whole package/m);
  });

  it('keeps a failing test\'s messages under it, and a build failure\'s compiler output first', () => {
    const fail = goTestJsonText(captured('fail.jsonl'));
    assert.match(fail, /=== RUN {3}TestXrtPopNOrder\/two_wrong_order\n {4}xrepotest_0123456789ab_test\.go:25: PopN\(2\) got \[3 2\], want \[2 3\]\n--- FAIL: TestXrtPopNOrder\/two_wrong_order/);
    const build = goTestJsonText(captured('builderr.jsonl'));
    assert.equal(
      build,
      '# example.com/inventory [example.com/inventory.test]\n' +
        './xrepotest_0123456789ab_test.go:7:14: s.PopAll undefined (type *Stack[int] has no field or method PopAll)\n' +
        'FAIL\texample.com/inventory [build failed]\n',
    );
  });

  it('keeps lines that are not events (stderr, a line cut short) as they are', () => {
    const raw = `go: downloading example.com/x v1.0.0\n${captured('pass.jsonl')}panic: boom\n{"Action":"output","Test":"T","Outp`;
    const text = goTestJsonText(raw);
    assert.ok(text.startsWith('go: downloading example.com/x v1.0.0\n=== RUN'));
    assert.ok(text.endsWith('panic: boom\n{"Action":"output","Test":"T","Outp\n'));
  });

  it('Go decodes only its test phase; its compile phase is already text', () => {
    const raw = captured('pass.jsonl');
    assert.equal(goToolchain.displayText?.('test', raw), goTestJsonText(raw));
    assert.equal(goToolchain.displayText?.('compile', './x_test.go:3: undefined: y'), './x_test.go:3: undefined: y');
  });

  it('Rust keeps cargo\'s rendered diagnostics and drops its build messages', () => {
    const raw = [
      '{"reason":"compiler-artifact","package_id":"triangle 0.1.0","executable":null,"profile":{"test":false}}',
      '   Compiling triangle v0.1.0 (/tmp/x)',
      '{"reason":"compiler-message","message":{"rendered":"error[E0425]: cannot find value `z`\\n --> src/lib.rs:3:5\\n"}}',
      'error: could not compile `triangle`',
      '{"reason":"build-finished","success":false}',
      '{ not json',
    ].join('\n');
    assert.equal(cargoJsonText(raw), ['   Compiling triangle v0.1.0 (/tmp/x)', 'error[E0425]: cannot find value `z`', ' --> src/lib.rs:3:5', 'error: could not compile `triangle`', '{ not json'].join('\n'));
    assert.equal(rustToolchain.displayText?.('compile-retry', raw), cargoJsonText(raw));
    assert.equal(rustToolchain.displayText?.('test', 'running 1 test\ntest t ... ok'), 'running 1 test\ntest t ... ok');
  });
});

describe('Test Results text: what the editor appends', () => {
  it('shows a phase\'s decoded text under a header, in the terminal\'s line endings', () => {
    const out = phaseOutput('baseline #1', { phase: 'test', exitCode: 0, timedOut: false, output: '{"Action":"output","Output":"PASS\\n"}\n', text: 'PASS\nok  \tp\t0.01s\n' });
    assert.equal(out, '── baseline #1: test (exit 0)\r\nPASS\r\nok  \tp\t0.01s\r\n');
  });

  it('says a killed phase was killed, and ends an unterminated text with a line break', () => {
    assert.equal(phaseOutput('m #2', { phase: 'test', exitCode: null, timedOut: true, output: 'raw', text: 'half a line' }), '── m #2: test (exit killed, timed out)\r\nhalf a line\r\n');
    assert.equal(phaseOutput('m #2', { phase: 'compile', exitCode: 1, timedOut: false, output: 'raw only' }), '── m #2: compile (exit 1)\r\nraw only\r\n');
  });

  it('names a scored function\'s coverage entry as the focal function\'s', () => {
    assert.equal(focalDeclarationName('Status'), 'Status (focal function)');
  });
});
