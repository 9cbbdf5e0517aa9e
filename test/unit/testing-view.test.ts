import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { mapSandboxPaths } from '../../src/engine/execute/sandbox-paths';
import { acceptedPlacement, lineOfTest, locateInTest, snakeCase, tailOf, workspacePathOf } from '../../src/server/candidate-mapping';
import { candidateLabel, candidateState, CoverageAccumulator, messageContext } from '../../src/extension/testing-model';

const ROOT = path.join(path.sep, 'home', 'u', 'inventory');

describe('Testing view: sandbox paths back to the workspace', () => {
  it('replaces every sandbox root in a log with the workspace folder, leaving other paths alone', () => {
    const log = [
      '# inventory [inventory.test]',
      '/tmp/xrt-sandbox-4242-AbC123/xrepotest_0f_test.go:12:5: undefined: Foo',
      'see /var/folders/x/T/xrt-sandbox-7-zz9/pricing/rules.go:3',
      '/usr/lib/go/src/testing/testing.go:1689 +0x12',
      '  --> /tmp/xrt-sandbox-ns4026531836-311-Qx9aZb/src/lib.rs:40:5',
      'error: could not compile: /xrt/sandbox/src/shapes.rs:7:1 (the fixed path)',
      '/opt/xrt/sandboxes/x.rs and /xrt/sandbox-other/y.rs are not sandboxes',
    ].join('\n');
    const mapped = mapSandboxPaths(log, ROOT).split('\n');
    assert.equal(mapped[1], `${ROOT}/xrepotest_0f_test.go:12:5: undefined: Foo`);
    assert.equal(mapped[2], `see ${ROOT}/pricing/rules.go:3`);
    assert.equal(mapped[3], '/usr/lib/go/src/testing/testing.go:1689 +0x12');
    assert.equal(mapped[4], `  --> ${ROOT}/src/lib.rs:40:5`);
    assert.equal(mapped[5], `error: could not compile: ${ROOT}/src/shapes.rs:7:1 (the fixed path)`);
    assert.equal(mapped[6], '/opt/xrt/sandboxes/x.rs and /xrt/sandbox-other/y.rs are not sandboxes');
  });

  it('maps a placement (relative to the copy, or absolute in it) to a workspace path', () => {
    assert.deepEqual(workspacePathOf('pricing/xrepotest_ab_test.go', ROOT), { relPath: 'pricing/xrepotest_ab_test.go', path: path.join(ROOT, 'pricing', 'xrepotest_ab_test.go') });
    assert.deepEqual(workspacePathOf('/tmp/xrt-sandbox-1-q/tests/x_test.rs', ROOT), { relPath: 'tests/x_test.rs', path: path.join(ROOT, 'tests', 'x_test.rs') });
    assert.throws(() => workspacePathOf('../elsewhere/x_test.go', ROOT), /outside the workspace/);
  });
});

describe('Testing view: places in the test code', () => {
  it('finds where a compiler or runner points into the test file, not into other files', () => {
    const go = '# inventory\n./item.go:4:2: note\n./xrepotest_ab_test.go:12:5: undefined: Foo\n';
    assert.deepEqual(locateInTest(go, 'xrepotest_ab_test.go'), { line: 12, column: 5 });
    assert.deepEqual(locateInTest('    xrepotest_ab_test.go:9: got "a", want "b"', 'xrepotest_ab_test.go'), { line: 9 });
    assert.deepEqual(locateInTest('error[E0425]\n  --> tests/xrepotest_1.rs:3:9', 'xrepotest_1.rs'), { line: 3, column: 9 });
    // A longer name that merely ends the same way is another file.
    assert.equal(locateInTest('./my_xrepotest_ab_test.go:3:1: x', 'xrepotest_ab_test.go'), undefined);
    assert.equal(locateInTest('no locations here', 'xrepotest_ab_test.go'), undefined);
  });

  it('finds the line declaring a test, a subtest by its case name, a Rust test by its last path segment', () => {
    const code = ['package inventory', '', 'func TestStatus(t *testing.T) {', '\tcases := []struct{ name string }{', '\t\t{"expired"},', '\t}', '}', 'func TestStatusOK(t *testing.T) {}'].join('\n');
    assert.equal(lineOfTest(code, 'TestStatus'), 3);
    assert.equal(lineOfTest(code, 'TestStatusOK'), 8);
    assert.equal(lineOfTest(code, 'TestStatus/expired'), 5);
    assert.equal(lineOfTest('mod tests {\n    #[test]\n    fn it_works() {}\n}', 'tests::it_works'), 3);
    assert.equal(lineOfTest(code, 'TestMissing'), undefined);
  });

  it('keeps the end of a long log and says how much was cut', () => {
    assert.equal(tailOf('short', 10), 'short');
    assert.equal(tailOf('0123456789abcdef', 4), '[… 12 characters cut]\ncdef');
  });
});

describe('Testing view: candidates', () => {
  it('labels candidates by model, number and repair round', () => {
    assert.equal(candidateLabel('baseline', 1, 0), 'offline baseline test 1');
    assert.equal(candidateLabel('claude-sonnet-4-5', 2, 1), 'claude-sonnet-4-5 test 2 (repair 1)');
  });

  it('makes a compile failure an error, a failing assertion a failure, other non-passes errors', () => {
    const failedCase = { name: 'TestX', status: 'failed' as const };
    assert.equal(candidateState({ compiled: false, passed: false, cases: [] }), 'errored');
    assert.equal(candidateState({ compiled: true, passed: true, cases: [{ name: 'TestX', status: 'passed' }] }), 'passed');
    assert.equal(candidateState({ compiled: true, passed: false, cases: [failedCase] }), 'failed');
    assert.equal(candidateState({ compiled: true, passed: false, cases: [] }), 'errored');
    assert.equal(messageContext('failed'), 'xrepotest.failed');
    assert.equal(messageContext('errored'), 'xrepotest.errored');
  });
});

describe('Testing view: coverage of a run', () => {
  const status = { focalFile: '/w/item.go', functionName: 'Status', startLine: 7, endLine: 29 };

  it('lists each executable line once, covered when any candidate covered it, per focal function', () => {
    const acc = new CoverageAccumulator();
    acc.add({ ...status, focalLines: [{ line: 8, covered: true }, { line: 9, covered: false }, { line: 12, covered: false }] });
    acc.add({ ...status, focalLines: [{ line: 8, covered: true }, { line: 9, covered: true }, { line: 12, covered: false }] });
    acc.add({ focalFile: '/w/item.go', functionName: 'CategoryLabel', startLine: 36, endLine: 40, focalLines: [{ line: 37, covered: false }] });
    const [file, ...others] = acc.result();
    assert.equal(others.length, 0);
    assert.equal(file.file, '/w/item.go');
    assert.deepEqual(file.lines, [{ line: 8, covered: true }, { line: 9, covered: true }, { line: 12, covered: false }, { line: 37, covered: false }]);
    assert.deepEqual(file.functions, [
      { name: 'Status', startLine: 7, endLine: 29, covered: true },
      { name: 'CategoryLabel', startLine: 36, endLine: 40, covered: false },
    ]);
  });

  it('adds nothing for a candidate without a coverage report (it measured nothing)', () => {
    const acc = new CoverageAccumulator();
    acc.add({ ...status, focalLines: [] });
    assert.deepEqual(acc.result(), []);
  });
});

describe('Testing view: where an accepted test goes', () => {
  const focal = (relPath: string, functionName: string) => ({ relPath, functionName });

  it('names Go, Ruby and Julia files after the focal file and function, in the folder the run used', () => {
    assert.deepStrictEqual(acceptedPlacement('go', 'pricing/xrepotest_ab12_test.go', 'package pricing', focal('pricing/pricing.go', 'QuoteOrder')), {
      relPath: 'pricing/pricing_quote_order_test.go', code: 'package pricing', append: false, notes: [],
    });
    assert.strictEqual(acceptedPlacement('ruby', 'spec/xrepotest_ab12_spec.rb', 'x', focal('lib/bookshelf/shelf.rb', 'by_title?')).relPath, 'spec/shelf_by_title_spec.rb');
    const jl = acceptedPlacement('julia', 'test/xrepotest_ab12.jl', 'x', focal('src/descriptive.jl', 'trimmed_mean'));
    assert.strictEqual(jl.relPath, 'test/test_trimmed_mean.jl');
    assert.match(jl.notes.join(' '), /include\("test_trimmed_mean\.jl"\) to test\/runtests\.jl/);
  });

  it('appends a Rust test module to the focal file under a readable name', () => {
    const module = '\n\n#[cfg(test)]\nmod xrepotest_ab12cd {\n    use super::*;\n}\n';
    const r = acceptedPlacement('rust', 'src/shapes.rs', module, focal('src/shapes.rs', 'BoundingBox'));
    assert.strictEqual(r.append, true);
    assert.strictEqual(r.relPath, 'src/shapes.rs');
    assert.match(r.code, /mod bounding_box_tests \{/);
    assert.doesNotMatch(r.code, /xrepotest_/);
  });

  it('keeps PHP\'s class-named file', () => {
    assert.strictEqual(acceptedPlacement('php', 'tests/SlugifyTest.php', '<?php', focal('src/Slug.php', 'slugify')).relPath, 'tests/SlugifyTest.php');
  });

  it('turns function names into snake case', () => {
    assert.deepStrictEqual(['Status', 'QuoteOrder', 'by_title', 'HTTPServer', 'valid?'].map(snakeCase), ['status', 'quote_order', 'by_title', 'http_server', 'valid']);
  });
});
