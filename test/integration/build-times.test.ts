import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { lastBuildTime, buildTimeKey } from '../../src/engine/execute/build-times';
import { LocalExecutor } from '../../src/engine/execute/local';
import { prepareEnvironment, type BuildProgress } from '../../src/engine/execute/prepare-environment';
import { extractRepository } from '../../src/engine/extract/extract';
import { fixture } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';

/**
 * Issue 30: "estimates come from what this machine measured last time for this repository, else no
 * number". A real first build (go, the fixture, an empty warm cache) is measured; the next first build
 * of the same repository (another empty cache) carries that measure in its progress, the first none.
 */
describe('prepareEnvironment measures a first build and shows it the next time', function () {
  this.timeout(600_000);
  let dir: string;
  before(function () {
    if (!hasTool('go', ['version'])) skipBecause(this, 'go is needed to build the Go fixture');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-build-times-'));
  });
  after(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

  it('Go on the host: no number on the first build, its measure on the next one', async () => {
    const repo = fixture('inventory-go');
    const { tasks } = await extractRepository(repo, { languages: ['go'] });
    const task = tasks.find((t) => t.function_name === 'Status');
    assert.ok(task, 'the fixture has Status');
    const file = path.join(dir, 'build-times.json');
    const prepare = async (cacheRoot: string) => {
      const seen: BuildProgress[] = [];
      const executor = new LocalExecutor({ cacheRoot });
      try {
        const prepared = await prepareEnvironment(task, 'go', { executor, repoDir: repo, buildTimesFile: file, onProgress: (p) => seen.push(p) });
        return { prepared, seen };
      } finally {
        await executor.close();
      }
    };

    const first = await prepare(path.join(dir, 'cache-1'));
    assert.equal(first.prepared.ready, true, JSON.stringify(first.prepared));
    assert.equal(first.prepared.ready && first.prepared.built, true, 'an empty cache: the warm-up built');
    assert.ok(first.seen.length > 0, 'the build printed progress');
    assert.ok(first.seen.every((p) => p.last === undefined), 'nothing measured before: no number');
    const measured = lastBuildTime(buildTimeKey(repo, 'go', 'local'), file);
    assert.ok(measured, 'the completed build was measured');
    assert.ok(measured.durationMs > 0 && measured.durationMs <= first.prepared.durationMs, `${measured.durationMs} within ${first.prepared.durationMs}`);
    assert.equal(measured.built, first.seen.at(-1)!.built, 'the units the build named');

    // Built and kept: preparing again builds nothing, and a found build is no new measure.
    const again = await prepare(path.join(dir, 'cache-1'));
    assert.equal(again.prepared.ready && again.prepared.built, false);
    assert.deepEqual(lastBuildTime(buildTimeKey(repo, 'go', 'local'), file), measured);

    // Another empty cache: a first build again, and its progress says what last time measured.
    const second = await prepare(path.join(dir, 'cache-2'));
    assert.equal(second.prepared.ready && second.prepared.built, true);
    assert.ok(second.seen.length > 0);
    for (const p of second.seen) assert.deepEqual(p.last, { durationMs: measured.durationMs, built: measured.built });
  });
});
