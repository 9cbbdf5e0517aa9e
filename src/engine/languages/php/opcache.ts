import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { resourceRoot } from '../../util/resources';
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
 * has another system id, another subfolder, and another key here. The PHP images run the same
 * warm-up at build (docker/php/warm-opcache.sh; their view: image.ts IMAGE_OPCACHE_VIEW).
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
 * The warm cache of this PHP and runner under `cacheRoot`, built now if missing (once per process,
 * runner and folder; concurrent builders each build aside and the first rename wins). Null where PHP has no opcache
 * or the warm-up fails: runs then go without it, as before. `settings`: PHP's settings of the scored
 * runs (toolchain.ts), part of the key; the script starts PHP with the same (a unit test keeps them equal).
 */
export function warmOpcache(runner: PhpunitRunner, cacheRoot: string, settings: (root: string) => string[]): Promise<WarmOpcache | null> {
  // Probed once per process (PHP's binary, the runner, the script), like the host view: not every slot.
  const id = JSON.stringify([cacheRoot, runner.bin, runner.version]);
  let p = warming.get(id);
  if (!p) {
    p = warmedOrBuilt(runner, cacheRoot, settings);
    warming.set(id, p);
  }
  return p;
}

function warmedOrBuilt(runner: PhpunitRunner, cacheRoot: string, settings: (root: string) => string[]): Promise<WarmOpcache | null> {
  const php = which('php');
  if (!php) return Promise.resolve(null);
  let key: string;
  try {
    const real = fs.realpathSync(php);
    const st = fs.statSync(real);
    const bin = fs.realpathSync(runner.bin);
    key = createHash('sha256')
      .update(JSON.stringify({ php: real, mtime: st.mtimeMs, size: st.size, runner: bin, version: runner.version, settings: settings('<root>'), opcache: opcacheSettings('<dir>'), script: fs.readFileSync(warmScript(), 'utf8') }))
      .digest('hex')
      .slice(0, 16);
  } catch {
    return Promise.resolve(null);
  }
  const dir = path.join(cacheRoot, `opcache-${key}`);
  return ready(dir) ?? build(dir, runner).catch(() => null);
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

/** The warm-up the images run too (docker/php/warm-opcache.sh). */
export function warmScript(): string {
  return path.join(resourceRoot(), 'docker', 'php', 'warm-opcache.sh');
}

async function build(dir: string, runner: PhpunitRunner): Promise<WarmOpcache | null> {
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const aside = `${dir}.build-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    // Trusted: the host's PHPUnit on the script's own scratch project.
    const ok = await new Promise<boolean>((resolve) => {
      execFile('sh', [warmScript(), aside, runner.bin, String(runner.major)], { timeout: 120_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', HOME: os.tmpdir() } }, (err) => resolve(!err));
    });
    if (!ok || !systemsIn(aside).length) return null;
    try {
      fs.renameSync(aside, dir);
    } catch {
      /* another builder renamed first: its cache is the same */
    }
    return ready(dir);
  } finally {
    fs.rmSync(aside, { recursive: true, force: true });
  }
}
