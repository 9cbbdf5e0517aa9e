import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { evaluateTest } from '../../src/engine/execute/evaluate';
import { LocalExecutor } from '../../src/engine/execute/local';
import { prepareEnvironment } from '../../src/engine/execute/prepare-environment';
import { extractRepository } from '../../src/engine/extract/extract';
import { forgetTest2json, localTest2json } from '../../src/engine/languages/go/test2json';
import { fixture } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';

/**
 * Issue 30: a prepared environment leaves nothing to build for the first test. On the host, Go's
 * phases run the test binary under our own test2json, built once per Go installation (15-35 s from
 * nothing here); it was built at the first test's placement, after the warm-up, so the first score
 * after a finished warm-up still paid for it (bench:first-score). It is now made beside the warm-up.
 * A process keeps the binary's path: one removed since is built again, not every later slot's failure.
 * On a machine where nothing is built yet it is built into the first warm-up's empty build cache, just
 * before the warm-up, which then compiles none of the standard library again; a cache anything else
 * has written is never used by that trusted build.
 */
describe('prepareEnvironment: the engine\'s own tools are made with the warm-up', function () {
  this.timeout(600_000);
  let home: string;
  let cacheRoot: string;
  let saved: string | undefined;

  before(function () {
    if (!hasTool('go', ['version'])) skipBecause(this, 'go is needed to prepare the Go fixture');
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-go-tools-'));
    // And no warm entry yet: the first warm-up's cache starts empty.
    cacheRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-go-warm-'));
    saved = process.env.XRT_GO_TOOLS_HOME;
    // A Go installation this process has never built test2json for: an empty tools folder.
    process.env.XRT_GO_TOOLS_HOME = home;
    forgetTest2json();
  });
  after(() => {
    if (saved === undefined) delete process.env.XRT_GO_TOOLS_HOME;
    else process.env.XRT_GO_TOOLS_HOME = saved;
    forgetTest2json();
    if (home) fs.rmSync(home, { recursive: true, force: true });
    if (cacheRoot) fs.rmSync(cacheRoot, { recursive: true, force: true });
  });

  it('Go on the host: test2json is built by prepareEnvironment, and the scored test after it finds it there', async () => {
    const repo = fixture('inventory-go');
    const { tasks } = await extractRepository(repo, { languages: ['go'] });
    const task = tasks.find((t) => t.function_name === 'Status');
    assert.ok(task, 'the fixture has Status');
    const executor = new LocalExecutor({ cacheRoot });
    try {
      const compiled: string[] = [];
      const prepared = await prepareEnvironment(task, 'go', { executor, repoDir: repo, buildTimesFile: path.join(cacheRoot, 'build-times.json'), onProgress: (p) => compiled.push(p.lastLine) });
      assert.equal(prepared.ready, true, JSON.stringify(prepared));
      const built = fs.readdirSync(home).filter((d) => fs.existsSync(path.join(home, d, 'test2json')));
      assert.equal(built.length, 1, `test2json was built in the tools folder by the preparation (found: ${fs.readdirSync(home).join(', ')})`);
      // Built into the warm-up's empty cache, before it: `go build -v` names each package it compiles,
      // and the standard library test2json needed was already there (built beside it, in a cache of
      // its own, the warm-up compiled runtime, fmt, … all over again).
      assert.ok(compiled.length > 0, 'the warm-up compiled the fixture\'s own package');
      assert.deepEqual(compiled.filter((l) => ['runtime', 'fmt', 'internal/abi', 'sync'].includes(l.trim())), [], `the warm-up compiled: ${compiled.join(', ')}`);
      assert.deepEqual(fs.readdirSync(path.join(home, built[0])).filter((f) => f.startsWith('gocache')), [], 'no build cache of its own was left in the tools folder');
      const entries = fs.readdirSync(path.join(cacheRoot, 'go')).filter((d) => fs.existsSync(path.join(cacheRoot, 'go', d, 'ready.json')));
      assert.equal(entries.length, 1, `one warm entry: ${fs.readdirSync(path.join(cacheRoot, 'go')).join(', ')}`);
      const entry = path.join(cacheRoot, 'go', entries[0]);
      const filesOf = (d: string): string[] => (fs.readdirSync(d, { recursive: true }) as string[]).sort();
      const entryFiles = filesOf(entry);
      const binary = path.join(home, built[0], 'test2json');
      const madeAt = fs.statSync(binary).mtimeMs;

      // A new process would find it on disk: forget this one's build, and the scored test does not build it again.
      forgetTest2json();
      const test = 'package inventory\n\nimport "testing"\n\nfunc TestStatusPrepared(t *testing.T) {\n\tif got := (Item{Expires: 5}).Status(1); got == "" {\n\t\tt.Fatal("empty status")\n\t}\n}\n';
      const e = await evaluateTest(task, 'go', test, { executor, repoDir: repo });
      assert.equal(e.environment, undefined, e.error);
      assert.equal(e.score.passed, true, e.score.reason ?? '');
      assert.equal(fs.statSync(binary).mtimeMs, madeAt, 'the same test2json served the scored test');
      assert.deepEqual(fs.readdirSync(home).filter((d) => fs.existsSync(path.join(home, d, 'test2json'))), built);

      // Its folder cleared while the process runs (a user emptying ~/.cache): the next slot builds it again instead of failing.
      for (const d of fs.readdirSync(home)) fs.rmSync(path.join(home, d), { recursive: true, force: true });
      const again = await evaluateTest(task, 'go', test, { executor, repoDir: repo });
      assert.equal(again.error, undefined, again.error);
      assert.equal(again.score.passed, true, again.score.reason ?? '');
      assert.ok(fs.existsSync(binary), 'built again where it was');
      // That build found a warm entry a warm-up had filled (it ran the package's TestMain): it used a cache of its own.
      assert.deepEqual(filesOf(entry), entryFiles, 'the ready warm entry is as the warm-up left it');
    } finally {
      await executor.close();
    }
  });

  it('the trusted build never uses a build cache that is not empty', async () => {
    forgetTest2json();
    for (const d of fs.readdirSync(home)) fs.rmSync(path.join(home, d), { recursive: true, force: true });
    // What a repository's TestMain could leave in a warm-up's cache; the tool must not be built from it.
    const planted = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-go-planted-'));
    try {
      fs.writeFileSync(path.join(planted, 'README'), 'planted');
      const tool = await localTest2json(planted);
      assert.ok('path' in tool, JSON.stringify(tool));
      assert.deepEqual(fs.readdirSync(planted), ['README'], 'nothing was read into or written to the planted cache');
      assert.deepEqual(fs.readdirSync(path.dirname(tool.path)).filter((f) => f.startsWith('gocache')), [], 'its own cache was removed after the build');
    } finally {
      fs.rmSync(planted, { recursive: true, force: true });
    }
  });
});
