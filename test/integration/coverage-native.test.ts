import { FIXED_SANDBOX_PATH } from '../../src/engine/execute/local';
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { evaluateTest, type Evaluation } from '../../src/engine/execute/evaluate';
import { LocalExecutor } from '../../src/engine/execute/local';
import { findProjectRoot } from '../../src/engine/execute/sandbox';
import type { LanguageId } from '../../src/engine/parse/grammars';
import { FIXTURE_OF, TOOLS_OF, fixtureTask, generatedTest } from '../helpers/evaluate';
import { goNativeLines } from '../helpers/go-cover-lines';
import { fixture } from '../helpers/paths';
import { nativeRustStatementLines, rustStatementLineFinder } from '../helpers/rust-statement-lines';
import { hasTool, skipBecause } from '../helpers/skip';

/**
 * Focal coverage must be what the language's own tool says about those lines. After a scored run
 * (the sandbox kept), each tool renders its own per-line view from the same run's data, by a route
 * our parsers do not take — Go's profile read with go/ast, PHPUnit's HTML report, llvm-cov's `show`, SimpleCov — and the
 * executable and covered focal lines must match ours exactly.
 */
interface LineView {
  executable: Set<number>;
  covered: Set<number>;
}

/** The sandbox's report folder (`.xrt/out-<random>` in a `.xrt` that is not listable: docs/execution.md). */
function reportDir(sandbox: string): string {
  fs.chmodSync(path.join(sandbox, '.xrt'), 0o700);
  const name = fs.readdirSync(path.join(sandbox, '.xrt')).find((n) => n.startsWith('out-'));
  assert.ok(name, 'the sandbox has a report folder');
  return path.join(sandbox, '.xrt', name);
}

function sh(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): string {
  const r = spawnSync(cmd, args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 300_000 });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}:\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

/**
 * Go: the same run's cover profile read with Go's own parser (test/helpers/go-cover-lines, go/ast):
 * executable = lines where a statement cover counts starts, covered = those a block that ran holds
 * (METRICS.md). `go tool cover -html` paints every character of a block, braces and comments too, so
 * it cannot serve as the per-line view of that definition.
 */
function goNativeView(sandbox: string, focal: string): LineView {
  const root = findProjectRoot(sandbox, focal, ['go.mod']);
  const mod = /^module\s+(\S+)/m.exec(fs.readFileSync(path.join(root, 'go.mod'), 'utf8'))![1];
  const importPath = `${mod}/${path.relative(root, focal).split(path.sep).join('/')}`;
  const native = goNativeLines(path.join(reportDir(sandbox), 'cover.out'), focal, importPath);
  return { executable: new Set(native.executable), covered: new Set(native.covered) };
}

/**
 * `llvm-cov show`: one line per source line, `  N|  count|code`, count empty where not code; kept
 * where a statement starts (METRICS.md), by syn on the task's own file (test/helpers/rust-statement-lines).
 */
function llvmShowView(sandbox: string, focal: string): LineView {
  const finder = rustStatementLineFinder();
  if (typeof finder !== 'string') throw new Error(finder.unavailable);
  // The fixture's own file: the sandbox's copy holds the test module after the focal function.
  const statements = nativeRustStatementLines(finder, path.join(fixture(FIXTURE_OF.rust), path.relative(sandbox, focal)));
  // The phases ran with the sandbox at the local executor's fixed path: the executables are named, and
  // their coverage maps name the sources, under it; here, on the host, the sandbox is at its own path.
  const onHost = (p: string): string => (p.startsWith(`${FIXED_SANDBOX_PATH}/`) ? path.join(sandbox, p.slice(FIXED_SANDBOX_PATH.length)) : p);
  const exes = (JSON.parse(fs.readFileSync(path.join(sandbox, '.xrt', 'test-executables.json'), 'utf8')) as string[]).map(onHost);
  const objects = exes.slice(1).flatMap((e) => ['-object', e]);
  const out = sh('llvm-cov-22', ['show', `-instr-profile=${path.join(reportDir(sandbox), 'merged.profdata')}`, `-path-equivalence=${FIXED_SANDBOX_PATH},${sandbox}`, exes[0], ...objects, focal], sandbox);
  const view: LineView = { executable: new Set(), covered: new Set() };
  for (const l of out.split('\n')) {
    const m = /^\s*(\d+)\|\s*([0-9.]+[kMG]?)\|/.exec(l);
    if (!m || !statements.has(Number(m[1]))) continue;
    view.executable.add(Number(m[1]));
    if (m[2] !== '0') view.covered.add(Number(m[1]));
  }
  return view;
}

/** PHPUnit's HTML report of the same test: rows `danger` (not run) and `covered-by-*` / `success`. */
function phpunitHtmlView(sandbox: string, focal: string, e: Evaluation): LineView {
  const testFile = path.join(sandbox, e.placement!.testFile);
  const out = path.join(sandbox, '.xrt', 'html');
  sh('php', ['-d', 'pcov.enabled=1', '-d', `pcov.directory=${sandbox}`, '/usr/bin/phpunit', '--no-configuration', '--bootstrap', path.join(sandbox, '.xrt', 'autoload.php'), '--coverage-filter', focal, '--coverage-html', out, testFile], sandbox);
  const html = fs.readFileSync(path.join(out, `${path.basename(focal)}.html`), 'utf8');
  const view: LineView = { executable: new Set(), covered: new Set() };
  for (const m of html.matchAll(/<tr class="([^"]*)"><td [^>]*><a id="(\d+)"/g)) {
    const [classes, n] = [m[1], Number(m[2])];
    if (/\bdanger\b/.test(classes)) view.executable.add(n);
    if (/\b(success|covered-by-[a-z-]+)\b/.test(classes)) {
      view.executable.add(n);
      view.covered.add(n);
    }
  }
  return view;
}

/** SimpleCov over the same spec: its `.resultset.json` lines for the focal file. */
function simplecovView(sandbox: string, focal: string, e: Evaluation): LineView {
  const root = findProjectRoot(sandbox, focal, ['Gemfile']);
  const dir = path.join(sandbox, '.xrt', 'simplecov');
  const start = path.join(sandbox, '.xrt', 'simplecov_start.rb');
  fs.writeFileSync(start, `require 'simplecov'\nSimpleCov.root(${JSON.stringify(root)})\nSimpleCov.coverage_dir(${JSON.stringify(dir)})\nSimpleCov.start\n`);
  sh('rspec', [path.join(sandbox, e.placement!.testFile)], root, { RUBYOPT: `-r${start}` });
  const result = JSON.parse(fs.readFileSync(path.join(dir, '.resultset.json'), 'utf8')) as Record<string, { coverage: Record<string, { lines: Array<number | null> }> }>;
  const lines = Object.values(result)[0].coverage[focal].lines;
  const view: LineView = { executable: new Set(), covered: new Set() };
  lines.forEach((hits, i) => {
    if (hits === null) return;
    view.executable.add(i + 1);
    if (hits > 0) view.covered.add(i + 1);
  });
  return view;
}

const VIEWS: Partial<Record<LanguageId, (sandbox: string, focal: string, e: Evaluation) => LineView>> = {
  go: goNativeView,
  rust: llvmShowView,
  php: phpunitHtmlView,
  ruby: simplecovView,
};

describe("focal coverage equals the native tool's own per-line view", function () {
  this.timeout(600_000);
  const executor = new LocalExecutor();

  for (const [language, view] of Object.entries(VIEWS) as Array<[LanguageId, (s: string, f: string, e: Evaluation) => LineView]>) {
    it(language, async function () {
      const missing = TOOLS_OF[language].filter((t) => !hasTool(t, t === 'go' ? ['version'] : ['--version']));
      if (missing.length) skipBecause(this, `${missing.join(', ')} not installed here`);
      const task = await fixtureTask(language);
      const e = await evaluateTest(task, language, generatedTest(language, 'pass'), { executor, repoDir: fixture(FIXTURE_OF[language]), keepSandbox: true });
      try {
        assert.ok(e.score.passed && e.sandboxDir, 'the passing test passed');
        const focal = path.join(e.sandboxDir!, task.file_path.split('/').slice(1).join('/'));
        const native = view(e.sandboxDir!, focal, e);
        const { start_line, end_line } = task.function_component;
        // Ruby's Cov leaves out the `def` header, run only when the file loads (METRICS.md, Ruby).
        if (language === 'ruby') for (const set of [native.executable, native.covered]) set.delete(start_line);
        const inRange = (s: Set<number>): number[] => [...s].filter((l) => l >= start_line && l <= end_line).sort((a, b) => a - b);
        assert.ok(inRange(native.covered).length > 0 && inRange(native.covered).length < inRange(native.executable).length, 'a partial run: some lines covered, some not');
        assert.deepEqual(e.score.coverage.executable, inRange(native.executable), 'executable focal lines');
        assert.deepEqual(e.score.coverage.covered, inRange(native.covered), 'covered focal lines');
      } finally {
        if (e.sandboxDir) fs.rmSync(e.sandboxDir, { recursive: true, force: true });
      }
    });
  }
});
