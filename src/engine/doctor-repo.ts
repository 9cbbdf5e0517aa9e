import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { copyRepository } from './execute/copy-repository';
import { firstErrorLine } from './execute/evaluate';
import { NOT_COPIED } from './execute/sandbox';
import { DEFAULT_LIMITS, type Executor, type PhaseCommand } from './execute/types';
import { adapterFor } from './languages';
import { PROBE_SPEC as RUBY_PROBE_SPEC, probeSpec as rubyProbeSpec, rubyRepositoryFacts, warmUpScript as rubyWarmUpScript } from './languages/ruby/bundle';
import { fetchDependencies, isResolutionFailure, unresolvableProblem, type FetchResult } from './languages/rust/dependencies';
import { phpRepositoryFacts } from './languages/php/doctor';
import { LANGUAGE_IDS, type LanguageId } from './parse/grammars';
import type { EnvironmentProblem } from './score/types';
import { extractRepository } from './extract/extract';
import { FEATURES_KEY, NO_DEFAULT_FEATURES_KEY } from './languages/rust/configuration';

/** What `xrepotest doctor --repo DIR` found for one language of the repository. */
export interface RepositoryLanguageCheck {
  language: LanguageId;
  /** The trusted build of the untouched project, as run (null when the toolchain is missing or the image failed). */
  build: { command: string; exitCode: number | null; timedOut: boolean; output: string } | null;
  problems: EnvironmentProblem[];
  /** What else the language's checks found (PHP: the runner for the constraint, the classmap). */
  notes?: string[];
  /** Rust: what the repository's tasks (extracted with the release's filters) need from cargo. */
  rustFeatures?: RustFeatureNeeds;
}

/** Rust: the `--features` sets the extracted tasks need (task counts), and the tasks dropped by cfg-excluded. */
export interface RustFeatureNeeds {
  tasks: number;
  /** `--features` value ('' for none, ` --no-default-features` appended where needed) -> tasks. */
  bySet: Record<string, number>;
  cfgExcluded: number;
}

/** Rust hunk: extracts the repository's tasks (parsing only, nothing runs) and counts the features they need. */
export async function rustFeatureNeeds(repoDir: string): Promise<RustFeatureNeeds> {
  const { tasks, summary } = await extractRepository(repoDir, { languages: ['rust'] });
  const bySet: Record<string, number> = {};
  for (const t of tasks) {
    const f = Array.isArray(t.metadata[FEATURES_KEY]) ? (t.metadata[FEATURES_KEY] as string[]).join(',') : '';
    const key = f + (t.metadata[NO_DEFAULT_FEATURES_KEY] === 'true' ? ' --no-default-features' : '');
    bySet[key] = (bySet[key] ?? 0) + 1;
  }
  return { tasks: tasks.length, bySet, cfgExcluded: summary.dropped['cfg-excluded'] };
}

export function formatRustFeatureNeeds(n: RustFeatureNeeds): string[] {
  const sets = Object.entries(n.bySet).sort((a, b) => b[1] - a[1]);
  return [
    `         ${n.tasks} task(s); features: ${sets.map(([k, c]) => `${k.trim() ? k.trim() : 'defaults only'} (${c})`).join(', ') || 'none'}` +
      (n.cfgExcluded ? `; ${n.cfgExcluded} function(s) only another target or Miri compiles (dropped: cfg-excluded)` : ''),
  ];
}

export interface RepositoryCheck {
  repoDir: string;
  executor: Executor['kind'];
  languages: RepositoryLanguageCheck[];
  problems: EnvironmentProblem[];
}

export interface RepositoryCheckOptions {
  executor: Executor;
  /** Default: every language whose manifest (go.mod, Cargo.toml, …) is at the repository's root. */
  languages?: LanguageId[];
  /** docker: the image to build in (the repository's environment image); throws when it does not build. */
  imageFor?: (repoDir: string, language: LanguageId) => Promise<string | undefined>;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Languages whose manifest sits at the repository's root. */
export function repositoryLanguages(repoDir: string): LanguageId[] {
  return LANGUAGE_IDS.filter((l) => adapterFor(l).toolchain.manifests.some((m) => fs.existsSync(path.join(repoDir, m))));
}

/** Our scratch folder inside the copy (caches, home): never one of the project's. */
const SCRATCH = '.xrt-doctor';

/**
 * The project's own code, compiled or syntax-checked the way a run compiles it, untouched: if this
 * fails, every task of the language would fail before its test mattered (an environment verdict).
 */
function buildCommand(language: LanguageId, root: string, timeoutMs: number): PhaseCommand | null {
  const scratch = path.join(root, SCRATCH);
  const env = { HOME: path.join(scratch, 'home'), TMPDIR: path.join(scratch, 'tmp'), LANG: 'C.UTF-8' };
  const sources = (ext: string): string =>
    `find . \\( -name vendor -o -name ${SCRATCH} -o -name .git -o -name node_modules \\) -prune -o -name '*.${ext}' -type f -print0`;
  const base = { phase: 'warm-up' as const, cwd: root, timeoutMs };
  switch (language) {
    case 'go':
      // Offline and pinned as in a run (go/toolchain.ts): vet also compiles the project's own tests.
      return {
        ...base,
        argv: ['sh', '-c', 'go build ./... && go vet ./...'],
        env: { ...env, GOFLAGS: '-mod=mod', GOPROXY: 'off', GOTOOLCHAIN: 'local', CGO_ENABLED: '0', GOCACHE: path.join(scratch, 'gocache') },
      };
    case 'rust':
      return { ...base, argv: ['cargo', 'build', '--tests', '--offline'], env: { ...env, CARGO_TARGET_DIR: path.join(scratch, 'target') } };
    case 'php':
      return { ...base, argv: ['sh', '-c', `${sources('php')} | xargs -0 -r -n1 php -d display_errors=stderr -l >/dev/null`], env };
    case 'ruby':
      // The files parse, then the warm-up of a run: `bundle check` where there is a Gemfile, and
      // the spec helper probed (languages/ruby/bundle.ts). Nothing ran in the copy yet: plain writes.
      fs.mkdirSync(scratch, { recursive: true });
      fs.writeFileSync(path.join(scratch, RUBY_PROBE_SPEC), rubyProbeSpec(fs.existsSync(path.join(root, 'spec', 'spec_helper.rb'))));
      return { ...base, argv: ['sh', '-c', `${sources('rb')} | xargs -0 -r -n1 ruby -c >/dev/null || exit 1\n${rubyWarmUpScript(scratch)}`], env };
    case 'julia':
      return null;
  }
}

function fixFor(language: LanguageId, repoDir: string): string {
  switch (language) {
    case 'rust':
      return `build it yourself with \`cargo build --tests --offline\` in ${repoDir} (after \`cargo fetch\`, as the engine does), or use the docker executor`;
    case 'go':
      return `build it yourself with \`go build ./... && go vet ./...\` in ${repoDir} (modules must be in the module cache: \`go mod download\`)`;
    case 'ruby':
      return `check the files with \`ruby -c\` and that \`rspec\` loads spec/spec_helper.rb in ${repoDir}`;
    default:
      return `check the files with \`php -l\` in ${repoDir}`;
  }
}

/**
 * Rust, local executor: the trusted, networked fetch a run makes before its sandboxed phases
 * (languages/rust/dependencies.ts), so the offline build below sees what a run would. Docker images
 * fetch when they are built.
 */
async function rustDependencies(language: LanguageId, opts: RepositoryCheckOptions, copy: string): Promise<FetchResult | null> {
  const host = opts.executor.capabilities.hostFetch;
  if (language !== 'rust' || !host) return null;
  return fetchDependencies({ copyDir: copy, projectRoot: copy, bwrap: host.bubblewrap, signal: opts.signal });
}

async function checkLanguage(repoDir: string, language: LanguageId, opts: RepositoryCheckOptions): Promise<RepositoryLanguageCheck> {
  const missing = await opts.executor.unavailable?.(language);
  let image: string | undefined;
  if (opts.imageFor) {
    try {
      image = await opts.imageFor(repoDir, language);
    } catch (e) {
      const message = (e instanceof Error ? e.message : String(e)).split('\n')[0];
      return { language, build: null, problems: [{ cause: 'image-does-not-build', reason: `the ${language} environment image does not build (${message}); see \`xrepotest images build --lang ${language} --repo ${repoDir}\`` }] };
    }
  }
  if (missing && !image) return { language, build: null, problems: [{ cause: 'toolchain-missing', reason: `${missing}; install it, then run \`xrepotest doctor\`` }] };
  const copy = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-doctor-')));
  try {
    copyRepository(repoDir, copy, { skipNames: NOT_COPIED });
    const cmd = buildCommand(language, copy, opts.timeoutMs ?? 10 * 60_000);
    if (!cmd) return { language, build: null, problems: [] };
    for (const d of ['home', 'tmp']) fs.mkdirSync(path.join(copy, SCRATCH, d), { recursive: true });
    const rustFetch = await rustDependencies(language, opts, copy);
    const session = await opts.executor.open({ language, sandboxDir: copy, limits: DEFAULT_LIMITS, image });
    try {
      const r = await session.run(cmd, opts.signal);
      const build = { command: cmd.argv[0] === 'sh' ? cmd.argv[cmd.argv.length - 1] : cmd.argv.join(' '), exitCode: r.exitCode, timedOut: r.timedOut, output: r.output };
      if (r.exitCode === 0 && !r.timedOut) return { language, build, problems: [] };
      if (language === 'rust' && (rustFetch?.ok === false || isResolutionFailure(r.output))) {
        return { language, build, problems: [unresolvableProblem(r.output, repoDir, rustFetch ?? undefined)] };
      }
      const how = r.timedOut ? 'timed out' : r.exitCode === null ? `killed (${r.signal ?? 'limits'})` : `exit ${r.exitCode}`;
      return {
        language,
        build,
        problems: [{ cause: 'project-does-not-build', reason: `the project itself does not build here (${how}: ${firstErrorLine(r.output)}); ${fixFor(language, repoDir)}` }],
      };
    } finally {
      await session.close();
    }
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
}

/** `xrepotest doctor --repo DIR`: before a run, whether each language's toolchain is there and the untouched project builds. */
export async function checkRepository(repoDir: string, opts: RepositoryCheckOptions): Promise<RepositoryCheck> {
  const dir = path.resolve(repoDir);
  const result: RepositoryCheck = { repoDir: dir, executor: opts.executor.kind, languages: [], problems: [] };
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    result.problems.push({ cause: 'no-repository', reason: `${dir} is not a folder; pass a repository checkout to --repo` });
    return result;
  }
  const languages = opts.languages?.length ? opts.languages : repositoryLanguages(dir);
  if (!languages.length) {
    result.problems.push({ cause: 'no-language', reason: `no go.mod, Cargo.toml, composer.json, Gemfile or Project.toml at the root of ${dir}; name the language with --lang` });
  }
  for (const language of languages) {
    const check = await checkLanguage(dir, language, opts);
    if (language === 'ruby') rubyRepositoryFacts(check, dir);
    if (language === 'php') {
      const php = await phpRepositoryFacts(dir, opts.executor.capabilities.hostToolchains);
      check.notes = [...(check.notes ?? []), ...php.notes];
      check.problems.push(...php.problems);
    }
    if (language === 'rust') check.rustFeatures = await rustFeatureNeeds(dir);
    result.languages.push(check);
    result.problems.push(...check.problems);
  }
  return result;
}

export function formatRepositoryCheck(r: RepositoryCheck): string {
  const lines = [`repository ${r.repoDir} (${r.executor} executor)`];
  for (const l of r.languages) {
    const build = l.build ? `\`${l.build.command}\` ${l.build.exitCode === 0 && !l.build.timedOut ? 'ok' : 'FAILED'}` : l.problems.length ? 'not built' : 'not checked (no build step for this language)';
    lines.push(`  ${l.language.padEnd(5)}  ${build}`);
    for (const note of l.notes ?? []) lines.push(`         ${note}`);
    if (l.rustFeatures) lines.push(...formatRustFeatureNeeds(l.rustFeatures));
  }
  if (r.problems.length) lines.push('problems:', ...r.problems.map((p) => `  - [${p.cause}] ${p.reason}`));
  else lines.push('no problems: the project builds untouched');
  return lines.join('\n');
}
