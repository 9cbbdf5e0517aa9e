import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadGenerations } from '../../src/engine/tasks/generations';
import { loadTasks } from '../../src/engine/tasks/load';
import { REPO_ROOT } from '../helpers/paths';
import { tmpDirPerTest, writeJsonl } from '../helpers/run-folders';

describe('hostile run folders and reports', function () {
  this.timeout(300_000);
  let dir: string;
  tmpDirPerTest('xrt-hostile-runs-', (d) => (dir = d));

  describe('generations: one slot, one line', () => {
    it('numbers lines without a sample after the earlier ones, and names a line that repeats a numbered slot', async () => {
      const tasks = path.join(dir, 'tasks.jsonl');
      fs.writeFileSync(tasks, fs.readFileSync(path.join(REPO_ROOT, 'examples/fixtures/tasks.jsonl'), 'utf8').split('\n')[0] + '\n');
      const { tasks: loaded } = await loadTasks([tasks]);
      const t = loaded[0].task;
      const gens = path.join(dir, 'gens.jsonl');
      writeJsonl(gens, [
        { task_id: t.task_id, test_code: 'a' },
        { task_id: t.task_id, response: ['b', 'c'], status: 'success' },
        { task_id: t.task_id, sample: 1, test_code: 'd' },
      ]);
      const { generations, problems } = await loadGenerations([gens], loaded);
      assert.deepEqual(generations.map((g) => [g.sample, g.testCode]), [[0, 'a'], [1, 'b'], [2, 'c'], [1, 'd']]);
      assert.equal(problems.length, 1);
      assert.equal(problems[0].line, 3);
      assert.match(problems[0].message, /sample 1 \(round 0\) of this task is also on an earlier line/);
    });

    it("keeps a task whose release-shaped line has an empty response list as one slot with no test (N does not shrink)", async () => {
      const tasks = path.join(dir, 'tasks.jsonl');
      fs.writeFileSync(tasks, fs.readFileSync(path.join(REPO_ROOT, 'examples/fixtures/tasks.jsonl'), 'utf8').split('\n')[0] + '\n');
      const { tasks: loaded } = await loadTasks([tasks]);
      const gens = path.join(dir, 'gens.jsonl');
      writeJsonl(gens, [{ task_id: loaded[0].task.task_id, response: [], status: 'success' }]);
      const { generations, problems } = await loadGenerations([gens], loaded);
      assert.deepEqual(problems, []);
      assert.deepEqual(generations.map((g) => [g.sample, g.testCode]), [[0, '']]);
    });
  });

});
