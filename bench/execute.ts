/**
 * What scoring costs on top of the native test command: per language, on the same fixture task and the
 * same hand-written passing test, the median wall time of
 *   native  — the plain test command in a prepared copy (`go test -run`, `cargo test`, `phpunit`, `rspec`);
 *   local   — the whole scored evaluation with the local executor (copy, place, compile, test, coverage,
 *             parse, score, clean up);
 *   docker  — the same in a container, where an engine and the language image are available;
 * all warm (one untimed round first), measured in one run. `npm run bench:execute [-- rounds]`.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DockerExecutor } from '../src/engine/execute/docker';
import { connectEngine } from '../src/engine/execute/docker-engine';
import { evaluateTest } from '../src/engine/execute/evaluate';
import { findLanguageImage } from '../src/engine/execute/images';
import { LocalExecutor } from '../src/engine/execute/local';
import { phpAutoloaderSource } from '../src/engine/languages/php/autoload';
import type { Executor } from '../src/engine/execute/types';
import { extractRepository } from '../src/engine/extract/extract';
import type { LanguageId } from '../src/engine/parse/grammars';

const ROOT = path.join(__dirname, '..');
const ROUNDS = Number(process.argv[2] ?? process.env.BENCH_ROUNDS ?? 5);
const FIXTURE: Record<string, string> = { go: 'inventory-go', rust: 'geometry-rs', php: 'textkit-php', ruby: 'bookshelf-rb' };
const FOCAL: Record<string, string> = { go: 'Status', rust: 'classify_triangle', php: 'slugify', ruby: 'search' };
const EXT: Record<string, string> = { go: 'go', rust: 'rs', php: 'php', ruby: 'rb' };

/** Prepares a copy with the test in place and returns the native command to time there. */
function nativeSetup(lang: string, dir: string, test: string): { cmd: string; args: string[]; env?: NodeJS.ProcessEnv } {
  switch (lang) {
    case 'go':
      fs.writeFileSync(path.join(dir, 'bench_status_test.go'), test.replace('func TestStatus(', 'func TestBenchStatus('));
      return { cmd: 'go', args: ['test', '-count=1', '-run', '^TestBenchStatus$', '.'] };
    case 'rust':
      fs.appendFileSync(path.join(dir, 'src', 'triangle.rs'), '\n' + test.replace('mod tests', 'mod bench_tests'));
      return { cmd: 'cargo', args: ['test', '--offline', '--lib', 'bench_tests::'], env: { CARGO_TARGET_DIR: path.join(dir, 'target') } };
    case 'php': {
      fs.mkdirSync(path.join(dir, 'vendor'));
      const composer = JSON.parse(fs.readFileSync(path.join(dir, 'composer.json'), 'utf8'));
      fs.writeFileSync(path.join(dir, 'vendor', 'autoload.php'), phpAutoloaderSource(composer));
      fs.writeFileSync(path.join(dir, 'tests', 'BenchSluggerTest.php'), test.replace('class SluggerTest', 'class BenchSluggerTest'));
      return { cmd: 'phpunit', args: ['--no-configuration', '--bootstrap', 'vendor/autoload.php', 'tests/BenchSluggerTest.php'] };
    }
    default:
      fs.writeFileSync(path.join(dir, 'spec', 'bench_search_spec.rb'), `require 'spec_helper'\n${test}`);
      return { cmd: 'rspec', args: ['spec/bench_search_spec.rb'] };
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function timeIt(f: () => Promise<void> | void): Promise<number> {
  const t0 = process.hrtime.bigint();
  await f();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

async function main(): Promise<void> {
  const local = new LocalExecutor();
  let docker: DockerExecutor | null = null;
  let engineNote = '';
  try {
    docker = await DockerExecutor.create({ engine: await connectEngine() });
  } catch (e) {
    engineNote = `docker: not measured (${(e as Error).message.split('\n')[0]})`;
  }
  console.log(`rounds: ${ROUNDS} (median ms, warm); local: ${(await local.info('go')).engine}`);
  if (engineNote) console.log(engineNote);
  console.log('\nlanguage   native ms   local ms  local/native   docker ms  docker/native');
  for (const lang of Object.keys(FIXTURE) as LanguageId[]) {
    const repo = path.join(ROOT, 'test', 'fixtures', FIXTURE[lang]);
    const { tasks } = await extractRepository(repo, { languages: [lang] });
    const task = tasks.find((t) => t.function_name === FOCAL[lang])!;
    const test = fs.readFileSync(path.join(ROOT, 'test', 'data', 'generated', lang, `pass.${EXT[lang]}`), 'utf8');

    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-bench-native-'));
    fs.cpSync(repo, copy, { recursive: true });
    const native = nativeSetup(lang, copy, test);
    const runNative = (): void => {
      const r = spawnSync(native.cmd, native.args, { cwd: copy, env: { ...process.env, ...native.env }, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`${native.cmd} ${native.args.join(' ')} failed:\n${r.stdout}${r.stderr}`);
    };
    const evaluate = (executor: Executor, image?: string) => async (): Promise<void> => {
      const e = await evaluateTest(task, lang, test, { executor, repoDir: repo, image });
      if (!e.score.passed) throw new Error(`${lang}: the passing test did not pass under ${executor.kind}`);
    };
    const image = docker ? await findLanguageImage(docker.engine.docker, lang) : undefined;
    const runs: Array<[string, () => Promise<void> | void]> = [['native', runNative], ['local', evaluate(local)]];
    if (docker && image) runs.push(['docker', evaluate(docker, image)]);
    const times: Record<string, number[]> = {};
    for (const [, f] of runs) await f(); // warm
    for (let i = 0; i < ROUNDS; i++) for (const [name, f] of runs) (times[name] ??= []).push(await timeIt(f));
    fs.rmSync(copy, { recursive: true, force: true });
    const n = median(times.native);
    const l = median(times.local);
    const d = times.docker ? median(times.docker) : NaN;
    const cell = (x: number, w: number): string => (Number.isNaN(x) ? '—'.padStart(w) : x.toFixed(0).padStart(w));
    const ratio = (x: number, w: number): string => (Number.isNaN(x) ? '—'.padStart(w) : (x / n).toFixed(2).padStart(w));
    console.log(`${lang.padEnd(8)} ${cell(n, 10)} ${cell(l, 10)} ${ratio(l, 13)} ${cell(d, 11)} ${ratio(d, 14)}`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
