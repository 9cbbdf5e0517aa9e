import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { copyRepository } from './execute/copy-repository';
import { firstErrorLine } from './execute/evaluate';
import { NOT_COPIED } from './execute/sandbox';
import { DEFAULT_LIMITS, type Executor, type PhaseCommand } from './execute/types';
import { adapterFor } from './languages';
import type { DoctorCheck, DoctorContext } from './languages/execution-types';
import { LANGUAGE_IDS, type LanguageId } from './parse/grammars';
import type { EnvironmentProblem } from './score/types';
import { extractRepository } from './extract/extract';

/** What `xrepotest doctor --repo DIR` found for one language of the repository (languages' own facts included). */
export type RepositoryLanguageCheck = DoctorCheck;

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
 * The project's own code, compiled or syntax-checked the way a run compiles it, untouched (each
 * language's `doctor.buildCommand`): if this fails, every task of the language would fail before its
 * test mattered (an environment verdict).
 */
function buildCommand(language: LanguageId, root: string, timeoutMs: number): PhaseCommand | null {
  const scratch = path.join(root, SCRATCH);
  const env = { HOME: path.join(scratch, 'home'), TMPDIR: path.join(scratch, 'tmp'), LANG: 'C.UTF-8' };
  const sources = (ext: string): string =>
    `find . \\( -name vendor -o -name ${SCRATCH} -o -name .git -o -name node_modules \\) -prune -o -name '*.${ext}' -type f -print0`;
  const base = { phase: 'warm-up' as const, cwd: root, timeoutMs };
  return adapterFor(language).doctor.buildCommand({ base, scratch, env, sources });
}

/** What the languages' doctor hooks get: the executor's kind and confinement, and the release's extraction. */
function doctorContext(language: LanguageId, opts: RepositoryCheckOptions): DoctorContext {
  const executor = opts.executor;
  return {
    hostToolchains: executor.capabilities.hostToolchains,
    // Trusted steps run on the host only where the executor says so, confined as it confines phases.
    hostFetch: executor.capabilities.hostFetch ?? null,
    extract: (repoDir) => extractRepository(repoDir, { languages: [language] }),
    signal: opts.signal,
  };
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
    const doctor = adapterFor(language).doctor;
    const prepared = await doctor.prepare?.(copy, doctorContext(language, opts));
    const session = await opts.executor.open({ language, sandboxDir: copy, limits: DEFAULT_LIMITS, image });
    try {
      const r = await session.run(cmd, opts.signal);
      const build = { command: cmd.argv[0] === 'sh' ? cmd.argv[cmd.argv.length - 1] : cmd.argv.join(' '), exitCode: r.exitCode, timedOut: r.timedOut, output: r.output };
      if (r.exitCode === 0 && !r.timedOut) return { language, build, problems: [] };
      const explained = doctor.explainFailure?.(r.output, repoDir, prepared);
      if (explained) return { language, build, problems: [explained] };
      const how = r.timedOut ? 'timed out' : r.exitCode === null ? `killed (${r.signal ?? 'limits'})` : `exit ${r.exitCode}`;
      return {
        language,
        build,
        problems: [{ cause: 'project-does-not-build', reason: `the project itself does not build here (${how}: ${firstErrorLine(r.output)}); ${doctor.fix(repoDir)}` }],
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
    const manifests = LANGUAGE_IDS.map((l) => adapterFor(l).image.manifest);
    const named = `${manifests.slice(0, -1).join(', ')} or ${manifests[manifests.length - 1]}`;
    result.problems.push({ cause: 'no-language', reason: `no ${named} at the root of ${dir}; name the language with --lang` });
  }
  for (const language of languages) {
    const check = await checkLanguage(dir, language, opts);
    await adapterFor(language).doctor.repositoryFacts?.(check, dir, doctorContext(language, opts));
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
    lines.push(...(adapterFor(l.language).doctor.formatFacts?.(l) ?? []));
  }
  if (r.problems.length) lines.push('problems:', ...r.problems.map((p) => `  - [${p.cause}] ${p.reason}`));
  else lines.push('no problems: the project builds untouched');
  return lines.join('\n');
}
