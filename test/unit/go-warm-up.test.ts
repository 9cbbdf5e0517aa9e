import { strict as assert } from 'node:assert';
import { DEFAULT_TIMEOUTS, type Placement, type RunContext } from '../../src/engine/execute/toolchain';
import { adapterFor } from '../../src/engine/languages';

/** A Go slot's context at the sandbox /s, the focal package in pkg/ (nothing is run: commands are only made). */
function goContext(hostToolchains: boolean): RunContext {
  const sandbox = { dir: '/s', xrt: '/s/.xrt', out: '/s/.xrt/out', projectRoot: '/s', focalFile: '/s/pkg/item.go', focalRelPath: 'pkg/item.go', focalInCopy: 'pkg/item.go', skipped: [] };
  return { sandbox, timeouts: DEFAULT_TIMEOUTS, baseEnv: {}, writableDirs: [], overlays: [], fixedPath: null, hostToolchains, testCode: '', id: 'abc', language: 'go' } as unknown as RunContext;
}

/** The `go test …` commands of a phase (its own argv, or the lines of its shell script). */
function goTests(argv: string[]): string[] {
  const script = argv[0] === 'sh' && argv[1] === '-c' ? argv[2] : argv.join(' ');
  return script.split(/;|&&|\|\|/).map((c) => c.trim()).filter((c) => c.startsWith('go test'));
}

/**
 * bench:first-score (issue 30): a cold warm-up is most of the first score. What Go's warm-up builds is
 * worth its time only when a later phase reads it from the cache: the compile phase builds the test
 * binary with coverage, so the warm-up's test build is in that coverage mode, once.
 */
describe('Go warm-up: builds only what the compile phase reads', () => {
  const toolchain = adapterFor('go').toolchain;

  for (const host of [true, false]) {
    it(`builds the package's tests once, in the compile phase's coverage mode (${host ? 'host' : 'image'})`, () => {
      const ctx = goContext(host);
      const warm = toolchain.warmUp!(ctx, '/cache');
      const placement: Placement = { testFile: '/s/pkg/xrepotest_abc_test.go', writtenCode: '', testNames: ['TestX'], notes: [] };
      const compile = toolchain.compile(ctx, placement);
      const mode = /-covermode=(\w+)/.exec(compile.argv.join(' '))?.[1];
      assert.ok(mode, 'the compile phase builds with coverage');
      const tests = goTests(warm.argv);
      assert.equal(tests.length, 1, `one test build in the warm-up: ${tests.join(' | ')}`);
      assert.match(tests[0], new RegExp(`-covermode=${mode}\\b`), 'in the compile phase\'s coverage mode');
      assert.ok(warm.argv.includes('./pkg'), 'of the focal package');
    });
  }
});
