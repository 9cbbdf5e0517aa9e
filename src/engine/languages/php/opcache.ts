import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { which } from '../../util/which';
import type { PhpunitRunner } from './runners';

/**
 * PHPUnit compiled once, read by every scored run (local executor). A PHPUnit run with pcov spends
 * about a third of its time compiling PHPUnit itself (54 → 37 ms for the fixture's test, this VM), the
 * same files every slot. PHP's opcache can keep compiled scripts in files (`opcache.file_cache`):
 * a trusted warm-up (PHPUnit on our own scratch project, never the slot's code) fills such a folder
 * once per PHP and runner, and each test phase is shown it read-only (`PhaseCommand.view`) inside a
 * folder of its own that vanishes with it. Scripts not in it (the project's, the test) are compiled
 * as without the cache; PHP's attempt to store them fails on the read-only folder, silently at
 * opcache's default log level. So no command can change what another one reads.
 *
 * Same results: the optimizer is off (`optimization_level=0`), so compiled code is what PHP compiles
 * without opcache, and coverage (pcov) sees the project's files compiled as before. A PHPUnit file
 * changed since the warm-up is compiled afresh (opcache checks each file's time); another PHP build
 * has another system id, another subfolder, and another key here.
 */

/** The view's folder in each command (under the executor's `commandViews`). */
export function opcacheViewDir(commandViews: string): string {
  return path.posix.join(commandViews, 'php-opcache');
}

/** PHP's settings for runs that read (or, in the warm-up, fill) the file cache at `dir`. */
export function opcacheSettings(dir: string): string[] {
  return ['-d', 'opcache.enable_cli=1', '-d', `opcache.file_cache=${dir}`, '-d', 'opcache.file_cache_only=1', '-d', 'opcache.optimization_level=0'];
}

export interface WarmOpcache {
  /** The folder holding one subfolder per PHP system id. */
  dir: string;
  systems: string[];
}

const warming = new Map<string, Promise<WarmOpcache | null>>();

/**
 * The warm cache of this PHP and runner under `cacheRoot`, built now if missing (once per process and
 * key; concurrent builders each build aside and the first rename wins). Null where PHP has no opcache
 * or the warm-up fails: runs then go without it, as before.
 */
/** How scored runs start PHPUnit (toolchain.ts): the warm-up starts it the same way. */
export interface PhpunitStart {
  /** PHP's `-d` settings for a project at `root`. */
  settings(root: string): string[];
  /** The configuration PHPUnit 10+ is given: the bootstrap, coverage of the focal file. */
  config(boot: string, focal: string): string;
}

export function warmOpcache(runner: PhpunitRunner, cacheRoot: string, start: PhpunitStart): Promise<WarmOpcache | null> {
  const { settings } = start;
  const php = which('php');
  if (!php) return Promise.resolve(null);
  let key: string;
  try {
    const real = fs.realpathSync(php);
    const st = fs.statSync(real);
    const bin = fs.realpathSync(runner.bin);
    key = createHash('sha256')
      .update(JSON.stringify({ php: real, mtime: st.mtimeMs, size: st.size, runner: bin, version: runner.version, settings: settings('<root>'), opcache: opcacheSettings('<dir>') }))
      .digest('hex')
      .slice(0, 16);
  } catch {
    return Promise.resolve(null);
  }
  const dir = path.join(cacheRoot, `opcache-${key}`);
  let p = warming.get(dir);
  if (!p) {
    p = ready(dir) ?? build(dir, runner, start).catch(() => null);
    warming.set(dir, p);
  }
  return p;
}

function systemsIn(dir: string): string[] {
  return fs.readdirSync(dir).filter((n) => /^[0-9a-f]{32}$/.test(n) && fs.lstatSync(path.join(dir, n)).isDirectory());
}

function ready(dir: string): Promise<WarmOpcache | null> | null {
  try {
    const systems = systemsIn(dir);
    return systems.length ? Promise.resolve({ dir, systems }) : null;
  } catch {
    return null;
  }
}

/** Our scratch project: a class, and a test that passes, fails and uses a data provider (PHPUnit's usual paths). */
const SCRATCH: Record<string, string> = {
  'src/Warm.php': '<?php\nnamespace XrtWarm;\nfinal class Warm\n{\n    public function twice(int $x): int\n    {\n        return 2 * $x;\n    }\n}\n',
  'bootstrap.php': "<?php\nrequire __DIR__ . '/src/Warm.php';\n",
  'tests/WarmTest.php': [
    '<?php',
    'namespace XrtWarm;',
    'use PHPUnit\\Framework\\TestCase;',
    'final class WarmTest extends TestCase',
    '{',
    '    public static function values(): array',
    '    {',
    '        return [[1, 2], [2, 4]];',
    '    }',
    '    /** @dataProvider values */',
    '    public function testTwice(int $x, int $y): void',
    '    {',
    '        $this->assertSame($y, (new Warm())->twice($x));',
    '    }',
    '    public function testFails(): void',
    '    {',
    "        $this->assertSame(['a' => 1], ['a' => 2]);",
    '    }',
    '    public function testErrors(): void',
    '    {',
    "        throw new \\RuntimeException('warm');",
    '    }',
    '}',
    '',
  ].join('\n'),
};

async function build(dir: string, runner: PhpunitRunner, { settings, config: configOf }: PhpunitStart): Promise<WarmOpcache | null> {
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const aside = `${dir}.build-${process.pid}-${randomBytes(4).toString('hex')}`;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-php-warm-'));
  try {
    fs.mkdirSync(aside);
    for (const [rel, text] of Object.entries(SCRATCH)) {
      fs.mkdirSync(path.join(scratch, path.dirname(rel)), { recursive: true });
      fs.writeFileSync(path.join(scratch, rel), text);
    }
    const out = path.join(scratch, 'out');
    fs.mkdirSync(out);
    const focal = path.join(scratch, 'src', 'Warm.php');
    const boot = path.join(scratch, 'bootstrap.php');
    let selection = ['--no-configuration', '--bootstrap', boot, '--coverage-filter', focal];
    if (runner.major >= 10) {
      const config = path.join(out, 'phpunit.xml');
      fs.writeFileSync(config, configOf(boot, focal));
      selection = ['--configuration', config];
    }
    const argv = [...settings(scratch), ...opcacheSettings(aside), runner.bin, ...selection, '--do-not-cache-result', '--log-junit', path.join(out, 'junit.xml'), '--coverage-clover', path.join(out, 'clover.xml'), path.join(scratch, 'tests', 'WarmTest.php')];
    // Trusted: the host's PHPUnit on our own files. It fails on purpose (two of four tests).
    await new Promise<void>((resolve) => {
      execFile('php', argv, { cwd: scratch, timeout: 120_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', HOME: scratch } }, () => resolve());
    });
    const systems = systemsIn(aside);
    if (!systems.length || !fs.existsSync(path.join(out, 'junit.xml'))) return null;
    // Only PHPUnit's files are kept: our scratch project's entries go.
    for (const s of systems) fs.rmSync(path.join(aside, s, scratch), { recursive: true, force: true });
    try {
      fs.renameSync(aside, dir);
    } catch {
      /* another builder renamed first: its cache is the same */
    }
    return ready(dir);
  } finally {
    fs.rmSync(aside, { recursive: true, force: true });
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
