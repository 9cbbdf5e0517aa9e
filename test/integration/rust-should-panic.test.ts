import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DockerExecutor } from '../../src/engine/execute/docker';
import { evaluateTest, type Evaluation } from '../../src/engine/execute/evaluate';
import { LocalExecutor } from '../../src/engine/execute/local';
import type { Executor } from '../../src/engine/execute/types';
import { extractRepository } from '../../src/engine/extract/extract';
import type { TaskRecord } from '../../src/engine/tasks/record';
import { TOOLS_OF } from '../helpers/evaluate';
import { engineForTests, languageImageForTests } from '../helpers/engine';
import { fixture } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';

/*
 * Issue 32, item 1: libtest prints a #[should_panic] test as `test m::x - should panic ... ok`. The
 * project's own Rust prompt asks for such tests; on both executors they must count like any other:
 * a module of correct ones passes, a wrong one (the call does not panic) is a failed assertion with
 * its coverage (never "tampering" for coverage without tests), a mixed module counts them all.
 */

const CORRECT = `#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic(expected = "empty length")]
    fn empty_is_refused() {
        parse_length("").unwrap();
    }

    #[test]
    #[should_panic(expected = "unknown unit")]
    fn unknown_unit_is_refused() {
        parse_length("3 furlongs").unwrap();
    }
}
`;

const WRONG = `#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic]
    fn metres_panic() {
        parse_length("2m").unwrap();
    }
}
`;

const MIXED = `#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn centimetres() {
        assert_eq!(parse_length("12.5cm"), Ok(125.0));
    }

    #[test]
    #[should_panic(expected = "negative length")]
    fn negative_is_refused() {
        parse_length("-1").unwrap();
    }

    #[test]
    #[ignore = "shows the reason form"]
    fn ignored_with_reason() {}
}
`;

let task: TaskRecord | undefined;
async function parseLengthTask(): Promise<TaskRecord> {
  if (!task) {
    const dir = fixture('geometry-rs');
    const { tasks } = await extractRepository(dir, { repository: { name: 'geometry-rs', url: dir, commit: null, path: dir } });
    task = tasks.find((t) => t.function_name === 'parse_length');
    assert.ok(task, 'parse_length is a task of geometry-rs');
  }
  return task;
}

function logs(e: Evaluation): string {
  return e.phases.map((p) => `$ ${p.argv.join(' ')} -> ${p.exitCode}\n${p.output.slice(-1500)}`).join('\n');
}

function checks(run: (code: string) => Promise<Evaluation>): void {
  it('a module of correct should_panic tests passes, both counted, with coverage', async function () {
    const e = await run(CORRECT);
    assert.equal(e.score.passed, true, `${e.score.reason}\n${logs(e)}`);
    assert.equal(e.testReport.ran, 2);
    assert.equal(e.testReport.passed, 2);
    assert.ok(e.score.coverage.covered.length > 0);
    assert.equal(e.score.failure, null);
  });

  it('a should_panic test whose call does not panic is a failed assertion with its coverage, not tampering', async function () {
    const e = await run(WRONG);
    assert.equal(e.score.passed, false);
    assert.equal(e.testReport.ran, 1);
    assert.equal(e.testReport.failed, 1);
    assert.match(e.testReport.cases[0].message ?? '', /did not panic as expected/);
    assert.equal(e.score.failure?.category, 'logic-assertion', `${e.score.reason}\n${logs(e)}`);
    assert.ok(e.score.coverage.covered.length > 0, 'the call ran: its lines are covered');
  });

  it('a mixed module counts every test: plain, should_panic, ignored with a reason', async function () {
    const e = await run(MIXED);
    assert.equal(e.score.passed, true, `${e.score.reason}\n${logs(e)}`);
    assert.deepEqual([e.testReport.ran, e.testReport.passed, e.testReport.skipped], [2, 2, 1]);
  });
}

describe('Rust #[should_panic] tests are scored like any other (issue 32, item 1)', function () {
  this.timeout(900_000);

  describe('local executor', () => {
    const local = new LocalExecutor();
    before(function () {
      const missing = TOOLS_OF.rust.filter((t) => !hasTool(t));
      if (missing.length) skipBecause(this, `the local executor needs ${missing.join(', ')}`);
    });
    checks(async (code) => evaluateTest(await parseLengthTask(), 'rust', code, { executor: local, repoDir: fixture('geometry-rs') }));
  });

  describe('docker executor', () => {
    let docker: Executor | undefined;
    let image = '';
    let cacheRoot = '';
    before(async function () {
      const engine = await engineForTests(this);
      image = await languageImageForTests(this, 'rust');
      cacheRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-test-kept-'));
      docker = await DockerExecutor.create({ engine, cacheRoot });
    });
    after(async () => {
      await (docker as DockerExecutor | undefined)?.close();
      if (cacheRoot) fs.rmSync(cacheRoot, { recursive: true, force: true });
    });
    checks(async (code) => evaluateTest(await parseLengthTask(), 'rust', code, { executor: docker!, repoDir: fixture('geometry-rs'), image }));
  });
});
