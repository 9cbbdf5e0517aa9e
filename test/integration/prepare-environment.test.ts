import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { evaluateTest } from '../../src/engine/execute/evaluate';
import { LocalExecutor } from '../../src/engine/execute/local';
import { prepareEnvironment } from '../../src/engine/execute/prepare-environment';
import { extractRepository } from '../../src/engine/extract/extract';
import { fixture } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';

/**
 * Issue 30: a prepared environment leaves nothing to build for the first test. Go's test phase once ran
 * the test binary under a test2json the engine built from Go's source, once per Go installation (15-35
 * s from nothing here; 10 s inside a machine's first warm-up even when it shared the warm-up's cache).
 * The engine now reads the binary's `-test.v=test2json` output itself (languages/go/test-events.ts):
 * no tool of its own is built, anywhere, and the first score after the warm-up compiles only the test.
 */
describe('prepareEnvironment: nothing of the engine\'s own is built for the first Go test', function () {
  this.timeout(600_000);
  let cacheHome: string;
  let cacheRoot: string;
  const saved: Record<string, string | undefined> = {};

  before(function () {
    if (!hasTool('go', ['version'])) skipBecause(this, 'go is needed to prepare the Go fixture');
    // Where the old build put its tools (~/.cache/xrepotest/go-tools), and no warm entry yet.
    cacheHome = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-cache-home-'));
    cacheRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-go-warm-'));
    for (const k of ['XDG_CACHE_HOME', 'XRT_GO_TOOLS_HOME']) saved[k] = process.env[k];
    process.env.XDG_CACHE_HOME = cacheHome;
    delete process.env.XRT_GO_TOOLS_HOME;
  });
  after(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    if (cacheHome) fs.rmSync(cacheHome, { recursive: true, force: true });
    if (cacheRoot) fs.rmSync(cacheRoot, { recursive: true, force: true });
  });

  it('Go on the host: the warm-up builds the standard library itself, and the scored test after it compiles and runs only the test', async () => {
    const repo = fixture('inventory-go');
    const { tasks } = await extractRepository(repo, { languages: ['go'] });
    const task = tasks.find((t) => t.function_name === 'Status');
    assert.ok(task, 'the fixture has Status');
    const executor = new LocalExecutor({ cacheRoot });
    try {
      const compiled: string[] = [];
      const prepared = await prepareEnvironment(task, 'go', { executor, repoDir: repo, buildTimesFile: path.join(cacheRoot, 'build-times.json'), onProgress: (p) => compiled.push(p.lastLine) });
      assert.equal(prepared.ready, true, JSON.stringify(prepared));
      // From an empty cache the warm-up compiles the standard library (no earlier build of a tool did it).
      assert.ok(compiled.some((l) => l.trim() === 'runtime'), `the warm-up compiled: ${compiled.join(', ')}`);
      const entries = fs.readdirSync(path.join(cacheRoot, 'go')).filter((d) => fs.existsSync(path.join(cacheRoot, 'go', d, 'ready.json')));
      assert.equal(entries.length, 1, `one warm entry: ${fs.readdirSync(path.join(cacheRoot, 'go')).join(', ')}`);
      const entry = path.join(cacheRoot, 'go', entries[0]);
      const filesOf = (d: string): string[] => (fs.readdirSync(d, { recursive: true }) as string[]).sort();
      const entryFiles = filesOf(entry);

      const test = 'package inventory\n\nimport "testing"\n\nfunc TestStatusPrepared(t *testing.T) {\n\tif got := (Item{Expires: 5}).Status(1); got == "" {\n\t\tt.Fatal("empty status")\n\t}\n}\n';
      const e = await evaluateTest(task, 'go', test, { executor, repoDir: repo });
      assert.equal(e.environment, undefined, e.error);
      assert.equal(e.score.passed, true, e.score.reason ?? '');
      assert.deepEqual(e.testReport.cases.map((c) => [c.name, c.status]), [['TestStatusPrepared', 'passed']]);
      assert.deepEqual(e.phases.map((p) => p.phase), ['compile', 'test'], 'the warm entry was ready: no warm-up, no tool build');
      const testPhase = e.phases.find((p) => p.phase === 'test')!;
      assert.deepEqual(testPhase.argv.filter((a) => path.basename(a) === 'test2json'), [], `no test2json runs: ${testPhase.argv.join(' ')}`);
      // The engine's events, as test2json wrote them.
      assert.match(testPhase.output, /^\{"Action":"start","Package":"example\.com\/inventory"\}\n/);
      assert.ok(!fs.existsSync(path.join(cacheHome, 'xrepotest', 'go-tools')), 'no tools folder was made');
      assert.deepEqual(filesOf(entry), entryFiles, 'the ready warm entry is as the warm-up left it');
    } finally {
      await executor.close();
    }
  });
});
