import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { NativeTestCommand } from '../execution-types';
import { phpAutoloaderSource, type ComposerJson } from './autoload';
import { scanClassmap } from './classmap';
import { renameTestClass } from './toolchain';

function composerOf(root: string): ComposerJson {
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(path.join(root, 'composer.json'), 'utf8'));
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as ComposerJson) : {};
  } catch {
    return {};
  }
}

/**
 * The bootstrap a person's run loads: their phpunit config's, else Composer's autoloader. Without a
 * Composer install (nothing is fetched here), one is written from composer.json's maps where
 * `composer dump-autoload` would put it, since tests `require` vendor/autoload.php themselves; it is
 * removed again by `restore`. Returns the bootstrap and whether vendor/ was made.
 */
async function bootstrap(root: string): Promise<{ file: string; madeVendor: boolean }> {
  for (const config of ['phpunit.xml', 'phpunit.xml.dist', 'phpunit.dist.xml']) {
    const file = path.join(root, config);
    if (!fs.existsSync(file)) continue;
    const m = /<phpunit\b[^>]*\bbootstrap\s*=\s*"([^"]+)"/s.exec(fs.readFileSync(file, 'utf8'));
    if (m && fs.existsSync(path.join(root, m[1]))) return { file: path.join(root, m[1]), madeVendor: false };
    break;
  }
  const composerAutoload = path.join(root, 'vendor', 'autoload.php');
  if (fs.existsSync(composerAutoload)) return { file: composerAutoload, madeVendor: false };
  const madeVendor = !fs.existsSync(path.join(root, 'vendor'));
  const composer = composerOf(root);
  fs.mkdirSync(path.dirname(composerAutoload), { recursive: true });
  fs.writeFileSync(composerAutoload, phpAutoloaderSource(composer, root, await scanClassmap(root, composer)));
  return { file: composerAutoload, madeVendor };
}

/** The project's own PHPUnit when Composer installed one, else the one on PATH (a PHP script, run by `php` to pass it pcov's settings). */
function phpunitOf(root: string): string {
  const vendor = path.join(root, 'vendor', 'bin', 'phpunit');
  if (fs.existsSync(vendor)) return vendor;
  for (const d of (process.env.PATH ?? '').split(path.delimiter)) {
    const p = path.join(d, 'phpunit');
    if (d && fs.existsSync(p)) return p;
  }
  return 'phpunit';
}

/** PHPUnit's major version (9 when it cannot tell). */
function phpunitMajor(phpunit: string): number {
  const out = spawnSync('php', [phpunit, '--version'], { encoding: 'utf8' }).stdout ?? '';
  return Number(/PHPUnit (\d+)/.exec(out)?.[1] ?? 9);
}

/**
 * `phpunit --coverage-clover` with pcov on, in a person's checkout: the benchmark's reference. The test
 * goes to `tests/<Class>Test.php` (its class renamed as the toolchain renames it, so it never collides
 * with one of the project's). The coverage filter is the focal file as the scored run's (PHPUnit 9; a
 * project folder may hold files that do not parse, and the report then fails), its folder on PHPUnit
 * 10+, whose `--coverage-filter` takes folders only.
 */
export const phpNative: NativeTestCommand = {
  // After the opening tag: a comment before it would be output, and `declare` may follow a comment.
  mark: (code, marker) => (/<\?php\b/.test(code) ? code.replace(/<\?php\b/, `<?php // ${marker}\n`) : `<?php // ${marker}\n?>${code}`),

  async prepare({ projectRoot, focalFile, testCode, outDir }) {
    const { code, className } = await renameTestClass(testCode, 'Native');
    let dir = path.join(projectRoot, 'tests');
    for (const d of ['tests', 'test', 'Tests']) {
      if (fs.existsSync(path.join(projectRoot, d))) {
        dir = path.join(projectRoot, d);
        break;
      }
    }
    const made = !fs.existsSync(dir);
    fs.mkdirSync(dir, { recursive: true });
    const testFile = path.join(dir, `${className ?? 'XrtNativeTest'}.php`);
    fs.writeFileSync(testFile, code);
    const boot = await bootstrap(projectRoot);
    const phpunit = phpunitOf(projectRoot);
    const filter = phpunitMajor(phpunit) >= 10 ? path.dirname(focalFile) : focalFile;
    const clover = path.join(outDir, 'clover.xml');
    return {
      testFile,
      withCoverage: [
        {
          argv: ['php', '-d', 'pcov.enabled=1', '-d', `pcov.directory=${projectRoot}`, phpunit, '--no-configuration', '--bootstrap', boot.file, '--do-not-cache-result', '--coverage-clover', clover, '--coverage-filter', filter, testFile],
          cwd: projectRoot,
        },
      ],
      report: clover,
      plain: [{ argv: ['php', phpunit, '--no-configuration', '--bootstrap', boot.file, '--do-not-cache-result', testFile], cwd: projectRoot }],
      restore: () => {
        fs.rmSync(made ? dir : testFile, { recursive: true, force: true });
        if (boot.madeVendor) fs.rmSync(path.join(projectRoot, 'vendor'), { recursive: true, force: true });
      },
    };
  },
};

