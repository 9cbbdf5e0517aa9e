import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { evaluateTest } from '../../src/engine/execute/evaluate';
import { LocalExecutor } from '../../src/engine/execute/local';
import { extractRepository } from '../../src/engine/extract/extract';
import { localPhpunitRunners } from '../../src/engine/languages/php/runners';
import { hasTool, skipBecause } from '../helpers/skip';

describe('PHPUnit runner by composer.json constraint', function () {
  this.timeout(180_000);

  describe('through the local executor', () => {
    let tmp: string;
    before(function () {
      if (!hasTool('php') || !hasTool('phpunit')) skipBecause(this, 'php and phpunit are needed (scripts/setup.sh)');
    });
    beforeEach(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-php-runner-'))));
    afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

    async function project(constraint: string): Promise<Awaited<ReturnType<typeof extractRepository>>['tasks'][number]> {
      fs.mkdirSync(path.join(tmp, 'src'));
      fs.writeFileSync(path.join(tmp, 'composer.json'), JSON.stringify({ name: 'x/adder', 'require-dev': { 'phpunit/phpunit': constraint }, autoload: { 'psr-4': { 'Adder\\': 'src/' } } }));
      fs.writeFileSync(path.join(tmp, 'src', 'Adder.php'), '<?php\nnamespace Adder;\n\nfinal class Adder\n{\n    public static function add(int $a, int $b): int\n    {\n        if ($a < 0) {\n            return $b;\n        }\n        return $a + $b;\n    }\n}\n');
      const { tasks } = await extractRepository(tmp, { repository: { name: 'adder', url: tmp, commit: null, path: tmp }, filters: { minLines: 1 } });
      assert.equal(tasks.length, 1);
      return tasks[0];
    }

    const attributeTest = [
      '<?php',
      'use Adder\\Adder;',
      'use PHPUnit\\Framework\\Attributes\\DataProvider;',
      'use PHPUnit\\Framework\\TestCase;',
      'final class AdderTest extends TestCase',
      '{',
      '    public static function sums(): array',
      '    {',
      '        return [[1, 2, 3], [-1, 5, 5]];',
      '    }',
      '',
      '    #[DataProvider(\'sums\')]',
      '    public function testAdd(int $a, int $b, int $sum): void',
      '    {',
      '        $this->assertSame($sum, Adder::add($a, $b));',
      '    }',
      '}',
    ].join('\n');

    it('no runner within the constraint: an environment verdict before anything runs', async () => {
      const task = await project('^12.5 || ^13.3');
      const e = await evaluateTest(task, 'php', attributeTest, { executor: new LocalExecutor(), repoDir: tmp });
      assert.equal(e.environment?.cause, 'runner-mismatch', e.error);
      assert.equal(e.score.failure?.category, 'environment');
      assert.deepEqual(e.phases, [], 'nothing ran');
      assert.match(e.environment?.reason ?? '', /\^12\.5 \|\| \^13\.3/);
    });

    it('a package requiring PHPUnit 11 runs on the project-local 11: its #[DataProvider] test passes with full coverage', async function () {
      if (!localPhpunitRunners().some((r) => r.major === 11)) skipBecause(this, 'no project-local PHPUnit 11 (bash scripts/setup-phpunit.sh)');
      const task = await project('^11.5 || ^12.5');
      const e = await evaluateTest(task, 'php', attributeTest, { executor: new LocalExecutor(), repoDir: tmp });
      const log = e.phases.map((p) => p.output).join('\n');
      assert.equal(e.environment, undefined, e.error);
      assert.match(log, /PHPUnit 11\.5/);
      assert.equal(e.score.passed, true, log);
      assert.equal(e.testReport.ran, 2, 'both data sets ran');
      assert.deepEqual(e.score.coverage.covered, e.score.coverage.executable);
      assert.equal(e.score.coverage.executable.length, 3, JSON.stringify(e.score.coverage));
      // PHPUnit 11 refuses a provider that is not static: its own error, outside the JUnit report, not tampering.
      const nonStatic = attributeTest.replace('public static function sums', 'public function sums');
      const refused = await evaluateTest(task, 'php', nonStatic, { executor: new LocalExecutor(), repoDir: tmp });
      assert.equal(refused.score.passed, false);
      assert.notEqual(refused.score.failure?.category, 'tampering', refused.score.reason ?? '');
      assert.equal(refused.testReport.outsideErrors, 1);
    });

    it('a package requiring PHPUnit 9 keeps the host runner (its annotations work, attributes are ignored as natively)', async () => {
      const task = await project('^9.6');
      const annotated = attributeTest.replace("    #[DataProvider('sums')]", '    /** @dataProvider sums */');
      const e = await evaluateTest(task, 'php', annotated, { executor: new LocalExecutor(), repoDir: tmp });
      const log = e.phases.map((p) => p.output).join('\n');
      assert.match(log, /PHPUnit 9\./);
      assert.equal(e.score.passed, true, log);
      const ignored = await evaluateTest(task, 'php', attributeTest, { executor: new LocalExecutor(), repoDir: tmp });
      assert.equal(ignored.score.passed, false, 'PHPUnit 9 calls testAdd without arguments, as it would natively');
      assert.notEqual(ignored.score.failure?.category, 'environment');
    });
  });
});
