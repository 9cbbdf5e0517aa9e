import { checkRepository, formatRepositoryCheck } from '../engine/doctor-repo';
import { LANGUAGE_IDS, type LanguageId } from '../engine/parse/grammars';
import { forTerminal } from '../engine/util/terminal';
import { createExecutor, environmentImages } from './executors';

export interface DoctorRepoOptions {
  repo: string;
  executor: string;
  lang?: string;
  json: boolean;
}

/** `xrepotest doctor --repo DIR`: 0 when the repository builds untouched through the executor, 1 with the problems. */
export async function runDoctorRepo(opts: DoctorRepoOptions): Promise<number> {
  const languages = (opts.lang ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = languages.filter((l) => !LANGUAGE_IDS.includes(l as LanguageId));
  if (unknown.length) {
    process.stderr.write(`unknown language ${unknown.join(', ')} (expected ${LANGUAGE_IDS.join(',')})\n`);
    return 2;
  }
  const executor = await createExecutor(opts.executor);
  const result = await checkRepository(opts.repo, {
    executor,
    languages: languages as LanguageId[],
    // docker: the repository's environment image, as a run builds it (its failure is a problem to report).
    imageFor: executor.capabilities.buildEnvironmentImage ? environmentImages(executor, undefined) : undefined,
  }).finally(() => executor.close?.());
  process.stdout.write((opts.json ? JSON.stringify(result, null, 2) : forTerminal(formatRepositoryCheck(result))) + '\n');
  return result.problems.length ? 1 : 0;
}
