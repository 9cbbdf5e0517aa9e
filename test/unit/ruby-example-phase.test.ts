import { strict as assert } from 'node:assert';
import type { PhaseResult } from '../../src/engine/execute/types';
import { warmUpProblem } from '../../src/engine/languages/ruby/bundle';
import { definitionLines } from '../../src/engine/languages/ruby/definition-lines';
import { COUNTER } from '../helpers/ruby-counter';

/**
 * Ruby (issue 12, item 5): Cov counts the example phase only (no `def` header, no hook of the
 * project's), the warm-up decides `bundle exec` from a trusted `bundle check` and a probe of the spec
 * helper, and a bundle the tests cannot run without is an environment verdict, not the test's fault.
 */

describe('ruby: definition lines (the `def` header, run only when the file loads)', () => {
  it('leaves out the header when the body starts below it, keeps a one-line method', async () => {
    assert.deepEqual(await definitionLines(COUNTER, 2), [2], 'def self.reset!');
    assert.deepEqual(await definitionLines(COUNTER, 12), [12], 'def twice(x)');
    assert.deepEqual(await definitionLines(COUNTER, 17), [], 'def one; 1; end runs its line when called');
    assert.deepEqual(await definitionLines('def one = 1\n', 1), [], 'an endless method');
    assert.deepEqual(await definitionLines('def f(a,\n      b = 2)\n  a + b\nend\n', 1), [1, 2], 'a header over two lines');
    assert.deepEqual(await definitionLines('def f\n  # nothing yet\nend\n', 1), [1], 'an empty body');
    assert.deepEqual(await definitionLines('x = 1\n', 1), [], 'no method there');
  });
});

describe('ruby: warm-up verdicts', () => {
  const warm = (exitCode: number, output: string): PhaseResult => ({ phase: 'warm-up', argv: ['sh'], exitCode, signal: null, timedOut: false, outputTruncated: false, output, durationMs: 1 });

  it('a gem the spec helper cannot load is dependencies-unresolvable, naming the gem and the fix', () => {
    const p = warmUpProblem(warm(1, 'XRT_PROBE_MISSING pry\nXRT_PROBE_FAILED\n'), '/r');
    assert.equal(p?.cause, 'dependencies-unresolvable');
    assert.match(p!.reason, /cannot load pry/);
    assert.match(p!.reason, /bundle install/);
  });

  it('in a container, the fix is the repository environment image, not the docker executor it already runs in', () => {
    const onHost = warmUpProblem(warm(1, 'XRT_PROBE_MISSING pry\nXRT_PROBE_FAILED\n'), '/r');
    const inContainer = warmUpProblem(warm(1, 'XRT_PROBE_MISSING pry\nXRT_PROBE_FAILED\n'), '/r', true);
    assert.match(onHost!.reason, /use the docker executor/);
    assert.doesNotMatch(inContainer!.reason, /use the docker executor/);
    assert.match(inContainer!.reason, /xrepotest images build --repo \/r --lang ruby/);
  });

  it('with a Gemfile.lock whose bundle is missing, the reason says the bundle is not installed', () => {
    const p = warmUpProblem(warm(1, 'XRT_BUNDLE_NOT_INSTALLED Could not find rake-99.0 in locally installed gems\nAn error occurred while loading spec_helper.\ncannot load such file -- rake_helper\nXRT_PROBE_FAILED'), '/r');
    assert.equal(p?.cause, 'dependencies-unresolvable');
    assert.match(p!.reason, /bundle is not installed here .*rake-99\.0/);
  });

  it('anything else (a spec helper that raises) stays the default project-does-not-build', () => {
    assert.equal(warmUpProblem(warm(1, 'NameError: uninitialized constant Foo\nXRT_PROBE_FAILED'), '/r'), null);
    assert.equal(warmUpProblem(warm(0, 'XRT_PROBE_MISSING pry'), '/r'), null, 'a warm-up that passed is no problem');
  });
});
