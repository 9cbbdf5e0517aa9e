import * as fs from 'node:fs';
import * as path from 'node:path';
import { emptyReport, phase, readInSandbox, readReport, writeInSandbox, type Placement, type RunContext, type Toolchain } from '../../execute/toolchain';
import type { EnvironmentProblem } from '../../score/types';
import { phpAutoloaderSource, type ComposerJson } from './autoload';
import { scanClassmap, type Classmap } from './classmap';
import { IMAGE_OPCACHE_VIEW } from './image';
import { opcacheSettings, opcacheViewDir, warmOpcache, type WarmOpcache } from './opcache';
import { phpunitRunnerErrors } from './tampering';
import { chooseRunner, localPhpunitRunners, phpunitConstraint, runner, versionOf, type PhpunitRunner } from './runners';
import { field, named } from '../../parse/nodes';
import { parseWithDeadline } from '../../parse/parse';
import { parseClover } from '../../score/coverage/clover';

/**
 * PHPUnit also prints its coverage summary (`Lines: 65.00% (13/20)`) when it writes the Clover file,
 * before any destructor or shutdown function of the test's runs: the tampering checks hold the file
 * read after the process ended against it (tampering.ts, `reportsDisagree`). On stderr, through a
 * stream PHPUnit opens itself: on stdout PHPUnit 9 prints it with `print`, which an output buffer the
 * test opened (ob_start with a callback, run after the destructors) could rewrite.
 */
const COVERAGE_TEXT = ['--coverage-text=php://stderr'];
import { parseJunitXml } from '../../score/reports/junit';

/** `require_once __DIR__ . '/../vendor/autoload.php';` and friends: the bootstrap loads the autoloader. */
const AUTOLOAD_REQUIRE = /^[ \t]*(require|include)(_once)?\b[^;\n]*autoload\.php[^;\n]*;[ \t]*\r?\n?/gm;

/** The first class declared in the test, renamed so it can never collide with a project test. */
export async function renameTestClass(code: string, id: string): Promise<{ code: string; className: string | null }> {
  const parsed = await parseWithDeadline('php', code, 10_000);
  if (!('tree' in parsed)) return { code, className: null };
  try {
    const find = (n: import('web-tree-sitter').Node): import('web-tree-sitter').Node | null => {
      for (const c of named(n)) {
        if (c.type === 'class_declaration') return c;
        if (c.type === 'namespace_definition' || c.type === 'compound_statement') {
          const inner = find(c);
          if (inner) return inner;
        }
      }
      return null;
    };
    const cls = find(parsed.tree.rootNode);
    const name = cls ? field(cls, 'name') : null;
    if (!name) return { code, className: null };
    const renamed = /Test$/.test(name.text) ? name.text.replace(/Test$/, `Xrt${id}Test`) : `${name.text}Xrt${id}Test`;
    return { code: code.slice(0, name.startIndex) + renamed + code.slice(name.endIndex), className: renamed };
  } finally {
    parsed.tree.delete();
  }
}

/** composer.json of the sandbox's project, or {} when missing or not JSON (it is the repository's, hostile). */
function composerOf(ctx: RunContext): ComposerJson {
  const text = readInSandbox(ctx, path.join(ctx.sandbox.projectRoot, 'composer.json'), 4 * 1024 ** 2);
  if (text === null) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as ComposerJson) : {};
  } catch {
    return {};
  }
}

/**
 * Classmaps scanned at placement, while only trusted code has run in the sandbox, by sandbox folder:
 * the bootstrap is written again for every mutant, after the test ran. A few recent ones suffice.
 */
const classmaps = new Map<string, Classmap>();

/**
 * The image's PHPUnit major version for a slot, from the image's probe (trusted, once per image), so
 * the test script need not ask PHPUnit itself: `phpunit --version` is a PHP start, about 35 ms a slot
 * in a container. Unknown (no probe, another context): the script asks, as before.
 */
const imageMajors = new WeakMap<RunContext, number>();

/** A slot's compiled PHPUnit (opcache.ts), for the runner it was warmed for, shown at `dir` in each test phase. */
const opcacheViews = new WeakMap<RunContext, { runner: string; dir: string; warm: WarmOpcache }>();

/** Slots whose image has a compiled PHPUnit (its probe's `opcache` line): the test script reads it. */
const imageOpcache = new WeakSet<RunContext>();

/** PHP's settings for a scored run: pcov on for the project's files, room for big suites, errors on stderr. */
export function phpSettings(root: string): string[] {
  return ['-d', 'pcov.enabled=1', '-d', `pcov.directory=${root}`, '-d', 'memory_limit=1G', '-d', 'display_errors=stderr'];
}

/** What the test script's `printf` writes for PHPUnit 10 and later: the bootstrap, and coverage of the focal file alone. */
function phpunitConfig(boot: string, focal: string): string {
  const xml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<phpunit bootstrap="${xml(boot)}" cacheResult="false">\n  <source><include><file>${xml(focal)}</file></include></source>\n</phpunit>\n`;
}
function rememberClassmap(dir: string, map: Classmap): void {
  classmaps.delete(dir);
  classmaps.set(dir, map);
  while (classmaps.size > 16) classmaps.delete(classmaps.keys().next().value as string);
}

/** The project's own PHPUnit (a Composer install in the copy), which Composer chose for its constraint. */
function vendorPhpunit(ctx: RunContext): string | null {
  const p = path.join(ctx.sandbox.projectRoot, 'vendor', 'bin', 'phpunit');
  return fs.existsSync(p) ? p : null;
}

/** The local executor's runner for this project by composer.json's constraint (runners.ts), or why none fits. */
function localRunner(ctx: RunContext): { runner: PhpunitRunner | null; note: string | null } | { problem: EnvironmentProblem } {
  return chooseRunner(phpunitConstraint(composerOf(ctx)), localPhpunitRunners());
}

/**
 * The project's phpunit bootstrap if its config names one that exists, else Composer's, else ours.
 * Called again per mutant, after the test ran: the project's files are read through the safe reader.
 */
function bootstrapFile(ctx: RunContext): string {
  const root = ctx.sandbox.projectRoot;
  for (const config of ['phpunit.xml', 'phpunit.xml.dist', 'phpunit.dist.xml']) {
    const text = readInSandbox(ctx, path.join(root, config), 4 * 1024 ** 2);
    if (text === null) continue;
    const m = /<phpunit\b[^>]*\bbootstrap\s*=\s*"([^"]+)"/s.exec(text);
    if (m && fs.existsSync(path.join(root, m[1]))) return path.join(root, m[1]);
    break;
  }
  const composerAutoload = path.join(root, 'vendor', 'autoload.php');
  if (fs.existsSync(composerAutoload)) return composerAutoload;
  // No Composer install: an autoloader from composer.json's maps loads the code the same way.
  const ours = path.join(ctx.sandbox.xrt, 'autoload.php');
  writeInSandbox(ctx, ours, phpAutoloaderSource(composerOf(ctx), root, classmaps.get(ctx.sandbox.dir)));
  return ours;
}

function testsDir(root: string): string {
  for (const d of ['tests', 'test', 'Tests']) if (fs.existsSync(path.join(root, d))) return path.join(root, d);
  return path.join(root, 'tests');
}

export const phpToolchain: Toolchain = {
  manifests: ['composer.json'],

  async place(ctx: RunContext): Promise<Placement> {
    const notes: string[] = [];
    const stripped = ctx.testCode.replace(AUTOLOAD_REQUIRE, '');
    if (stripped !== ctx.testCode) notes.push('removed the test\'s own require of autoload.php (the bootstrap loads it)');
    const { code, className } = await renameTestClass(stripped, ctx.id);
    if (!className) notes.push('no class in the test');
    // Composer's classmap, scanned now: nothing untrusted has run in the copy yet.
    const classmap = await scanClassmap(ctx.sandbox.projectRoot, composerOf(ctx));
    rememberClassmap(ctx.sandbox.dir, classmap);
    notes.push(...classmap.notes);
    if (ctx.hostToolchains && !vendorPhpunit(ctx)) {
      const choice = localRunner(ctx);
      if ('runner' in choice && choice.note) notes.push(choice.note);
    }
    const dir = testsDir(ctx.sandbox.projectRoot);
    fs.mkdirSync(dir, { recursive: true });
    const testFile = path.join(dir, `${className ?? `Xrt${ctx.id}Test`}.php`);
    fs.writeFileSync(testFile, code);
    return { testFile, writtenCode: code, testNames: className ? [className] : [], notes };
  },

  /**
   * On the host, with views (local, bubblewrap): the runner's compiled PHPUnit (opcache.ts), warmed
   * once per PHP and runner by a trusted run, for this slot's test phases. Never for the project's own
   * PHPUnit (vendor/): that is the repository's code. No cache, no view: the phases run as before.
   */
  async prepareSandbox(ctx, { executor }) {
    const views = executor.capabilities.commandViews;
    const shared = executor.sharedCache?.('php') ?? null;
    if (!ctx.hostToolchains || !views || !shared || vendorPhpunit(ctx)) return null;
    const choice = localRunner(ctx);
    const chosen = 'runner' in choice ? choice.runner : null;
    if (!chosen) return null;
    const warm = await warmOpcache(chosen, shared.dir, phpSettings);
    if (warm) opcacheViews.set(ctx, { runner: chosen.bin, dir: opcacheViewDir(views), warm });
    return null;
  },

  // Before anything runs: the local executor has no PHPUnit within composer.json's constraint.
  environmentProblem(ctx, executorVersions) {
    if (vendorPhpunit(ctx)) return null;
    if (!ctx.hostToolchains) {
      // The image's runner, as its probe printed it; unknown (no probe line) is no claim.
      const version = executorVersions?.phpunit ? versionOf(executorVersions.phpunit) : null;
      if (!version) return null;
      const major = Number(version.split('.')[0]);
      if (Number.isInteger(major) && major > 0) imageMajors.set(ctx, major);
      if (executorVersions?.opcache === IMAGE_OPCACHE_VIEW) imageOpcache.add(ctx);
      const choice = chooseRunner(phpunitConstraint(composerOf(ctx)), [runner('phpunit', version, 'image')], 'docker');
      return 'problem' in choice ? choice.problem : null;
    }
    const choice = localRunner(ctx);
    return 'problem' in choice ? choice.problem : null;
  },

  // `php -l`: PHP's own verdict on the file, writing nothing; run only when the test phase's report
  // does not answer it (execute/evaluate.ts): PHP and Ruby parse a whole file before running any of it.
  compileOnlyChecks: true,
  smallCopyWrites: true,
  checkOnlyWithoutTests: true,
  compile: (ctx, placement) => phase('compile', ctx, ['php', '-l', placement.testFile], ctx.sandbox.projectRoot),

  test(ctx, placement) {
    const xrt = ctx.sandbox.xrt;
    const root = ctx.sandbox.projectRoot;
    // The project's own PHPUnit; else, locally, the one composer.json's constraint picks; else the image's.
    const chosen = ctx.hostToolchains ? localRunner(ctx) : null;
    const vendor = vendorPhpunit(ctx);
    const local = !vendor && chosen && 'runner' in chosen ? chosen.runner : null;
    const phpunit = vendor ?? local?.bin ?? null;
    const out = ctx.sandbox.out;
    const boot = bootstrapFile(ctx);
    const major = local ? local.major : imageMajors.get(ctx);
    // Our own configuration, not the project's: that one may list other suites, or a coverage filter
    // over folders holding files that do not parse (coverage then fails, and PHPUnit still exits 0).
    // PHPUnit 9 takes a file as --coverage-filter; 10 and later only folders, so there the filter is a
    // <source> element naming the focal file, in a configuration written once the bootstrap is known.
    const config = path.join(out, 'phpunit.xml');
    // The configuration PHPUnit 10+ needs, from here: three processes fewer in the test phase.
    if (major !== undefined && major >= 10) writeInSandbox(ctx, config, phpunitConfig(boot, ctx.sandbox.focalFile));
    // On the host's toolchains with the runner and its version known, the script has nothing left to
    // decide (no $XRT_DEPS there): PHPUnit is started directly, one shell fewer in a phase of ~60 ms.
    if (ctx.hostToolchains && local && phpunit === local.bin) {
      const selection = local.major >= 10 ? ['--configuration', config] : ['--no-configuration', '--bootstrap', boot, '--coverage-filter', ctx.sandbox.focalFile];
      const cache = opcacheViews.get(ctx);
      const viewed = cache?.runner === phpunit ? cache : null;
      const cmd = phase(
        'test',
        ctx,
        ['php', ...phpSettings(root), ...(viewed ? opcacheSettings(viewed.dir) : []), phpunit, ...selection, '--do-not-cache-result', '--log-junit', path.join(out, 'junit.xml'), '--coverage-clover', path.join(out, 'clover.xml'), ...COVERAGE_TEXT, placement.testFile],
        root,
      );
      if (viewed) cmd.view = { dir: viewed.dir, readOnly: viewed.warm.systems.map((s) => ({ source: path.join(viewed.warm.dir, s), dest: path.posix.join(viewed.dir, s) })) };
      return cmd;
    }
    // In a repository's environment image the dependencies live in $XRT_DEPS/vendor (docker/README.md):
    // Composer writes an autoloader there for this copy of the project, and its PHPUnit is used.
    const script = [
      // MAJOR: the chosen local runner's, known from its probe on the host; else PHPUnit is asked here.
      // OPC: the image's compiled PHPUnit (its view folder), or empty.
      'ROOT=$1 BOOT=$2 JUNIT=$3 FOCAL=$4 CLOVER=$5 TEST=$6 CONFIG=$7 MAJOR=$8 OPC=$9',
      `O=; [ -z "$OPC" ] || O="${opcacheSettings('$OPC').join(' ')}"`,
      `PHPUNIT=${phpunit ? `'${phpunit.replace(/'/g, `'\\''`)}'` : '$(command -v phpunit)'}`,
      'if [ -n "${XRT_DEPS:-}" ] && [ -d "$XRT_DEPS/vendor" ] && command -v composer >/dev/null; then',
      '  COMPOSER_VENDOR_DIR="$XRT_DEPS/vendor" composer dump-autoload --quiet --no-interaction --working-dir="$ROOT" && BOOT="$XRT_DEPS/vendor/autoload.php"',
      // Another bootstrap and maybe another PHPUnit: a configuration written for the image's is not this one's.
      '  [ -x "$XRT_DEPS/vendor/bin/phpunit" ] && PHPUNIT="$XRT_DEPS/vendor/bin/phpunit" && MAJOR=',
      '  rm -f "$CONFIG"',
      'fi',
      String.raw`[ -n "$MAJOR" ] || MAJOR=$(php "$PHPUNIT" --version | sed -n 's/^PHPUnit \([0-9]*\).*/\1/p')`,
      String.raw`xml() { printf %s "$1" | sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g'; }`,
      'if [ "${MAJOR:-9}" -ge 10 ]; then',
      // Written by the engine already when it knew the major version (the image's probe); else here.
      String.raw`  [ -f "$CONFIG" ] || printf '<?xml version="1.0" encoding="UTF-8"?>\n<phpunit bootstrap="%s" cacheResult="false">\n  <source><include><file>%s</file></include></source>\n</phpunit>\n' "$(xml "$BOOT")" "$(xml "$FOCAL")" > "$CONFIG"`,
      '  set -- --configuration "$CONFIG"',
      'else',
      '  set -- --no-configuration --bootstrap "$BOOT" --coverage-filter "$FOCAL"',
      'fi',
      // $O unquoted: the engine's fixed settings and path (no space, no pattern), split into words.
      `exec php ${phpSettings('"$ROOT"').join(' ')} $O "$PHPUNIT" "$@" \\`,
      `  --do-not-cache-result --log-junit "$JUNIT" --coverage-clover "$CLOVER" ${COVERAGE_TEXT.join(' ')} "$TEST"`,
    ].join('\n');
    writeInSandbox(ctx, path.join(xrt, 'phpunit.sh'), script + '\n');
    return phase(
      'test',
      ctx,
      ['sh', path.join(xrt, 'phpunit.sh'), root, boot, path.join(out, 'junit.xml'), ctx.sandbox.focalFile, path.join(out, 'clover.xml'), placement.testFile, config, local ? String(local.major) : String(imageMajors.get(ctx) ?? ''), !ctx.hostToolchains && imageOpcache.has(ctx) ? IMAGE_OPCACHE_VIEW : ''],
      root,
    );
  },

  coverage: () => null,

  // PHPUnit may write its result cache here even when told not to (some versions, some configurations).
  writableDirs: (ctx) => [path.join(ctx.sandbox.projectRoot, '.phpunit.cache')],

  testReport(ctx, _placement, test) {
    const junit = readReport(ctx, 'junit.xml');
    // No report: PHPUnit died before running (a fatal error in the test file).
    if (junit === null) return emptyReport(1);
    const report = parseJunitXml(junit);
    // PHPUnit's own errors (10+: an invalid data provider) are in its output, not in the JUnit report.
    return { ...report, outsideErrors: report.outsideErrors + phpunitRunnerErrors(test.output) };
  },

  focalHits(ctx) {
    const clover = readReport(ctx, 'clover.xml');
    return clover !== null ? parseClover(clover, ctx.sandbox.focalFile) : null;
  },
};
