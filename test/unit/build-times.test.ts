import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildTimeKey, buildTimesFile, lastBuildTime, recordBuildTime } from '../../src/engine/execute/build-times';
import { lastTimeText, roughDuration } from '../../src/shared/build-estimate';

describe('Build times measured on this machine (the only estimates progress shows)', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-build-times-'));
    file = path.join(dir, 'xrepotest', 'build-times.json');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('lives in the user cache folder and keys a repository by folder, language and executor', () => {
    assert.equal(buildTimesFile({ XDG_CACHE_HOME: dir }), file);
    const k = buildTimeKey('/w/uuid', 'go', 'local');
    assert.match(k, /^[0-9a-f]{32}$/);
    assert.equal(buildTimeKey('/w/uuid/', 'go', 'local'), k, 'the same folder');
    assert.notEqual(buildTimeKey('/w/uuid', 'go', 'docker'), k);
    assert.notEqual(buildTimeKey('/w/uuid', 'rust', 'local'), k);
    assert.notEqual(buildTimeKey('/w/other', 'go', 'local'), k);
  });

  it('has no measure before a build completed; a build cut short counts towards the one that completes it', () => {
    const k = buildTimeKey('/w/hex', 'rust', 'local');
    assert.equal(lastBuildTime(k, file), undefined, 'nothing measured: no number');
    recordBuildTime(k, { durationMs: 300_000, built: 40 }, false, file);
    assert.equal(lastBuildTime(k, file), undefined, 'a cut build is not a measure of a whole one');
    recordBuildTime(k, { durationMs: 60_000, built: 12 }, true, file, new Date('2026-12-07T10:00:00Z'));
    assert.deepEqual(lastBuildTime(k, file), { durationMs: 360_000, built: 52, at: '2026-12-07T10:00:00.000Z' });
    // The next whole build replaces it, and nothing of the earlier cut part is added twice.
    recordBuildTime(k, { durationMs: 90_000, built: 52 }, true, file, new Date('2026-12-08T10:00:00Z'));
    assert.deepEqual(lastBuildTime(k, file), { durationMs: 90_000, built: 52, at: '2026-12-08T10:00:00.000Z' });
    // A cut build after a measure keeps the measure shown.
    recordBuildTime(k, { durationMs: 5_000, built: 1 }, false, file);
    assert.equal(lastBuildTime(k, file)?.durationMs, 90_000);
    assert.equal(lastBuildTime(buildTimeKey('/w/other', 'rust', 'local'), file), undefined, 'per repository');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  });

  it('a damaged or foreign file is no measure, and is replaced by the next record', () => {
    const k = buildTimeKey('/w/hex', 'rust', 'local');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    for (const text of ['not json', '[]', 'null', JSON.stringify({ [k]: { last: { durationMs: -1, built: 3, at: 'x' } } }), JSON.stringify({ [k]: { last: { durationMs: '9', built: 3, at: 'x' } } }), JSON.stringify({ '../x': { last: { durationMs: 9, built: 3, at: 'x' } } })]) {
      fs.writeFileSync(file, text);
      assert.equal(lastBuildTime(k, file), undefined, text);
    }
    recordBuildTime(k, { durationMs: 1_000, built: 2 }, true, file);
    assert.equal(lastBuildTime(k, file)?.durationMs, 1_000);
    assert.deepEqual(Object.keys(JSON.parse(fs.readFileSync(file, 'utf8'))), [k], 'the foreign key is gone');
  });

  it('keeps the newest 200 repositories', () => {
    for (let i = 0; i < 205; i++) recordBuildTime(buildTimeKey(`/w/r${i}`, 'go', 'local'), { durationMs: i, built: 0 }, true, file, new Date(Date.UTC(2026, 0, 1, 0, 0, i)));
    const kept = Object.keys(JSON.parse(fs.readFileSync(file, 'utf8')));
    assert.equal(kept.length, 200);
    assert.equal(lastBuildTime(buildTimeKey('/w/r0', 'go', 'local'), file), undefined, 'the oldest went');
    assert.equal(lastBuildTime(buildTimeKey('/w/r204', 'go', 'local'), file)?.durationMs, 204);
  });

  it('a cache folder that cannot be written changes nothing but the measure', () => {
    fs.writeFileSync(path.join(dir, 'xrepotest'), 'a file where the folder should be');
    assert.doesNotThrow(() => recordBuildTime(buildTimeKey('/w/a', 'go', 'local'), { durationMs: 1, built: 0 }, true, file));
    assert.equal(lastBuildTime(buildTimeKey('/w/a', 'go', 'local'), file), undefined);
  });

  it('says the measure in rough words', () => {
    assert.deepEqual([400, 41_400, 89_000, 91_000, 251_000, 3_600_000, 3_900_000].map(roughDuration), ['1 s', '41 s', '89 s', '2 min', '4 min', '1 h', '1 h 5 min']);
    assert.equal(lastTimeText({ durationMs: 251_000, built: 87 }, 'crates'), 'last time here: 87 crates in 4 min');
    assert.equal(lastTimeText({ durationMs: 251_000, built: 1 }, 'crates'), 'last time here: 1 crate in 4 min');
    assert.equal(lastTimeText({ durationMs: 30_000, built: 0 }, 'packages'), 'last time here: 30 s');
    assert.equal(lastTimeText({ durationMs: 30_000, built: 5 }, null), 'last time here: 30 s');
  });
});
