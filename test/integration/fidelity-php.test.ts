import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DockerExecutor } from '../../src/engine/execute/docker';
import { evaluateTest, type Evaluation } from '../../src/engine/execute/evaluate';
import { LocalExecutor } from '../../src/engine/execute/local';
import { extractRepository } from '../../src/engine/extract/extract';
import { localPhpunitRunners } from '../../src/engine/languages/php/runners';
import type { TaskRecord } from '../../src/engine/tasks/record';
import { engineForTests, languageImageForTests } from '../helpers/engine';
import { REPO_ROOT } from '../helpers/paths';
import { PINNED, realRepository, removeRealRepository, type RealRepo } from '../helpers/real-repo';
import { hasTool, skipBecause } from '../helpers/skip';

/**
 * PHP fidelity on real libraries (issue 12, item 7): tests written as a model writes them (passing,
 * failing, not compiling, using classmap classes and the package's own test helpers) are run through
 * the engine (local executor) and, independently, natively: the same test file in a fresh copy, run
 * by `phpunit --coverage-clover` under pcov with a bootstrap that PHP itself builds (its tokenizer
 * finds the classmap's classes; PSR-4 as Composer maps it). Verdicts and the focal function's covered
 * and executable lines must be equal, and equal to the expectations in test/data/fidelity/php.json.
 */

interface Expectation {
  id: string;
  repo: keyof typeof REPOS;
  file: string;
  function: string;
  class: string;
  testClass: string;
  expect: Verdict;
  /** Where PHPUnit 11.5 (the docker image's) judges the test otherwise than the host's 9.6. */
  expectDocker?: Verdict;
}

interface Verdict {
  compiled: boolean;
  passed: boolean;
  category: string | null;
  covered: number;
  executable: number;
}

interface FidelityData {
  repositories: Record<string, { source: string; version: string; autoload: string }>;
  cases: Expectation[];
}

const DATA = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'test', 'data', 'fidelity', 'php.json'), 'utf8')) as FidelityData;

/** How Composer would load each repository natively (written by hand from its composer.json). */
const REPOS = {
  'phar-io/version': { pin: PINNED.phpPharIoVersion, psr4: [] as Array<[string, string]>, classmap: ['src'] },
  'doctrine/inflector': {
    pin: PINNED.phpDoctrineInflector,
    psr4: [
      ['Doctrine\\Inflector\\', 'lib/Doctrine/Inflector'],
      ['Doctrine\\Tests\\Inflector\\', 'tests/Doctrine/Tests/Inflector'],
    ] as Array<[string, string]>,
    classmap: [] as string[],
  },
};

const TESTS: Record<string, string> = {
  // Classmap classes from src/constraints and src/exceptions (no PSR-4 layout), annotation providers (PHPUnit 9).
  'pio-parse-pass': `<?php declare(strict_types=1);

namespace PharIo\\Version;

require_once __DIR__ . '/../vendor/autoload.php';

use PHPUnit\\Framework\\TestCase;

class VersionConstraintParserTest extends TestCase
{
    /** @dataProvider constraints */
    public function testParseReturnsTheRightConstraint(string $value, string $class, string $complying, string $notComplying): void
    {
        $constraint = (new VersionConstraintParser())->parse($value);
        $this->assertInstanceOf($class, $constraint);
        $this->assertTrue($constraint->complies(new Version($complying)));
        if ($notComplying !== '') {
            $this->assertFalse($constraint->complies(new Version($notComplying)));
        }
    }

    public function constraints(): array
    {
        return [
            'exact' => ['1.2.3', ExactVersionConstraint::class, '1.2.3', '1.2.4'],
            'any' => ['*', AnyVersionConstraint::class, '9.9.9', ''],
            'major' => ['7.*', SpecificMajorVersionConstraint::class, '7.4.0', '8.0.0'],
            'minor' => ['7.4.*', SpecificMajorAndMinorVersionConstraint::class, '7.4.9', '7.5.0'],
            'caret' => ['^1.5', AndVersionConstraintGroup::class, '1.9.0', '2.0.0'],
            'or' => ['^1.0 || ^2.0', OrVersionConstraintGroup::class, '2.1.0', '3.0.0'],
        ];
    }

    public function testParseRejectsGarbage(): void
    {
        $this->expectException(UnsupportedVersionConstraintException::class);
        (new VersionConstraintParser())->parse('not a version');
    }
}
`,
  // Only the error path of parse: the rest of the function stays uncovered.
  'pio-parse-garbage-only': `<?php

use PharIo\\Version\\UnsupportedVersionConstraintException;
use PharIo\\Version\\VersionConstraintParser;
use PHPUnit\\Framework\\TestCase;

final class ParseGarbageTest extends TestCase
{
    public function testRejectsAWord(): void
    {
        $this->expectException(UnsupportedVersionConstraintException::class);
        (new VersionConstraintParser())->parse('latest');
    }
}
`,
  // One expectation is wrong (a pre-release is lower than its release): the test fails.
  'pio-isgreater-fail': `<?php

namespace PharIo\\Version;

use PHPUnit\\Framework\\TestCase;

class VersionIsGreaterThanTest extends TestCase
{
    public function testMajorDecides(): void
    {
        $this->assertTrue((new Version('2.0.0'))->isGreaterThan(new Version('1.9.9')));
        $this->assertFalse((new Version('1.0.0'))->isGreaterThan(new Version('1.0.1')));
    }

    public function testPreReleaseIsGreaterThanRelease(): void
    {
        $this->assertTrue((new Version('1.0.0-beta'))->isGreaterThan(new Version('1.0.0')));
    }
}
`,
  // Pre-release suffixes go through PreReleaseSuffix (another classmap class).
  'pio-isgreater-prerelease-pass': `<?php

namespace PharIo\\Version;

use PHPUnit\\Framework\\TestCase;

class VersionPreReleaseTest extends TestCase
{
    /**
     * @dataProvider pairs
     */
    public function testIsGreaterThan(string $a, string $b, bool $expected): void
    {
        $this->assertSame($expected, (new Version($a))->isGreaterThan(new Version($b)));
    }

    public static function pairs(): array
    {
        return [
            ['1.0.0', '1.0.0-rc1', true],
            ['1.0.0-rc2', '1.0.0-rc1', true],
            ['1.0.0-alpha', '1.0.0-beta', false],
            ['1.0.0-beta', '1.0.0', false],
            ['1.1.0', '1.0.5', true],
            ['1.0.0', '1.0.0', false],
        ];
    }
}
`,
  // A missing semicolon: php -l fails.
  'pio-nocompile': `<?php

namespace PharIo\\Version;

use PHPUnit\\Framework\\TestCase;

class VersionBrokenTest extends TestCase
{
    public function testBroken(): void
    {
        $v = new Version('1.0.0')
        $this->assertFalse($v->isGreaterThan(new Version('1.0.0')));
    }
}
`,
  'inf-urlize-pass': `<?php

declare(strict_types=1);

namespace Doctrine\\Tests\\Inflector;

use Doctrine\\Inflector\\InflectorFactory;
use PHPUnit\\Framework\\TestCase;

class UrlizeTest extends TestCase
{
    /** @dataProvider titles */
    public function testUrlize(string $title, string $slug): void
    {
        $inflector = InflectorFactory::create()->build();
        self::assertSame($slug, $inflector->urlize($title));
    }

    /** @return string[][] */
    public function titles(): array
    {
        return [
            ['My first blog post', 'my-first-blog-post'],
            ['Élégant café', 'elegant-cafe'],
            ['  trailing  ', 'trailing'],
        ];
    }
}
`,
  // Extends the package's own abstract test (autoload-dev PSR-4): its data-provider tests run ours.
  'inf-inflect-helper-pass': `<?php

declare(strict_types=1);

namespace Doctrine\\Tests\\Inflector\\Rules\\Spanish;

use Doctrine\\Inflector\\Inflector;
use Doctrine\\Inflector\\InflectorFactory;
use Doctrine\\Inflector\\Language;
use Doctrine\\Tests\\Inflector\\Rules\\LanguageFunctionalTest;

class SpanishRulesetInflectorTest extends LanguageFunctionalTest
{
    /** @return string[][] */
    public function dataSampleWords(): array
    {
        return [
            ['libro', 'libros'],
            ['canción', 'canciones'],
            ['luz', 'luces'],
        ];
    }

    protected function createInflector(): Inflector
    {
        return InflectorFactory::createForLanguage(Language::SPANISH)->build();
    }
}
`,
  'inf-factory-fail': `<?php

namespace Doctrine\\Tests\\Inflector;

use Doctrine\\Inflector\\InflectorFactory;
use Doctrine\\Inflector\\Language;
use Doctrine\\Inflector\\Rules\\French\\InflectorFactory as FrenchFactory;
use PHPUnit\\Framework\\TestCase;

class FactoryForLanguageTest extends TestCase
{
    public function testFrench(): void
    {
        $this->assertInstanceOf(FrenchFactory::class, InflectorFactory::createForLanguage(Language::FRENCH));
    }

    public function testSpanishIsFrenchToo(): void
    {
        $this->assertInstanceOf(FrenchFactory::class, InflectorFactory::createForLanguage(Language::SPANISH));
    }
}
`,
  'inf-factory-unsupported-pass': `<?php

use Doctrine\\Inflector\\InflectorFactory;
use PHPUnit\\Framework\\TestCase;

class UnsupportedLanguageTest extends TestCase
{
    public function testKlingonIsRejected(): void
    {
        $this->expectException(InvalidArgumentException::class);
        $this->expectExceptionMessage('Language "klingon" is not supported.');
        InflectorFactory::createForLanguage('klingon');
    }
}
`,
  // Calls a method the package does not have: PHPUnit errors (a hallucinated API).
  'inf-hallucinated-fail': `<?php

use Doctrine\\Inflector\\InflectorFactory;
use PHPUnit\\Framework\\TestCase;

class HallucinatedTest extends TestCase
{
    public function testKebab(): void
    {
        $this->assertSame('a-b', InflectorFactory::create()->build()->kebabize('a b'));
        $this->assertSame('a-b', InflectorFactory::create()->build()->urlize('a b'));
    }
}
`,
};

/** The PHP bootstrap of the native run: PSR-4 as Composer maps it, and a classmap PHP's tokenizer builds. */
function nativeBootstrap(root: string, psr4: Array<[string, string]>, classmap: string[]): string {
  const php = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  return `<?php
$root = ${php(root)};
$psr4 = [${psr4.map(([p, d]) => `[${php(p)}, ${php(d)}]`).join(', ')}];
$map = [];
foreach ([${classmap.map(php).join(', ')}] as $dir) {
    $it = new RecursiveIteratorIterator(new RecursiveDirectoryIterator($root . '/' . $dir, FilesystemIterator::SKIP_DOTS));
    foreach ($it as $file) {
        if ($file->getExtension() !== 'php') continue;
        $tokens = token_get_all(file_get_contents($file->getPathname()));
        $ns = '';
        for ($i = 0; $i < count($tokens); $i++) {
            if (!is_array($tokens[$i])) continue;
            if ($tokens[$i][0] === T_NAMESPACE) {
                $ns = '';
                for ($j = $i + 1; $j < count($tokens) && $tokens[$j] !== ';' && $tokens[$j] !== '{'; $j++) {
                    if (is_array($tokens[$j]) && in_array($tokens[$j][0], [T_STRING, T_NAME_QUALIFIED], true)) $ns .= $tokens[$j][1];
                }
            }
            if (in_array($tokens[$i][0], [T_CLASS, T_INTERFACE, T_TRAIT, T_ENUM], true)) {
                $prev = $tokens[$i - 1] ?? null;
                if (is_array($prev) && $prev[0] === T_WHITESPACE) $prev = $tokens[$i - 2] ?? null;
                if (is_array($prev) && $prev[0] === T_DOUBLE_COLON) continue; // Foo::class
                for ($j = $i + 1; $j < count($tokens); $j++) {
                    if (is_array($tokens[$j]) && $tokens[$j][0] === T_STRING) { $map[ltrim($ns . '\\\\' . $tokens[$j][1], '\\\\')] = $file->getPathname(); break; }
                    if (!is_array($tokens[$j]) || $tokens[$j][0] !== T_WHITESPACE) break;
                }
            }
        }
    }
}
spl_autoload_register(function (string $class) use ($root, $psr4, $map): void {
    if (isset($map[$class])) { require $map[$class]; return; }
    foreach ($psr4 as [$prefix, $dir]) {
        if (strncmp($class, $prefix, strlen($prefix)) !== 0) continue;
        $file = $root . '/' . $dir . '/' . str_replace('\\\\', '/', substr($class, strlen($prefix))) . '.php';
        if (is_file($file)) { require $file; return; }
    }
}, true, true); // prepended, as Composer registers its loader
`;
}

interface Native {
  compiled: boolean;
  passed: boolean;
  covered: number[];
  executable: number[];
  log: string;
}

/** The test run natively in a fresh copy: php -l, then phpunit with pcov and a Clover report, read here. */
/** A PHPUnit to run natively: the host's `phpunit` (9.6), or a project-local one (11.5) for the docker comparison. */
interface NativeRunner {
  bin: string;
  major: number;
}

function hostPhpunit(): NativeRunner {
  const bin = spawnSync('sh', ['-c', 'command -v phpunit'], { encoding: 'utf8' }).stdout.trim();
  const major = Number(/PHPUnit (\d+)/.exec(spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout)?.[1] ?? 9);
  return { bin, major };
}

/** The test run natively in a fresh copy: php -l, then phpunit with pcov and a Clover report, read here. */
function runNatively(dir: string, repo: (typeof REPOS)[keyof typeof REPOS], c: Expectation, code: string, range: [number, number], runner: NativeRunner): Native {
  const testFile = path.join(dir, 'tests', `${c.testClass}.php`);
  fs.mkdirSync(path.dirname(testFile), { recursive: true });
  // The model's own `require … vendor/autoload.php` would load Composer's; the bootstrap stands for it.
  fs.writeFileSync(testFile, code.replace(/^require_once .*autoload\.php';\n/m, ''));
  const lint = spawnSync('php', ['-l', testFile], { encoding: 'utf8' });
  if (lint.status !== 0) return { compiled: false, passed: false, covered: [], executable: [], log: lint.stdout + lint.stderr };
  const boot = path.join(dir, 'native-bootstrap.php');
  fs.writeFileSync(boot, nativeBootstrap(dir, repo.psr4, repo.classmap));
  const focal = path.join(dir, c.file);
  const clover = path.join(dir, 'native-clover.xml');
  const junit = path.join(dir, 'native-junit.xml');
  // PHPUnit 10+ takes only folders as --coverage-filter: a configuration's <source> names the file.
  const config = path.join(dir, 'native-phpunit.xml');
  fs.writeFileSync(config, `<?xml version="1.0"?>\n<phpunit bootstrap="${boot}" cacheResult="false"><source><include><file>${focal}</file></include></source></phpunit>\n`);
  const setup = runner.major >= 10 ? ['--configuration', config] : ['--no-configuration', '--bootstrap', boot, '--coverage-filter', focal, '--do-not-cache-result'];
  const r = spawnSync(
    'php',
    ['-d', 'pcov.enabled=1', '-d', `pcov.directory=${dir}`, '-d', 'memory_limit=1G', runner.bin, ...setup, '--log-junit', junit, '--coverage-clover', clover, testFile],
    { encoding: 'utf8', cwd: dir },
  );
  const report = fs.existsSync(junit) ? fs.readFileSync(junit, 'utf8') : '';
  const suite = /<testsuite\b[^>]*>/.exec(report)?.[0] ?? '';
  const count = (attr: string) => Number(new RegExp(`\\b${attr}="(\\d+)"`).exec(suite)?.[1] ?? NaN);
  const passed = r.status === 0 && count('tests') > 0 && count('failures') === 0 && count('errors') === 0;
  const covered: number[] = [];
  const executable: number[] = [];
  const xml = fs.existsSync(clover) ? fs.readFileSync(clover, 'utf8') : '';
  for (const m of xml.matchAll(/<line num="(\d+)" type="(stmt|cond)"[^>]*\bcount="(\d+)"/g)) {
    const n = Number(m[1]);
    if (n < range[0] || n > range[1]) continue;
    executable.push(n);
    if (Number(m[3]) > 0) covered.push(n);
  }
  return { compiled: true, passed, covered, executable, log: r.stdout + r.stderr };
}

function why(e: Evaluation): string {
  return `\n${e.phases.map((p) => `$ ${p.argv.join(' ')} -> ${p.exitCode}\n${p.output.slice(-2000)}`).join('\n')}`;
}

describe('PHP fidelity on real libraries: engine vs native phpunit --coverage-clover (local executor)', function () {
  this.timeout(900_000);
  const executor = new LocalExecutor();
  const fetched = new Map<string, RealRepo>();
  const tasks = new Map<string, TaskRecord[]>();

  before(function () {
    if (!hasTool('php') || !hasTool('phpunit')) skipBecause(this, 'php and phpunit are needed (scripts/setup.sh)');
    if (!spawnSync('php', ['-m'], { encoding: 'utf8' }).stdout.includes('pcov')) skipBecause(this, 'the pcov extension is needed for coverage (Debian php-pcov)');
  });
  after(() => {
    for (const got of fetched.values()) removeRealRepository(got);
  });

  /** The pristine repository (extraction reads it; the engine copies it) and a fresh copy for the native run. */
  async function repository(ctx: Mocha.Context, name: keyof typeof REPOS): Promise<{ pristine: string; fresh: () => Promise<string> }> {
    let got = fetched.get(name);
    if (!got) {
      got = await realRepository(REPOS[name].pin);
      fetched.set(name, got);
    }
    if ('unavailable' in got) skipBecause(ctx, got.unavailable);
    const pristine = got.dir;
    return {
      pristine,
      fresh: async () => {
        const copy = await realRepository(REPOS[name].pin);
        if ('unavailable' in copy) skipBecause(ctx, copy.unavailable);
        return copy.dir;
      },
    };
  }

  it('names every repository of the expectations with its pinned source', () => {
    for (const [name, info] of Object.entries(DATA.repositories)) {
      const repo = REPOS[name as keyof typeof REPOS];
      assert.ok(repo, name);
      assert.equal(info.source, repo.pin.file);
    }
    assert.deepEqual(DATA.cases.map((c) => c.id).sort(), Object.keys(TESTS).sort(), 'one expectation per test');
  });

  for (const c of DATA.cases) {
    it(`${c.repo}: ${c.id} (${c.class}::${c.function})`, async function () {
      const { pristine, fresh } = await repository(this, c.repo);
      let list = tasks.get(c.repo);
      if (!list) {
        list = (await extractRepository(pristine, { repository: { name: c.repo.replace('/', '-'), url: pristine, commit: null, path: pristine }, filters: { minLines: 1, maxLines: 1000 } })).tasks;
        tasks.set(c.repo, list);
      }
      const task = list.find((t) => t.function_name === c.function && t.metadata.class_name === c.class && t.file_path.endsWith(c.file));
      assert.ok(task, `no task ${c.class}::${c.function} in ${c.file}`);
      const code = TESTS[c.id];
      const e = await evaluateTest(task, 'php', code, { executor, repoDir: pristine });
      assert.equal(e.environment, undefined, e.error);

      const nativeDir = await fresh();
      let native: Native;
      try {
        native = runNatively(nativeDir, REPOS[c.repo], c, code, [task.function_component.start_line, task.function_component.end_line], hostPhpunit());
      } finally {
        fs.rmSync(nativeDir, { recursive: true, force: true });
      }

      // The engine and the native run agree, line by line.
      assert.equal(e.score.compiled, native.compiled, `compiled${why(e)}\nnative:\n${native.log}`);
      assert.equal(e.score.passed, native.passed, `passed${why(e)}\nnative:\n${native.log}`);
      assert.deepEqual(e.score.coverage.executable, native.executable, `executable lines${why(e)}`);
      assert.deepEqual(e.score.coverage.covered, native.covered, `covered lines${why(e)}`);
      // And both agree with what the case is about.
      assert.deepEqual(
        { compiled: e.score.compiled, passed: e.score.passed, category: e.score.failure?.category ?? null, covered: e.score.coverage.covered.length, executable: e.score.coverage.executable.length },
        c.expect,
        why(e),
      );
    });
  }
});

/**
 * The same cases in the docker executor's PHP image (Debian trixie: PHP 8.4, PHPUnit 11.5) against a
 * native run with the same PHPUnit 11.5 on the host (the project-local one of scripts/setup-phpunit.sh).
 * phar-io/version declares no PHPUnit constraint, so the image's runner is within it; doctrine/inflector
 * requires ^8.5 || ^9.5, which the image's runner is not: an environment verdict (runner-mismatch).
 */
describe('PHP fidelity in the docker executor (PHPUnit 11.5 image) vs native PHPUnit 11.5', function () {
  this.timeout(1_800_000);
  let docker: DockerExecutor;
  let image: string;
  let eleven: NativeRunner;
  const fetched: RealRepo[] = [];

  before(async function () {
    if (!hasTool('php')) skipBecause(this, 'php is needed for the native side');
    const local = localPhpunitRunners().find((r) => r.major === 11);
    if (!local) skipBecause(this, 'no project-local PHPUnit 11 for the native side (bash scripts/setup-phpunit.sh)');
    eleven = { bin: local.bin, major: 11 };
    const engine = await engineForTests(this);
    image = await languageImageForTests(this, 'php');
    docker = await DockerExecutor.create({ engine });
  });
  after(async () => {
    fetched.forEach(removeRealRepository);
    await docker?.close();
  });

  for (const c of DATA.cases.filter((x) => x.repo === 'phar-io/version')) {
    it(`${c.repo}: ${c.id} in a container`, async function () {
      const got = await realRepository(REPOS[c.repo].pin);
      fetched.push(got);
      if ('unavailable' in got) skipBecause(this, got.unavailable);
      const { tasks } = await extractRepository(got.dir, { repository: { name: c.repo.replace('/', '-'), url: got.dir, commit: null, path: got.dir }, filters: { minLines: 1, maxLines: 1000 } });
      const task = tasks.find((t) => t.function_name === c.function && t.metadata.class_name === c.class && t.file_path.endsWith(c.file));
      assert.ok(task);
      const code = TESTS[c.id];
      const e = await evaluateTest(task, 'php', code, { executor: docker, repoDir: got.dir, image });
      assert.equal(e.environment, undefined, e.error);
      const nativeCopy = await realRepository(REPOS[c.repo].pin);
      if ('unavailable' in nativeCopy) skipBecause(this, nativeCopy.unavailable);
      let native: Native;
      try {
        native = runNatively(nativeCopy.dir, REPOS[c.repo], c, code, [task.function_component.start_line, task.function_component.end_line], eleven);
      } finally {
        removeRealRepository(nativeCopy);
      }
      if (e.score.compiled) assert.match(e.phases.map((p) => p.output).join('\n'), /PHPUnit 11\./);
      assert.equal(e.score.compiled, native.compiled, `compiled${why(e)}\nnative:\n${native.log}`);
      assert.equal(e.score.passed, native.passed, `passed${why(e)}\nnative:\n${native.log}`);
      assert.deepEqual(e.score.coverage.executable, native.executable, `executable lines${why(e)}\nnative:\n${native.log}`);
      assert.deepEqual(e.score.coverage.covered, native.covered, `covered lines${why(e)}`);
      assert.deepEqual(
        { compiled: e.score.compiled, passed: e.score.passed, category: e.score.failure?.category ?? null, covered: e.score.coverage.covered.length, executable: e.score.coverage.executable.length },
        c.expectDocker ?? c.expect,
        `the verdict${c.expectDocker ? ' in PHPUnit 11.5' : ' does not depend on the executor'}${why(e)}`,
      );
    });
  }

  // doctrine/inflector 2.0.6 requires phpunit/phpunit ^8.5 || ^9.5: the image's 11.5 would ignore its
  // annotations' intent (and PHPUnit 10+ drops @dataProvider), so no phase may run and nothing is the test's.
  it('doctrine/inflector (phpunit ^8.5 || ^9.5) in the PHPUnit 11.5 image: runner-mismatch before any phase', async function () {
    const got = await realRepository(REPOS['doctrine/inflector'].pin);
    fetched.push(got);
    if ('unavailable' in got) skipBecause(this, got.unavailable);
    const c = DATA.cases.find((x) => x.id === 'inf-urlize-pass')!;
    const { tasks } = await extractRepository(got.dir, { repository: { name: 'doctrine-inflector', url: got.dir, commit: null, path: got.dir }, filters: { minLines: 1, maxLines: 1000 } });
    const task = tasks.find((t) => t.function_name === c.function && t.metadata.class_name === c.class && t.file_path.endsWith(c.file));
    assert.ok(task);
    const e = await evaluateTest(task, 'php', TESTS[c.id], { executor: docker, repoDir: got.dir, image });
    assert.equal(e.environment?.cause, 'runner-mismatch', e.error ?? e.score.failure?.rule);
    for (const part of ['^8.5 || ^9.5', '11.5', 'docker image']) assert.ok(e.environment!.reason.includes(part), e.environment!.reason);
    assert.deepEqual(e.phases.filter((p) => p.phase === 'test' || p.phase === 'compile'), [], 'no phase of the test ran');
  });
});
