import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DockerExecutor } from '../../src/engine/execute/docker';
import { evaluateTest, type Evaluation } from '../../src/engine/execute/evaluate';
import { LocalExecutor } from '../../src/engine/execute/local';
import { extractRepository } from '../../src/engine/extract/extract';
import type { TaskRecord } from '../../src/engine/tasks/record';
import { engineForTests, languageImageForTests } from '../helpers/engine';
import { REPO_ROOT } from '../helpers/paths';
import { realRepository, type RealRepoSource } from '../helpers/real-repo';
import { hasTool, skipBecause } from '../helpers/skip';

/**
 * Ruby fidelity on real gems (issue 12, item 7): specs written as a model writes them (passing,
 * failing, erroring, not parsing, calling a method that does not exist, using the spec helper's
 * shared contexts and doubles, one that never calls the focal method) run through the engine, and
 * compared line by line with Ruby's own Coverage run natively, outside the engine:
 * - executable: the lines `Coverage` marks as code in the focal method, less its `def` header (found
 *   with Ruby's own parser, RubyVM::AbstractSyntaxTree, not tree-sitter);
 * - covered: lines run more often by the spec than by the same spec with every example body and
 *   hook of its own emptied (a baseline: loading, the spec helper and its hooks, subtracted);
 * - verdicts: `ruby -c`, and rspec's exit status.
 * Expected verdicts and line counts: test/data/fidelity/ruby.json; specs: test/data/fidelity/ruby/.
 * Where the spec helper needs a gem this machine lacks, every slot must be the environment verdict
 * `dependencies-unresolvable` naming it, and the native run must fail to load it too.
 */

interface SpecCase {
  spec: string;
  file: string;
  function: string;
  compiled: boolean;
  passed: boolean;
  category: string | null;
  /** covered/executable focal lines, e.g. "9/14". */
  lines: string;
  /** Cov under the former definition (the whole run's Coverage, `def` line included), for the record. */
  formerCov: string;
}

interface RepoCase {
  name: string;
  version: string;
  /** A pinned public source, or a local checkout named by an environment variable (manual runs). */
  source: RealRepoSource | { kind: 'local-checkout'; env: string };
  specs: SpecCase[];
}

const DATA = path.join(REPO_ROOT, 'test', 'data', 'fidelity');
const CASES = JSON.parse(fs.readFileSync(path.join(DATA, 'ruby.json'), 'utf8')) as { repositories: RepoCase[] };

/** Ruby's own parser: blanks a spec's examples and hooks (the baseline), or finds a def's header lines. */
const NATIVE_RB = `require 'json'
AST = RubyVM::AbstractSyntaxTree
mode, file, arg = ARGV
src = File.read(file)
case mode
when 'blank'
  names = %i[it specify example before after around let! subject!]
  edits = []
  walk = lambda do |n|
    next unless n.is_a?(AST::Node)
    if n.type == :ITER
      call, scope = n.children
      name = %i[FCALL VCALL].include?(call.type) ? call.children[0] : nil
      if names.include?(name) && scope.type == :SCOPE
        body = scope.children[2]
        edits << [body, name == :around ? "#{scope.children[0][0]}.run" : 'nil'] if body
        next
      end
    end
    n.children.each { |c| walk.call(c) }
  end
  walk.call(AST.parse(src))
  starts = [0]
  src.each_line { |l| starts << starts.last + l.bytesize }
  out = src.b
  edits.sort_by { |b, _| -(starts[b.first_lineno - 1] + b.first_column) }.each do |b, text|
    from = starts[b.first_lineno - 1] + b.first_column
    to = starts[b.last_lineno - 1] + b.last_column
    out[from...to] = text + ("\\n" * (b.last_lineno - b.first_lineno))
  end
  File.write(arg, out)
when 'headers'
  line = Integer(arg)
  found = nil
  walk = lambda do |n|
    next unless n.is_a?(AST::Node)
    if %i[DEFN DEFS].include?(n.type) && n.first_lineno == line
      found = n
      next
    end
    n.children.each { |c| walk.call(c) }
  end
  walk.call(AST.parse(src))
  lines = []
  if found
    body = found.children.last.children[2]
    body = body.children.first if body&.type == :BLOCK
    lines = (found.first_lineno...(body ? body.first_lineno : found.last_lineno + 1)).to_a
  end
  puts JSON.generate(lines)
end
`;

/** Plain `ruby -rcoverage`: the whole run's line counts, written at exit. */
const NATIVE_COVERAGE_RB = `require 'coverage'
Coverage.start(lines: true)
at_exit { require 'json'; File.write(ENV.fetch('NATIVE_COVERAGE_OUT'), JSON.generate(Coverage.result.transform_values { |v| v[:lines] })) }
`;

const executor = new LocalExecutor();
let scratch = '';

/**
 * The native side runs with an environment as clean as the engine's phases get (no CI, no RUBYOPT of
 * the caller…): hashie's spec helper, for one, starts SimpleCov when CI is set.
 */
function ruby(args: string[], cwd: string, env: Record<string, string> = {}): { status: number | null; output: string } {
  const base: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', LANG: 'C.UTF-8' };
  const r = spawnSync(args[0], args.slice(1), { cwd, encoding: 'utf8', env: { ...base, ...env }, timeout: 120_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

function copyOf(dir: string): string {
  const copy = path.join(fs.mkdtempSync(path.join(scratch, 'native-')), path.basename(dir));
  fs.cpSync(dir, copy, { recursive: true });
  return copy;
}

/** Coverage of the focal file from one native rspec run of `spec` (placed as the engine places it). */
function nativeRun(repo: string, focalRel: string, specCode: string): { status: number | null; lines: Array<number | null>; output: string } {
  const copy = copyOf(repo);
  const specFile = path.join(copy, 'spec', 'xrt_native_spec.rb');
  fs.writeFileSync(specFile, specCode);
  const out = path.join(scratch, `cov-${Math.random().toString(16).slice(2)}.json`);
  const r = ruby(['rspec', specFile], copy, { RUBYOPT: `-r${path.join(scratch, 'native_coverage.rb')}`, NATIVE_COVERAGE_OUT: out });
  const report = fs.existsSync(out) ? (JSON.parse(fs.readFileSync(out, 'utf8')) as Record<string, Array<number | null>>) : {};
  const focal = fs.realpathSync(path.join(copy, focalRel));
  const lines = Object.entries(report).find(([f]) => f === focal || fs.existsSync(f) && fs.realpathSync(f) === focal)?.[1] ?? [];
  fs.rmSync(path.dirname(copy), { recursive: true, force: true });
  return { status: r.status, lines, output: r.output };
}

interface Native {
  compiled: boolean;
  passed: boolean;
  executable: number[];
  covered: number[];
  formerExecutable: number[];
  formerCovered: number[];
}

function native(repo: string, task: TaskRecord, focalRel: string, specCode: string): Native {
  const specPath = path.join(scratch, 'spec_under_test.rb');
  fs.writeFileSync(specPath, specCode);
  const compiled = ruby(['ruby', '-c', specPath], scratch).status === 0;
  const empty = { executable: [], covered: [], formerExecutable: [], formerCovered: [] };
  if (!compiled) return { compiled, passed: false, ...empty };
  const full = nativeRun(repo, focalRel, specCode);
  const baselinePath = path.join(scratch, 'baseline_spec.rb');
  const blanked = ruby(['ruby', path.join(scratch, 'native.rb'), 'blank', specPath, baselinePath], scratch);
  assert.equal(blanked.status, 0, blanked.output);
  const baseline = nativeRun(repo, focalRel, fs.readFileSync(baselinePath, 'utf8'));
  const { start_line, end_line } = task.function_component;
  const headers = JSON.parse(ruby(['ruby', path.join(scratch, 'native.rb'), 'headers', path.join(repo, focalRel), String(start_line)], scratch).output) as number[];
  const n: Native = { compiled, passed: full.status === 0, executable: [], covered: [], formerExecutable: [], formerCovered: [] };
  for (let line = start_line; line <= end_line; line++) {
    const hits = full.lines[line - 1];
    if (hits === null || hits === undefined) continue;
    n.formerExecutable.push(line);
    if (hits > 0) n.formerCovered.push(line);
    if (headers.includes(line)) continue;
    n.executable.push(line);
    if (hits > (baseline.lines[line - 1] ?? 0)) n.covered.push(line);
  }
  return n;
}

/** Whether the spec helper loads here, natively: the gem it cannot load, or null. */
function specHelperMissing(repo: string): string | null {
  const copy = copyOf(repo);
  const probe = path.join(copy, 'spec', 'xrt_probe_spec.rb');
  fs.writeFileSync(probe, "require 'spec_helper'\n");
  const r = ruby(['rspec', probe], copy);
  fs.rmSync(path.dirname(copy), { recursive: true, force: true });
  if (r.status === 0) return null;
  return /cannot load such file -- (\S+)/.exec(r.output)?.[1] ?? `(spec helper fails: ${r.output.slice(0, 300)})`;
}

function why(e: Evaluation): string {
  return `\n${e.phases.map((p) => `$ ${p.argv.join(' ')} -> ${p.exitCode}\n${p.output.slice(-2000)}`).join('\n')}`;
}

async function tasksOf(repo: RepoCase, dir: string): Promise<TaskRecord[]> {
  const { tasks } = await extractRepository(dir, {
    languages: ['ruby'],
    // Every method: the release's filters keep only long ones, and the cases need short ones too.
    filters: { minLines: 1, requireOutput: false },
    repository: { name: repo.name, url: dir, commit: null, path: dir },
  });
  return tasks;
}

async function repositoryDir(ctx: Mocha.Context, repo: RepoCase): Promise<string> {
  if (repo.source.kind === 'local-checkout') {
    const dir = process.env[repo.source.env];
    const name = `${repo.name} ${repo.version}`;
    if (!dir || !fs.existsSync(dir)) skipBecause(ctx, `${name} has no reachable public archive here; set ${repo.source.env} to a checkout of it for a manual run`, { source: name });
    const copy = path.join(fs.mkdtempSync(path.join(scratch, 'checkout-')), repo.name);
    fs.cpSync(dir!, copy, { recursive: true, filter: (src) => path.basename(src) !== '.git' });
    return copy;
  }
  const got = await realRepository(repo.source);
  if ('unavailable' in got) skipBecause(ctx, got.unavailable);
  return (got as { dir: string }).dir;
}

describe('fidelity: Ruby on real gems, against Ruby\'s own Coverage', function () {
  this.timeout(900_000);

  before(() => {
    scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-rbfid-')));
    fs.writeFileSync(path.join(scratch, 'native.rb'), NATIVE_RB);
    fs.writeFileSync(path.join(scratch, 'native_coverage.rb'), NATIVE_COVERAGE_RB);
  });
  after(() => fs.rmSync(scratch, { recursive: true, force: true }));

  for (const repo of CASES.repositories) {
    it(`${repo.name} ${repo.version}: ${repo.specs.length} specs, verdicts and covered/executable lines as native`, async function () {
      if (!hasTool('ruby') || !hasTool('rspec')) skipBecause(this, 'ruby or rspec is not installed here (Debian: ruby, ruby-rspec)');
      const dir = await repositoryDir(this, repo);
      const tasks = await tasksOf(repo, dir);
      const missing = specHelperMissing(dir);
      const table: string[] = [];
      for (const c of repo.specs) {
        const task = tasks.find((t) => t.file_path === `${repo.name}/${c.file}` && t.function_name === c.function);
        assert.ok(task, `task ${c.function} in ${c.file}`);
        const code = fs.readFileSync(path.join(DATA, 'ruby', c.spec), 'utf8');
        const e = await evaluateTest(task!, 'ruby', code, { executor, repoDir: dir });
        if (missing) {
          // The machine lacks a gem of the spec helper: nothing here says anything about the spec.
          assert.equal(e.environment?.cause, 'dependencies-unresolvable', `${c.spec}${why(e)}`);
          assert.ok(e.environment!.reason.includes(missing), e.environment!.reason);
          table.push(`${c.spec}: environment (${missing})`);
          continue;
        }
        const n = native(dir, task!, c.file, code);
        const at = `${c.spec}${why(e)}`;
        assert.equal(e.score.compiled, n.compiled, `compiled, as ruby -c says: ${at}`);
        assert.equal(e.score.passed, n.passed, `passed, as rspec's exit status says: ${at}`);
        assert.equal(e.score.compiled, c.compiled, `expected compiled: ${at}`);
        assert.equal(e.score.passed, c.passed, `expected passed: ${at}`);
        assert.equal(e.score.failure?.category ?? null, c.category, `expected category (rule ${e.score.failure?.rule}): ${at}`);
        assert.deepEqual(e.score.coverage.executable, n.executable, `executable lines as native: ${c.spec}`);
        assert.deepEqual(e.score.coverage.covered, n.covered, `covered lines as native: ${c.spec}`);
        assert.equal(`${e.score.coverage.covered.length}/${e.score.coverage.executable.length}`, c.lines, `expected covered/executable: ${c.spec}`);
        assert.equal(`${n.formerCovered.length}/${n.formerExecutable.length}`, c.formerCov, `Cov under the former definition: ${c.spec}`);
        table.push(`${c.spec}: compiled ${e.score.compiled}, passed ${e.score.passed}, ${e.score.failure?.category ?? 'pass'}, Cov ${c.lines} (former ${c.formerCov})`);
      }
      process.stdout.write(table.map((l) => `      ${l}\n`).join(''));
    });
  }
});

describe('fidelity: Ruby on real gems, the docker executor as the local one', function () {
  this.timeout(900_000);
  let docker: DockerExecutor;
  let image: string;

  before(async function () {
    scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-rbfid-docker-')));
    const engine = await engineForTests(this);
    image = await languageImageForTests(this, 'ruby');
    docker = await DockerExecutor.create({ engine });
  });
  after(async () => {
    fs.rmSync(scratch, { recursive: true, force: true });
    await docker?.close();
  });

  for (const repo of CASES.repositories) {
    it(`${repo.name} ${repo.version}: the expected verdicts and lines in the language image, or the gem it lacks named`, async function () {
      const dir = await repositoryDir(this, repo);
      const tasks = await tasksOf(repo, dir);
      const helper = fs.readFileSync(path.join(dir, 'spec', 'spec_helper.rb'), 'utf8');
      const table: string[] = [];
      for (const c of repo.specs) {
        const task = tasks.find((t) => t.file_path === `${repo.name}/${c.file}` && t.function_name === c.function)!;
        const code = fs.readFileSync(path.join(DATA, 'ruby', c.spec), 'utf8');
        const e = await evaluateTest(task, 'ruby', code, { executor: docker, repoDir: dir, image });
        const at = `${c.spec}${why(e)}`;
        if (e.environment) {
          // The language image has no bundle of this repository (no registry here): only a gem the spec helper requires may be missing.
          assert.equal(e.environment.cause, 'dependencies-unresolvable', at);
          const gem = /cannot load (\S+)\)/.exec(e.environment.reason)?.[1] ?? '';
          assert.ok(gem && helper.includes(`require '${gem}'`), `the missing ${gem} is one the spec helper requires: ${e.environment.reason}`);
          table.push(`${c.spec}: environment (${gem}, not in the image)`);
          continue;
        }
        assert.equal(e.score.compiled, c.compiled, `compiled: ${at}`);
        assert.equal(e.score.passed, c.passed, `passed: ${at}`);
        assert.equal(e.score.failure?.category ?? null, c.category, `category: ${at}`);
        assert.equal(`${e.score.coverage.covered.length}/${e.score.coverage.executable.length}`, c.lines, `covered/executable: ${at}`);
        table.push(`${c.spec}: ${e.score.failure?.category ?? 'pass'}, Cov ${c.lines}`);
      }
      process.stdout.write(table.map((l) => `      ${l}\n`).join(''));
    });
  }
});
