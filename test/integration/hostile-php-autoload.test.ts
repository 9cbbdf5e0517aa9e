import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { evaluateTest } from '../../src/engine/execute/evaluate';
import { LocalExecutor } from '../../src/engine/execute/local';
import { extractRepository } from '../../src/engine/extract/extract';
import { phpAutoloaderSource } from '../../src/engine/languages/php/autoload';
import { CLASSMAP_LIMITS, scanClassmap } from '../../src/engine/languages/php/classmap';
import { phpTamperingRules } from '../../src/engine/languages/php/tampering';
import type { TestReport } from '../../src/engine/score/types';
import { hasTool, skipBecause } from '../helpers/skip';

/**
 * composer.json is the repository's, so its classmap, files and PSR paths are attacker controlled:
 * absolute paths, `..`, links out of the repository, trees too big to scan. The classmap scan and the
 * autoloader we write from them must refuse or bound each, and still load what an honest project
 * declares (classes, interfaces, traits, enums, namespaced or not) so a test using it is not blamed.
 */

function write(root: string, rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

describe('hostile composer.json paths (PHP classmap and files)', function () {
  this.timeout(120_000);
  let tmp: string;
  let project: string;
  let outside: string;

  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-php-autoload-'));
    project = path.join(tmp, 'project');
    outside = path.join(tmp, 'outside');
    fs.mkdirSync(project);
    write(outside, 'Secret.php', '<?php\nclass OutsideSecret {}\n');
    write(outside, 'deep/Other.php', '<?php\nnamespace Out;\nclass Other {}\n');
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('refuses absolute classmap paths, .., vendor/ and NUL bytes, and says so', async () => {
    const composer = { autoload: { classmap: [outside, path.join(outside, 'Secret.php'), '../outside', 'lib/../../outside', 'vendor/x', 'a\0b'] } };
    write(project, 'vendor/x/V.php', '<?php\nclass FromVendor {}\n');
    const map = await scanClassmap(project, composer);
    assert.deepEqual([...map.classes.keys()], [], 'nothing outside the project (or under vendor/) is mapped');
    assert.equal(map.notes.filter((n) => /refused/.test(n)).length, 6, map.notes.join('\n'));
    assert.ok(map.notes.some((n) => /absolute/.test(n)) && map.notes.some((n) => /'\.\.'/.test(n)) && map.notes.some((n) => /vendor/.test(n)));
  });

  it('does not follow links out of the repository: a linked folder, a linked file, a folder on the way', async () => {
    fs.symlinkSync(outside, path.join(project, 'lib'));
    write(project, 'legacy/Real.php', '<?php\nclass RealLegacy {}\n');
    fs.symlinkSync(path.join(outside, 'Secret.php'), path.join(project, 'legacy', 'Linked.php'));
    fs.symlinkSync(outside, path.join(project, 'legacy', 'linkdir'));
    const map = await scanClassmap(project, { autoload: { classmap: ['lib', 'lib/deep', 'legacy'] } });
    assert.deepEqual([...map.classes.entries()], [['RealLegacy', 'legacy/Real.php']]);
    assert.ok(map.notes.some((n) => /"lib".*symbolic link/.test(n)), map.notes.join('\n'));
    assert.ok(map.notes.some((n) => /"lib\/deep".*symbolic link/.test(n)), map.notes.join('\n'));
  });

  it('bounds a huge tree: files, entries and depth, and says where it stopped', async () => {
    for (let i = 0; i < 60; i++) write(project, `gen/f${String(i).padStart(3, '0')}.php`, `<?php\nclass Gen${i} {}\n`);
    let deep = 'deep';
    for (let i = 0; i < 12; i++) deep += `/d${i}`;
    write(project, `${deep}/Deep.php`, '<?php\nclass TooDeep {}\n');
    const few = await scanClassmap(project, { autoload: { classmap: ['gen'] } }, { ...CLASSMAP_LIMITS, maxFiles: 25 });
    assert.equal(few.classes.size, 25);
    assert.ok(few.notes.some((n) => /over 25 PHP files/.test(n)), few.notes.join('\n'));
    const visits = await scanClassmap(project, { autoload: { classmap: ['gen'] } }, { ...CLASSMAP_LIMITS, maxVisited: 10 });
    assert.ok(visits.classes.size <= 10 && visits.notes.some((n) => /over 10 entries/.test(n)), visits.notes.join('\n'));
    const shallow = await scanClassmap(project, { autoload: { classmap: ['deep'] } }, { ...CLASSMAP_LIMITS, maxDepth: 5 });
    assert.equal(shallow.classes.has('TooDeep'), false);
    assert.ok(shallow.notes.some((n) => /folders deep/.test(n)), shallow.notes.join('\n'));
    const bytes = await scanClassmap(project, { autoload: { classmap: ['gen'] } }, { ...CLASSMAP_LIMITS, maxFileBytes: 10 });
    assert.equal(bytes.classes.size, 0, 'files over the per-file cap are skipped');
  });

  it('survives a composer.json of the wrong shape', async () => {
    for (const composer of [{ autoload: { classmap: 7 } }, { autoload: { classmap: { a: 'b' } } }, { autoload: 'x' }, { 'autoload-dev': { classmap: [null, 3, ['x']] } }]) {
      const map = await scanClassmap(project, composer as never);
      assert.equal(map.classes.size, 0);
      assert.doesNotThrow(() => phpAutoloaderSource(composer as never, project, map));
    }
  });

  it('leaves hostile files and PSR folders out of the autoloader', () => {
    const source = phpAutoloaderSource(
      {
        autoload: { files: ['/etc/passwd', '../outside/Secret.php', 'ok/helpers.php'], 'psr-4': { 'Evil\\': ['/etc', '../outside'], 'Good\\': 'src/' } },
        'autoload-dev': { 'psr-0': { Old_: '../../x' } },
      },
      project,
    );
    assert.ok(!source.includes('/etc/passwd') && !source.includes('../outside') && !source.includes("'/etc'") && !source.includes('../../x'), source);
    assert.ok(source.includes("'ok/helpers.php'") && source.includes("['Good\\\\', 'src']"), source);
  });

  it('maps classes, interfaces, traits and enums of both namespace forms, and PHP loads them', async function () {
    if (!hasTool('php')) skipBecause(this, 'php is not installed');
    write(project, 'legacy/Things.php', [
      '<?php',
      'namespace App\\Legacy;',
      'interface Shape {}',
      'trait Named { public function name(): string { return "n"; } }',
      'enum Suit: string { case Hearts = "h"; }',
      'final class Circle implements Shape { use Named; }',
    ].join('\n'));
    write(project, 'legacy/braced.inc', '<?php\nnamespace A { class InA {} }\nnamespace B\\C { abstract class InC {} }\nnamespace { class Globalish {} }\n');
    write(project, 'legacy/cond.php', "<?php\nif (!class_exists('Polyfilled')) {\n  class Polyfilled {}\n}\n");
    write(project, "legacy/o'quote.php", '<?php\nclass Quoted {}\n');
    write(project, 'legacy/notes.txt', 'class NotPhp {}');
    write(project, 'single.php', '<?php\nclass SingleFile {}\n');
    write(project, 'helpers.php', '<?php\nfunction xrt_helper(): int { return 42; }\n');
    const composer = { autoload: { classmap: ['legacy/', 'single.php'], files: ['helpers.php', 'missing.php'] } };
    const map = await scanClassmap(project, composer);
    assert.deepEqual([...map.classes.keys()].sort(), ['A\\InA', 'App\\Legacy\\Circle', 'App\\Legacy\\Named', 'App\\Legacy\\Shape', 'App\\Legacy\\Suit', 'B\\C\\InC', 'Globalish', 'Polyfilled', 'Quoted', 'SingleFile']);
    const loader = path.join(tmp, 'autoload.php');
    fs.writeFileSync(loader, phpAutoloaderSource(composer, project, map));
    const probe = path.join(tmp, 'probe.php');
    fs.writeFileSync(probe, [
      '<?php',
      `require ${JSON.stringify(loader)};`,
      '$c = new App\\Legacy\\Circle();',
      'echo $c->name(), $c instanceof App\\Legacy\\Shape ? "1" : "0", App\\Legacy\\Suit::Hearts->value;',
      'echo class_exists("B\\\\C\\\\InC") ? "y" : "n", class_exists("Quoted") ? "q" : "-", xrt_helper();',
    ].join("\n"));
    const run = spawnSync('php', [probe], { encoding: 'utf8' });
    assert.equal(run.stdout, 'n1hyq42', run.stderr + run.stdout);
  });

  it('tests inherited from the package\'s own test class are ours; any other name the report adds is still unknown', async () => {
    write(project, 'composer.json', JSON.stringify({ 'autoload-dev': { 'psr-4': { 'Pkg\\Tests\\': 'tests/' } } }));
    write(project, 'src/Focal.php', '<?php\nnamespace Pkg;\nclass Focal {}\n');
    write(project, 'tests/Base/GrandTest.php', '<?php\nnamespace Pkg\\Tests\\Base;\nuse PHPUnit\\Framework\\TestCase;\nabstract class GrandTest extends TestCase { public function testFromGrandparent(): void {} }\n');
    write(project, 'tests/Base/ParentTest.php', '<?php\nnamespace Pkg\\Tests\\Base;\nabstract class ParentTest extends GrandTest { public function testFromParent(): void {} }\n');
    write(outside, 'Evil.php', '<?php\nnamespace Pkg\\Tests;\nabstract class Linked { public function testFromParent(): void {} }\n');
    fs.symlinkSync(path.join(outside, 'Evil.php'), path.join(project, 'tests', 'Linked.php'));
    const ours = '<?php\nnamespace Pkg\\Tests;\nuse Pkg\\Tests\\Base\\ParentTest;\nclass OurXrt1Test extends ParentTest { public function data(): array { return []; } }\n';
    const report = (names: string[]): TestReport => ({ ran: names.length, passed: names.length, failed: 0, errored: 0, skipped: 0, outsideErrors: 0, cases: names.map((name) => ({ name, status: 'passed' as const })) });
    const sandbox = { dir: project, focalFile: path.join(project, 'src', 'Focal.php') };
    const check = (code: string, names: string[]) => phpTamperingRules.unknownTests!(code, report(names), sandbox);
    assert.equal(await check(ours, ['Pkg\\Tests\\OurXrt1Test::testFromParent with data set #0', 'Pkg\\Tests\\OurXrt1Test::testFromGrandparent']), null);
    assert.equal((await check(ours, ['Pkg\\Tests\\OurXrt1Test::testForged']))?.rule, 'php-unknown-test', 'a name no parent declares');
    assert.equal((await check(ours, ['Pkg\\Tests\\Base\\ParentTest::testFromParent']))?.rule, 'php-unknown-test', 'the parent class itself is not ours');
    const direct = ours.replace('extends ParentTest', 'extends \\PHPUnit\\Framework\\TestCase');
    assert.equal((await check(direct, ['Pkg\\Tests\\OurXrt1Test::testFromParent']))?.rule, 'php-unknown-test', 'not inherited when the class extends TestCase');
    const linked = ours.replace('use Pkg\\Tests\\Base\\ParentTest;', 'use Pkg\\Tests\\Linked as ParentTest;');
    assert.equal((await check(linked, ['Pkg\\Tests\\OurXrt1Test::testFromParent']))?.rule, 'php-unknown-test', 'a parent reached through a link out is not read');
    assert.equal((await phpTamperingRules.unknownTests!(ours, report(['Pkg\\Tests\\OurXrt1Test::testFromParent'])))?.rule, 'php-unknown-test', 'without the sandbox nothing is inherited');
  });

  it('a generated test using classmap classes and a files helper passes, not "class not found" (local executor)', async function () {
    if (!hasTool('php') || !hasTool('phpunit')) skipBecause(this, 'php and phpunit are needed (scripts/setup.sh)');
    write(project, 'composer.json', JSON.stringify({ name: 'x/legacy', autoload: { 'psr-4': { 'Acme\\': 'src/' }, classmap: ['legacy/'], files: ['src/functions.php'] } }));
    write(project, 'src/Calc.php', '<?php\nnamespace Acme;\n\nclass Calc\n{\n    public function twice(int $x): int\n    {\n        return \\Legacy_Doubler::apply($x);\n    }\n}\n');
    write(project, 'src/functions.php', '<?php\nfunction acme_offset(): int { return 1; }\n');
    write(project, 'legacy/Legacy_Doubler.class.php', '<?php\nclass Legacy_Doubler\n{\n    public static function apply(int $x): int\n    {\n        return 2 * $x;\n    }\n}\n');
    const { tasks } = await extractRepository(project, { repository: { name: 'legacy', url: project, commit: null, path: project }, filters: { minLines: 1 } });
    const task = tasks.find((t) => t.function_name === 'twice');
    assert.ok(task, tasks.map((t) => t.function_name).join(','));
    const test = [
      '<?php',
      'use Acme\\Calc;',
      'use PHPUnit\\Framework\\TestCase;',
      'class CalcTest extends TestCase',
      '{',
      '    public function testTwice(): void',
      '    {',
      '        $this->assertSame(6, (new Calc())->twice(3));',
      '        $this->assertSame(4, \\Legacy_Doubler::apply(1) + acme_offset() + 1);',
      '    }',
      '}',
    ].join('\n');
    const e = await evaluateTest(task, 'php', test, { executor: new LocalExecutor(), repoDir: project });
    const log = e.phases.map((p) => p.output).join('\n');
    assert.equal(e.environment, undefined, e.error);
    assert.equal(e.score.passed, true, log);
    assert.deepEqual(e.score.coverage.covered, e.score.coverage.executable, log);
    assert.ok(e.score.coverage.executable.length > 0);
  });
});
