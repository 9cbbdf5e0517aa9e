import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { evaluateTest } from '../../src/engine/execute/evaluate';
import { LocalExecutor } from '../../src/engine/execute/local';
import { memorySandboxParent } from '../../src/engine/execute/memory-folder';
import type { LanguageId } from '../../src/engine/parse/grammars';
import { FIXTURE_OF, TOOLS_OF, fixtureTask, generatedTest } from '../helpers/evaluate';
import { fixture } from '../helpers/paths';
import { filesHeldInSandboxesOf, sandboxesOf } from '../helpers/own-sandboxes';
import { hasTool, skipBecause } from '../helpers/skip';

/** Writes three times the memory limit the test gets into its temporary folder (inside the sandbox). */
const FILLS_ITS_FOLDER = `<?php
use PHPUnit\\Framework\\TestCase;
final class FillsMemoryTest extends TestCase
{
    public function testFill(): void
    {
        $f = getenv('TMPDIR') . '/fill';
        $mb = str_repeat('x', 1 << 20);
        for ($i = 0; $i < 768; $i++) {
            if (@file_put_contents($f, $mb, FILE_APPEND) === false) {
                break;
            }
        }
        $this->assertTrue(true);
    }
}
`;

/*
 * The local executor makes the sandboxes of languages whose phases write little (Go, PHP, Ruby) in a
 * tmpfs where one allows it (execute/memory-folder.ts): the copy's files cost a tenth there. Scores
 * must not change, and what a test writes there must count against its memory limit, not the host's RAM.
 */
describe('sandboxes in memory (local executor)', function () {
  this.timeout(300_000);
  const parent = memorySandboxParent();
  const inMemory = new LocalExecutor();
  const onDisk = new LocalExecutor({ memorySandboxes: false });
  before(function () {
    if (!parent) skipBecause(this, 'no tmpfs here allows it ($XDG_RUNTIME_DIR and /dev/shm: not tmpfs, noexec, read-only or under 1 GiB free)');
    if (!inMemory.confinement) skipBecause(this, 'bubblewrap is not installed: sandboxes stay on disk without it');
  });

  it('go, php and ruby sandboxes go to the memory folder; rust and julia stay in the temporary folder', async () => {
    const limits = { memoryBytes: 1 << 30, cpus: 1, pids: 256, outputBytes: 1 << 20 };
    for (const language of ['go', 'php', 'ruby'] as LanguageId[]) assert.equal((await inMemory.lease({ language, limits })).sandboxParent, parent, language);
    for (const language of ['rust', 'julia'] as LanguageId[]) assert.equal((await inMemory.lease({ language, limits })).sandboxParent, os.tmpdir(), language);
    assert.equal((await onDisk.lease({ language: 'php', limits })).sandboxParent, os.tmpdir(), 'turned off');
  });

  for (const language of ['go', 'php', 'ruby'] as LanguageId[]) {
    it(`${language}: the same scores in memory as on disk, and the sandbox is gone afterwards`, async function () {
      for (const t of TOOLS_OF[language]) if (!hasTool(t, t === 'go' ? ['version'] : ['--version'])) skipBecause(this, `${t} is not installed`);
      const task = await fixtureTask(language);
      for (const which of ['pass', 'fail', 'nocompile'] as const) {
        const code = generatedTest(language, which);
        const kept = await evaluateTest(task, language, code, { executor: inMemory, repoDir: fixture(FIXTURE_OF[language]), keepSandbox: true });
        try {
          assert.ok(kept.sandboxDir?.startsWith(`${parent}${path.sep}`), `${which}: made in ${kept.sandboxDir}`);
        } finally {
          if (kept.sandboxDir) fs.rmSync(kept.sandboxDir, { recursive: true, force: true });
        }
        const before = sandboxesOf(parent!);
        const mem = await evaluateTest(task, language, code, { executor: inMemory, repoDir: fixture(FIXTURE_OF[language]) });
        const disk = await evaluateTest(task, language, code, { executor: onDisk, repoDir: fixture(FIXTURE_OF[language]) });
        // A sandbox's name is random wherever it is made (the compiler's messages quote it).
        const named = (score: object): unknown => JSON.parse(JSON.stringify(score).replace(/\/[^"\s]*?\/xrt-sandbox-ns\d+-\d+-[A-Za-z0-9]+/g, '<sandbox>'));
        assert.deepEqual(named(mem.score), named(disk.score), which);
        await inMemory.close();
        // Only this process's sandboxes: another xrepotest process may make and remove its own meanwhile.
        assert.deepEqual(sandboxesOf(parent!).filter((n) => !before.includes(n)), [], `${which}: nothing of the slot is left in ${parent}`);
      }
    });
  }

  it("attack: a test that writes three times its memory limit into its sandbox is killed at the limit, and nothing of it stays in memory", async function () {
    for (const t of TOOLS_OF.php) if (!hasTool(t)) skipBecause(this, `${t} is not installed`);
    const before = sandboxesOf(parent!);
    const e = await evaluateTest(await fixtureTask('php'), 'php', FILLS_ITS_FOLDER, { executor: inMemory, repoDir: fixture(FIXTURE_OF.php), limits: { memoryBytes: 256 * 1024 ** 2 } });
    assert.equal(e.score.passed, false, 'writing 768 MB under a 256 MB limit cannot pass');
    assert.match(e.score.reason ?? '', /killed|memory/, e.score.reason ?? '');
    await inMemory.close();
    // What the slot wrote stays in memory only under a name of its sandbox or in a file a process still
    // holds open. The folder's free space would say it too, but other processes share the folder:
    // their sandboxes come and go meanwhile.
    assert.deepEqual(sandboxesOf(parent!).filter((n) => !before.includes(n)), [], `nothing of the slot is left in ${parent}`);
    assert.deepEqual(filesHeldInSandboxesOf(parent!), [], 'no process holds a file of the slot open');
  });
});
