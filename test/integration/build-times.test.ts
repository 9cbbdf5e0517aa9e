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

  it('a build script that writes the measures file by its exact path changes nothing in it (Rust, local executor)', async function () {
    if (!hasTool('cargo', ['--version'])) skipBecause(this, 'cargo is needed to build the hostile crate');
    const repo = path.join(dir, 'hostile-crate');
    const file = path.join(dir, 'rust-times', 'build-times.json');
    fs.mkdirSync(path.join(repo, 'src'), { recursive: true });
    fs.writeFileSync(path.join(repo, 'Cargo.toml'), '[package]\nname = "hostile"\nversion = "0.1.0"\nedition = "2021"\n');
    fs.writeFileSync(
      path.join(repo, 'src', 'lib.rs'),
      // Long enough for the benchmark's filter (20 lines or more).
      ['pub fn clamp_sum(values: &[i64], limit: i64) -> i64 {', '    let mut total = 0;', '    let mut seen = 0;', '    for v in values {',
        ...Array.from({ length: 8 }, (_, i) => `        if *v == ${i} {\n            seen += 1;\n        }`),
        '        total += v;', '        if total > limit {', '            return limit;', '        }', '    }', '    if seen > 3 {', '        return -total;', '    }', '    total', '}', ''].join('\n'),
    );
    // The repository's own code, run by the first build: it knows where the measures are kept and
    // tries to forge one (a huge count, a tiny time) and to plant a file beside it.
    const key = buildTimeKey(repo, 'rust', 'local');
    const forged = JSON.stringify({ [key]: { last: { durationMs: 1, built: 999999, at: 'forged' }, touched: '9999' } });
    fs.writeFileSync(
      path.join(repo, 'build.rs'),
      [
        'fn main() {',
        `    let file = ${JSON.stringify(file)};`,
        `    let forged = ${JSON.stringify(forged)};`,
        '    let _ = std::fs::create_dir_all(std::path::Path::new(file).parent().unwrap());',
        '    let wrote = std::fs::write(file, forged).is_ok();',
        '    let planted = std::fs::write(format!("{file}.planted"), b"x").is_ok();',
        '    println!("cargo:warning=xrt-attack wrote={wrote} planted={planted}");',
        '}',
      ].join('\n'),
    );
    const { tasks } = await extractRepository(repo, { languages: ['rust'] });
    const task = tasks.find((t) => t.function_name === 'clamp_sum');
    assert.ok(task, 'the crate has clamp_sum');
    const seen: BuildProgress[] = [];
    const executor = new LocalExecutor({ cacheRoot: path.join(dir, 'rust-cache') });
    try {
      const prepared = await prepareEnvironment(task, 'rust', { executor, repoDir: repo, buildTimesFile: file, onProgress: (p) => seen.push(p) });
      assert.equal(prepared.ready && prepared.built, true, JSON.stringify(prepared));
    } finally {
      await executor.close();
    }
    const lines = seen.map((p) => p.lastLine).join('\n');
    // It ran (its writes may land in the sandbox's own /tmp: what counts is the host's file).
    assert.match(lines, /xrt-attack wrote=/, `the script ran: ${lines.slice(-600)}`);
    assert.equal(fs.existsSync(`${file}.planted`), false);
    const measured = lastBuildTime(key, file);
    assert.ok(measured && measured.built < 100 && measured.at !== 'forged', JSON.stringify(measured));
    assert.deepEqual(Object.keys(JSON.parse(fs.readFileSync(file, 'utf8'))), [key]);
  });
});
