import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { confinesTests, DockerExecutor } from '../../src/engine/execute/docker';
import { evaluateTest } from '../../src/engine/execute/evaluate';
import { COMMAND_VIEWS, LocalExecutor } from '../../src/engine/execute/local';
import type { PhaseCommand } from '../../src/engine/execute/types';
import { IMAGE_OPCACHE_VIEW } from '../../src/engine/languages/php/image';
import { opcacheViewDir } from '../../src/engine/languages/php/opcache';
import { engineForTests, languageImageForTests, stopTestEngine } from '../helpers/engine';
import { fixtureTask, generatedTest, treeDigest } from '../helpers/evaluate';
import { fixture } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';

/**
 * The local executor shows PHP's test phases a compiled PHPUnit (languages/php/opcache.ts), warmed
 * once and shared by every slot. A test that changed an entry would run its own code as PHPUnit in
 * every later run: a mutant's, a rerun's, another slot's. Each attack is a test trying to.
 */
const VIEW = opcacheViewDir(COMMAND_VIEWS);

after(stopTestEngine);

/** A PHPUnit test of the fixture that runs `body`, prints what it did, and fails (its output is kept). */
function phpTest(body: string[]): string {
  return [
    '<?php',
    'declare(strict_types=1);',
    'namespace Textkit\\Tests;',
    'use PHPUnit\\Framework\\TestCase;',
    'final class SluggerTest extends TestCase',
    '{',
    '    public function testLooksAtTheCache(): void',
    '    {',
    ...body.map((l) => `        ${l}`),
    "        $this->assertSame('cache', 'looked at');",
    '    }',
    '}',
    '',
  ].join('\n');
}

/** PHP lines: list every file under the folder `$dir` names, then try to rewrite and remove five (and re-mode them, with `chmod`). */
function tamperWithEntries(dir: string, chmod: boolean): string[] {
  return [
    `$it = new \\RecursiveIteratorIterator(new \\RecursiveDirectoryIterator(${dir}, \\FilesystemIterator::SKIP_DOTS));`,
    '$files = [];',
    'foreach ($it as $f) { $files[] = $f->getPathname(); }',
    'echo "SEEN " . count($files) . "\\n";',
    'foreach (array_slice($files, 0, 5) as $f) {',
    "    echo (@file_put_contents($f, 'poison') !== false ? 'WROTE ' : 'REFUSED ') . $f . \"\\n\";",
    "    echo (@unlink($f) ? 'REMOVED ' : 'KEPT ') . $f . \"\\n\";",
    ...(chmod ? ["    echo (@chmod($f, 0666) ? 'CHMODDED ' : 'UNCHANGED ') . $f . \"\\n\";"] : []),
    '}',
  ];
}

describe('hostile PHP tests and the shared compiled PHPUnit (local executor)', function () {
  this.timeout(300_000);
  let cacheRoot: string;
  let executor: LocalExecutor;

  before(function () {
    if (!hasTool('php') || !hasTool('phpunit', ['--version'])) skipBecause(this, 'php or phpunit is not installed');
    if (!/Zend OPcache/.test(spawnSync('php', ['-m'], { encoding: 'utf8' }).stdout ?? '')) skipBecause(this, "this PHP has no opcache (Debian: php-opcache): no compiled PHPUnit, runs compile it each time");
    executor = new LocalExecutor({ cacheRoot: (cacheRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-opcache-test-'))) });
    if (!executor.isolated) skipBecause(this, 'bubblewrap is not installed: no views, no shared PHPUnit cache');
  });
  after(async () => {
    await executor?.close();
    if (cacheRoot) fs.rmSync(cacheRoot, { recursive: true, force: true });
  });

  async function evaluate(code: string) {
    return evaluateTest(await fixtureTask('php'), 'php', code, { executor, repoDir: fixture('textkit-php') });
  }
  function warmDir(): string {
    const dirs = fs.readdirSync(path.join(cacheRoot, 'php')).filter((n) => /^opcache-[0-9a-f]{16}$/.test(n));
    assert.equal(dirs.length, 1, `one warm cache: ${dirs.join(', ')}`);
    return path.join(cacheRoot, 'php', dirs[0]);
  }

  it('a passing test passes with the cache shown, and its phase reads PHPUnit from it', async function () {
    const e = await evaluate(generatedTest('php', 'pass'));
    assert.equal(e.score.passed, true, e.score.reason ?? undefined);
    const test = e.phases.find((p) => p.phase === 'test')!;
    assert.ok(test.argv.includes(`opcache.file_cache=${VIEW}`), test.argv.join(' '));
    const entries = fs.readdirSync(warmDir());
    assert.ok(entries.some((n) => /^[0-9a-f]{32}$/.test(n)), `a PHP system's folder: ${entries.join(', ')}`);
  });

  it('rewrites, removes and adds compiled PHPUnit files: refused, and the next runs read the same cache', async function () {
    await evaluate(generatedTest('php', 'pass'));
    const dir = warmDir();
    const before = treeDigest(dir);
    const e = await evaluate(
      phpTest([
        `$root = ${JSON.stringify(VIEW)};`,
        ...tamperWithEntries('$root', true),
        "$sys = explode('/', substr($files[0] ?? \"$root/none\", strlen($root) + 1))[0];",
        'echo "SYSTEM $sys\\n";',
        "echo (@mkdir(\"$root/$sys/planted\", 0777, true) ? 'PLANTED' : 'NOT-PLANTED') . \"\\n\";",
        "echo (@file_put_contents(\"$root/elsewhere.bin\", 'x') !== false ? 'SCRATCH-WRITABLE' : 'SCRATCH-REFUSED') . \"\\n\";",
      ]),
    );
    const output = e.phases.map((p) => p.output).join('\n');
    assert.match(output, /SEEN [1-9]/, `the test saw the cache:\n${output.slice(-3000)}`);
    assert.match(output, /SYSTEM [0-9a-f]{32}\n/, output.slice(-3000));
    assert.doesNotMatch(output, /WROTE |REMOVED |CHMODDED |(^|\n)PLANTED\n/, output.slice(-3000));
    assert.match(output, /NOT-PLANTED\n/, output.slice(-3000));
    assert.equal((output.match(/REFUSED /g) ?? []).length, 5, output.slice(-3000));
    assert.equal(e.score.passed, false);
    assert.equal(treeDigest(dir), before, 'the warm cache is unchanged');
    // The scratch folder around the cache is the command's own: nothing written there reaches the next.
    const next = await evaluate(phpTest([`echo (file_exists(${JSON.stringify(`${VIEW}/elsewhere.bin`)}) ? 'LEFT-OVER' : 'FRESH') . "\\n";`]));
    assert.match(next.phases.map((p) => p.output).join('\n'), /FRESH/);
    const again = await evaluate(generatedTest('php', 'pass'));
    assert.equal(again.score.passed, true, again.score.reason ?? undefined);
  });

  it('a view outside the executor’s view folder, or showing the sandbox, is refused before anything runs', async function () {
    const sandbox = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-sandbox-view-'));
    try {
      const s = await executor.open({ language: 'php', sandboxDir: sandbox, limits: { memoryBytes: 256 * 1024 ** 2, cpus: 1, pids: 64, outputBytes: 64 * 1024 } });
      const cmd = (view: PhaseCommand['view']): PhaseCommand => ({ phase: 'test', argv: ['true'], cwd: sandbox, env: {}, timeoutMs: 10_000, view });
      await assert.rejects(s.run(cmd({ dir: '/etc/views', readOnly: [] })), /under \/xrt\/views/);
      await assert.rejects(s.run(cmd({ dir: `${VIEW}/../../sandbox`, readOnly: [] })), /under \/xrt\/views/);
      await assert.rejects(s.run(cmd({ dir: VIEW, readOnly: [{ source: sandbox, dest: `${VIEW}/x` }] })), /not the sandbox/);
      await assert.rejects(s.run(cmd({ dir: VIEW, readOnly: [{ source: '/usr', dest: '/usr/local' }] })), /inside its folder/);
      await s.close();
    } finally {
      fs.rmSync(sandbox, { recursive: true, force: true });
    }
  });
});

/**
 * In a PHP image the compiled PHPUnit is part of the image (docker/php/Dockerfile.*): a read-only
 * cache owned by root, and a sticky view folder holding root's link to it. In a reused container the
 * next slot runs in the same file system: what a test could change there, it would change for it.
 */
describe('hostile PHP tests and the image’s compiled PHPUnit (docker executor, reused containers)', function () {
  this.timeout(600_000);
  let docker: DockerExecutor;
  let image: string;

  before(async function () {
    const engine = await engineForTests(this);
    if (!confinesTests()) skipBecause(this, 'containers are reused only when the engine runs as root (tests confined to the test user)');
    image = await languageImageForTests(this, 'php');
    docker = await DockerExecutor.create({ engine });
    const info = await docker.info('php', image);
    if (info.versions.opcache !== IMAGE_OPCACHE_VIEW) skipBecause(this, `${image} has no compiled PHPUnit (built before docker/php/warm-opcache.sh): rebuild it with \`xrepotest images build --lang php\``);
  });
  after(async () => docker?.close());

  async function evaluate(code: string) {
    return evaluateTest(await fixtureTask('php'), 'php', code, { executor: docker, repoDir: fixture('textkit-php'), image });
  }

  it('a passing test passes reading it; rewriting entries, replacing the link or planting files changes nothing for the next slot', async function () {
    const first = await evaluate(generatedTest('php', 'pass'));
    assert.equal(first.score.passed, true, first.score.reason ?? undefined);
    assert.ok(first.phases.find((p) => p.phase === 'test')!.argv.includes(IMAGE_OPCACHE_VIEW), 'the test script is given the view');
    const e = await evaluate(
      phpTest([
        `$view = ${JSON.stringify(IMAGE_OPCACHE_VIEW)};`,
        "$links = glob(\"$view/*\");",
        'echo "LINKS " . count($links) . "\\n";',
        ...tamperWithEntries('$links[0] . "/"', false),
        "echo (@unlink($links[0]) ? 'UNLINKED' : 'LINK-KEPT') . \"\\n\";",
        "echo (@rename($links[0], \"$view/moved\") ? 'MOVED' : 'LINK-STAYED') . \"\\n\";",
        "echo (@file_put_contents(\"$view/planted\", 'x') !== false ? 'PLANTED' : 'NOT-PLANTED') . \"\\n\";",
      ]),
    );
    const output = e.phases.map((p) => p.output).join('\n');
    assert.match(output, /LINKS 1\n/, output.slice(-3000));
    assert.match(output, /SEEN [1-9]/, output.slice(-3000));
    assert.equal((output.match(/REFUSED /g) ?? []).length, 5, output.slice(-3000));
    assert.doesNotMatch(output, /WROTE |REMOVED |UNLINKED|MOVED/, output.slice(-3000));
    assert.equal(e.score.passed, false);
    // Whatever it planted in the view folder, the next slot does not find it; and it passes.
    const next = await evaluate(phpTest([`echo (file_exists(${JSON.stringify(`${IMAGE_OPCACHE_VIEW}/planted`)}) ? 'LEFT-OVER' : 'FRESH') . "\\n";`, `echo "LINKS " . count(glob(${JSON.stringify(`${IMAGE_OPCACHE_VIEW}/*`)})) . "\\n";`]));
    const seen = next.phases.map((p) => p.output).join('\n');
    assert.match(seen, /FRESH/, `${seen.slice(-2000)}\n(containers discarded: ${docker.discarded.join('; ')})`);
    assert.match(seen, /LINKS 1\n/, seen.slice(-2000));
    // A file the test user left in the (sticky, world-writable) view fails the container's check after the slot.
    if (/(^|\n)PLANTED\n/.test(output)) assert.ok(docker.discarded.some((d) => d.includes(`${IMAGE_OPCACHE_VIEW}/planted`)), `not discarded: ${docker.discarded.join('; ')}`);
    const again = await evaluate(generatedTest('php', 'pass'));
    assert.equal(again.score.passed, true, again.score.reason ?? undefined);
  });
});
