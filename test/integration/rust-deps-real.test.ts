import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkRepository } from '../../src/engine/doctor-repo';
import { evaluateTest } from '../../src/engine/execute/evaluate';
import { LocalExecutor } from '../../src/engine/execute/local';
import { extractRepository } from '../../src/engine/extract/extract';
import type { TaskRecord } from '../../src/engine/tasks/record';
import { PINNED, realRepository, removeRealRepository, type RealRepo } from '../helpers/real-repo';
import { hasTool, skipBecause } from '../helpers/skip';

/**
 * Published crates with ordinary dependencies and dev-dependencies, under the local executor: tests
 * written as a model writes them score as `cargo test` judges them natively (before the trusted fetch
 * and the host's caches, every one of them was "does not compile").
 */

/** once_cell's std implementation: a crate-private type, and the dev-dependency regex. */
const ONCE_CELL_TEST = `#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_initialize_sets_value_once() {
        let cell: OnceCell<String> = OnceCell::new();
        assert!(!cell.is_initialized());
        let r: Result<(), ()> = cell.initialize(|| Ok(String::from("v1.2.3")));
        assert!(r.is_ok());
        assert!(cell.is_initialized());
        let re = regex::Regex::new(r"^v\\d+\\.\\d+\\.\\d+$").unwrap();
        let value = unsafe { (*cell.value.get()).as_ref().unwrap() };
        assert!(re.is_match(value));
    }

    #[test]
    fn test_initialize_error_leaves_cell_empty() {
        let cell: OnceCell<u32> = OnceCell::new();
        let r: Result<(), &str> = cell.initialize(|| Err("boom"));
        assert_eq!(r, Err("boom"));
        assert!(!cell.is_initialized());
    }
}
`;

const SEMVER_PASS = `#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    #[test]
    fn test_matches_caret() {
        let cmp = Comparator::from_str("^1.2.3").unwrap();
        assert!(matches_caret(&cmp, &Version::parse("1.9.0").unwrap()));
        assert!(!matches_caret(&cmp, &Version::parse("2.0.0").unwrap()));
        let zero = Comparator::from_str("^0.2.3").unwrap();
        assert!(matches_caret(&zero, &Version::parse("0.2.9").unwrap()));
        assert!(!matches_caret(&zero, &Version::parse("0.3.0").unwrap()));
    }
}
`;

const SEMVER_FAIL = `#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    #[test]
    fn test_matches_caret_next_major() {
        let cmp = Comparator::from_str("^1.2.3").unwrap();
        assert!(matches_caret(&cmp, &Version::parse("2.0.0").unwrap()));
    }
}
`;

async function taskOf(dir: string, file: string, fn: string): Promise<TaskRecord> {
  const name = path.basename(dir);
  const { tasks } = await extractRepository(dir, { repository: { name, url: dir, commit: null, path: dir } });
  const task = tasks.find((t) => t.file_path === `${name}/${file}` && t.function_name === fn);
  if (!task) throw new Error(`no task ${fn} in ${file}`);
  return task;
}

/** `cargo test --lib` of a copy with the test appended (its module renamed: the file may have a `tests`). */
function nativeRun(dir: string, file: string, test: string): { passed: number; failed: number; status: number | null } {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-native-'));
  try {
    fs.cpSync(dir, copy, { recursive: true });
    fs.appendFileSync(path.join(copy, file), '\n' + test.replace(/^mod tests \{/m, 'mod xrt_native_tests {'));
    const r = spawnSync('cargo', ['test', '--lib', 'xrt_native_tests'], { cwd: copy, encoding: 'utf8', timeout: 900_000 });
    const m = /test result: \w+\. (\d+) passed; (\d+) failed/.exec(r.stdout);
    assert.ok(m, `native run printed no result:\n${r.stderr.slice(-2000)}`);
    return { passed: Number(m[1]), failed: Number(m[2]), status: r.status };
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
}

describe('Rust crates with dependencies from crates.io, local executor vs native cargo test', function () {
  this.timeout(1_800_000);
  const executor = new LocalExecutor();
  let got: RealRepo | undefined;

  beforeEach(function () {
    if (!hasTool('cargo')) skipBecause(this, 'cargo is not installed');
    if (!hasTool('bwrap')) skipBecause(this, 'bubblewrap is not installed');
  });
  afterEach(() => removeRealRepository(got));

  it('once_cell 1.20.2 (dev-dependencies regex, critical-section): a passing test using regex passes, as natively', async function () {
    got = await realRepository(PINNED.crateOnceCell);
    if ('unavailable' in got) skipBecause(this, got.unavailable);
    const task = await taskOf(got.dir, 'src/imp_std.rs', 'initialize');
    const ev = await evaluateTest(task, 'rust', ONCE_CELL_TEST, { executor, repoDir: got.dir });
    if (ev.environment && /reached/.test(ev.environment.reason)) skipBecause(this, ev.environment.reason);
    const native = nativeRun(got.dir, 'src/imp_std.rs', ONCE_CELL_TEST);
    assert.deepEqual({ passed: native.passed, failed: native.failed, status: native.status }, { passed: 2, failed: 0, status: 0 });
    assert.equal(ev.environment, undefined);
    assert.equal(ev.score.compiled, true, ev.score.reason ?? '');
    assert.equal(ev.score.passed, true, ev.score.reason ?? '');
    assert.equal(ev.testReport.passed, native.passed);
    assert.ok(ev.score.coverage.covered.length > 0);

    const doctor = await checkRepository(got.dir, { executor, languages: ['rust'] });
    assert.deepEqual(doctor.problems, []);
  });

  it('semver 1.0.26 (an optional dependency, a build script): passing and failing tests judged as natively', async function () {
    got = await realRepository(PINNED.crateSemver);
    if ('unavailable' in got) skipBecause(this, got.unavailable);
    const task = await taskOf(got.dir, 'src/eval.rs', 'matches_caret');
    for (const [test, want] of [[SEMVER_PASS, true], [SEMVER_FAIL, false]] as const) {
      const ev = await evaluateTest(task, 'rust', test, { executor, repoDir: got.dir });
      if (ev.environment && /reached/.test(ev.environment.reason)) skipBecause(this, ev.environment.reason);
      const native = nativeRun(got.dir, 'src/eval.rs', test);
      assert.equal(native.status === 0, want, 'the native verdict is not the one this test was written for');
      assert.equal(ev.score.compiled, true, ev.score.reason ?? '');
      assert.equal(ev.score.passed, want, ev.score.reason ?? '');
      assert.deepEqual([ev.testReport.passed, ev.testReport.failed], [native.passed, native.failed]);
      if (!want) assert.equal(ev.score.failure?.category, 'logic-assertion');
    }
  });
});
