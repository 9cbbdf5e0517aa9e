import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { evaluateTest, runContext } from '../../src/engine/execute/evaluate';
import { LocalExecutor } from '../../src/engine/execute/local';
import { createSandbox, removeSandbox } from '../../src/engine/execute/sandbox';
import { focalWithTest } from '../../src/engine/execute/toolchain';
import { rustToolchain } from '../../src/engine/languages/rust/toolchain';
import { runMutationTesting } from '../../src/engine/mutate/run';
import type { TaskRecord } from '../../src/engine/tasks/record';
import { hasTool, skipBecause } from '../helpers/skip';
import { extractGated, writeGatedCrate } from '../helpers/rust-gated';

/** A test as a model writes it: the wrapper module, `use super::*;`, a private function called by name. */
const PRIVATE_TEST = `#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn area_of_a_rectangle() {
        assert_eq!(hidden_area(3, 4), 12);
        assert_eq!(hidden_area(0, 9), 0);
    }
}
`;

describe('Rust placement: the test module goes at the end of the innermost module holding the focal item', function () {
  this.timeout(600_000);
  let dir: string;
  let tasks: Map<string, TaskRecord>;
  const executor = new LocalExecutor();
  before(async function () {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-placement-'));
    writeGatedCrate(dir);
    tasks = new Map((await extractGated(dir)).tasks.map((t) => [t.function_name, t]));
  });
  after(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

  it('places inside `mod shapes { mod inner { … } }`, says where, and the focal file is the task\'s with the module inserted', async () => {
    const task = tasks.get('hidden_area')!;
    const sandbox = createSandbox(dir, task, rustToolchain.manifests);
    try {
      const placement = await rustToolchain.place(runContext(task, 'rust', PRIVATE_TEST, sandbox, true));
      const placed = fs.readFileSync(sandbox.focalFile, 'utf8');
      assert.equal(placed, focalWithTest(task.file_content, placement));
      assert.ok(placement.insertedAt !== undefined && placement.insertedAt < task.file_content.length);
      // Just before the brace closing `mod inner`: what follows is that brace and then `mod shapes`'s rest.
      const after = task.file_content.slice(placement.insertedAt);
      assert.match(after, /^\}\n    #\[cfg\(feature = "fancy"\)\]/);
      assert.match(placement.writtenCode, /^\n\n#\[cfg\(test\)\]\nmod xrepotest_[0-9a-f]{12} \{\n/);
      assert.ok(placement.notes.some((n) => /end of the inline module holding hidden_area \(line \d+\)/.test(n)), placement.notes.join('; '));
      // A focal function at the file's top level still gets the module at the end of the file.
      const top = await rustToolchain.place(runContext(tasks.get('plain')!, 'rust', PRIVATE_TEST, createSandboxFor(tasks.get('plain')!), true));
      assert.equal(top.insertedAt, undefined);
    } finally {
      removeSandbox(sandbox);
    }
  });

  it('`use super::*;` reaches the private item: the test compiles, passes and covers every focal line', async function () {
    if (!hasTool('cargo')) skipBecause(this, 'cargo is not installed');
    const e = await evaluateTest(tasks.get('hidden_area')!, 'rust', PRIVATE_TEST, { executor, repoDir: dir });
    assert.equal(e.score.passed, true, JSON.stringify(e.score));
    assert.ok(e.score.coverage.executable.length > 0);
    assert.deepEqual(e.score.coverage.covered, e.score.coverage.executable);
    assert.equal(e.score.failure, null);
    // Called unqualified from the module it sits in: a strict invocation of the focal function.
    assert.deepEqual(e.score.invocation, { invoked: true, strict: true });
  });

  it('mutation testing applies mutants to the focal lines with the module kept inside the inline module', async function () {
    if (!hasTool('cargo')) skipBecause(this, 'cargo is not installed');
    const m = await runMutationTesting(tasks.get('hidden_area')!, 'rust', PRIVATE_TEST, { executor, repoDir: dir, maxMutants: 4 });
    assert.equal(m.error, undefined, m.error);
    assert.ok(m.mutants > 0);
    assert.ok(m.killed > 0, JSON.stringify(m.perMutant));
    assert.equal(m.unviable, m.perMutant.filter((p) => p.outcome === 'unviable').length);
  });

  it('a test module with no #[test] in it ran nothing: not compiled, with a reason, in N (never environment)', async function () {
    if (!hasTool('cargo')) skipBecause(this, 'cargo is not installed');
    const helperOnly = '#[cfg(test)]\nmod tests {\n    use super::*;\n    fn check() { assert_eq!(hidden_area(1, 1), 1); }\n}\n';
    const e = await evaluateTest(tasks.get('hidden_area')!, 'rust', helperOnly, { executor, repoDir: dir });
    assert.equal(e.score.compiled, false, JSON.stringify(e.score));
    assert.equal(e.score.passed, false);
    assert.equal(e.score.failure?.category, 'syntactic-compilation');
    assert.equal(e.score.failure?.rule, 'test-not-built');
    assert.match(e.score.reason ?? '', /no test of the test module ran in any test binary/);
    assert.equal(e.environment, undefined);
  });

  /** A sandbox the first test's `finally` does not remove: removed here at the end. */
  const extra: ReturnType<typeof createSandbox>[] = [];
  function createSandboxFor(task: TaskRecord): ReturnType<typeof createSandbox> {
    const s = createSandbox(dir, task, rustToolchain.manifests);
    extra.push(s);
    return s;
  }
  after(() => extra.forEach(removeSandbox));
});
