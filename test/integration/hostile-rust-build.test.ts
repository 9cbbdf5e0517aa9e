import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { evaluateTest } from '../../src/engine/execute/evaluate';
import { LocalExecutor } from '../../src/engine/execute/local';
import { extractRepository } from '../../src/engine/extract/extract';
import { hasTool, skipBecause } from '../helpers/skip';

/*
 * A repository is hostile too: its build script runs in the trusted warm-up, in the slot's own
 * sandbox, before the test is placed. Whatever it leaves there (here: the focal file replaced by a
 * link to a file of the host that the sandbox shows read-only, so the crate still builds) must not
 * lead the engine, which runs unconfined, to read or write through it when it places the test.
 */
const LIB = `/// Adds two numbers and clamps the result.
pub fn add_clamped(a: i64, b: i64, limit: i64) -> i64 {
    let sum = a.saturating_add(b);
    if sum > limit {
        return limit;
    }
    if sum < -limit {
        return -limit;
    }
    let mut out = sum;
    for _ in 0..2 {
        out = out.max(-limit);
        out = out.min(limit);
    }
    let doubled = out * 2;
    if doubled == 0 {
        return 0;
    }
    let half = doubled / 2;
    if half != out {
        return out;
    }
    half
}
`;

const TEST = `#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn clamps() {
        assert_eq!(add_clamped(2, 3, 4), 4);
    }
}
`;

describe('hostile Rust build scripts', function () {
  this.timeout(600_000);
  let dir: string;
  let cacheRoot: string;
  let marker: string;

  before(function () {
    if (!hasTool('cargo')) skipBecause(this, 'cargo is not installed');
    if (!hasTool('bwrap')) skipBecause(this, 'bubblewrap is not installed: the warm-up would not be confined');
    // A host file the sandbox's view shows read-only (cargo's registry folder is bound into it), so a
    // link to it keeps the crate building, while the unconfined engine could write it.
    const registry = path.join(process.env.CARGO_HOME ?? path.join(os.homedir(), '.cargo'), 'registry');
    fs.mkdirSync(registry, { recursive: true });
    marker = path.join(registry, `xrt-hostile-build-${randomBytes(6).toString('hex')}.rs`);
    fs.writeFileSync(marker, LIB);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-hostile-build-'));
    fs.mkdirSync(path.join(dir, 'src'));
    fs.writeFileSync(path.join(dir, 'Cargo.toml'), '[package]\nname = "clamp"\nversion = "0.1.0"\nedition = "2021"\nbuild = "build.rs"\n\n[dependencies]\n');
    fs.writeFileSync(path.join(dir, 'src', 'lib.rs'), LIB);
    fs.writeFileSync(
      path.join(dir, 'build.rs'),
      `fn main() {\n    let _ = std::fs::remove_file("src/lib.rs");\n    std::os::unix::fs::symlink(${JSON.stringify(marker)}, "src/lib.rs").unwrap();\n}\n`,
    );
    cacheRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-hostile-build-cache-'));
  });

  after(() => {
    for (const p of [dir, cacheRoot]) if (p) fs.rmSync(p, { recursive: true, force: true });
    if (marker) fs.rmSync(marker, { force: true });
  });

  it('a focal file its build script replaced by a link is never read or written through the link', async () => {
    const { tasks } = await extractRepository(dir, { languages: ['rust'], filters: { minLines: 1 } });
    const task = tasks.find((t) => t.function_name === 'add_clamped');
    assert.ok(task, 'the focal function is extracted');
    const e = await evaluateTest(task, 'rust', TEST, { executor: new LocalExecutor({ cacheRoot }), repoDir: dir });
    assert.equal(fs.readFileSync(marker, 'utf8'), LIB, 'the host file behind the link is untouched');
    assert.equal(e.score.passed, false, 'no pass from a sandbox whose focal file is a link');
    assert.match(e.score.reason ?? '', /link|not a regular file|could not use/i, `the reason names the link: ${e.score.reason}`);
  });
});
