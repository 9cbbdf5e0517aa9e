import * as fs from 'node:fs';
import * as path from 'node:path';
import { readSandboxFile } from '../../execute/safe-fs';
import type { EnvironmentProblem } from '../../score/types';
import type { RepositoryDoctor } from '../execution-types';
import type { ComposerJson } from './autoload';
import { scanClassmap } from './classmap';
import { chooseRunner, localPhpunitRunners, phpunitConstraint, type PhpunitRunner } from './runners';

/**
 * PHP's part of `xrepotest doctor --repo DIR`: which PHPUnit would run the package's tests against its
 * composer.json constraint (a mismatch is the environment verdict every task would get), and what the
 * classmap scan finds (folders, classes, refused entries), before any run.
 */
export async function phpRepositoryFacts(
  repoDir: string,
  /** The executor runs the host's toolchains (local), so the host's PHPUnits are chosen from; else the image's. */
  hostToolchains: boolean,
  runners: PhpunitRunner[] = localPhpunitRunners(),
): Promise<{ notes: string[]; problems: EnvironmentProblem[] }> {
  const notes: string[] = [];
  const problems: EnvironmentProblem[] = [];
  let composer: ComposerJson = {};
  try {
    const text = readSandboxFile(repoDir, 'composer.json', 4 * 1024 ** 2);
    if (text !== null) composer = JSON.parse(text) as ComposerJson;
  } catch (e) {
    notes.push(`composer.json unreadable (${(e as Error).message.split('\n')[0]})`);
  }
  const constraint = phpunitConstraint(composer);
  if (fs.existsSync(path.join(repoDir, 'vendor', 'bin', 'phpunit'))) {
    notes.push('runner: the project\'s own vendor/bin/phpunit (Composer chose it for the constraint)');
  } else if (hostToolchains) {
    const choice = chooseRunner(constraint, runners);
    if ('problem' in choice) problems.push(choice.problem);
    else notes.push(`runner: PHPUnit ${choice.runner ? `${choice.runner.version} (${choice.runner.origin})` : 'none found'} for ${constraint === null ? 'no phpunit/phpunit constraint' : `phpunit/phpunit "${constraint}"`}${choice.note ? `; ${choice.note}` : ''}`);
  } else {
    notes.push(`runner: the image's PHPUnit (Debian trixie's 11.5, or the environment image's Composer install) for ${constraint === null ? 'no constraint' : `phpunit/phpunit "${constraint}"`}`);
  }
  const map = await scanClassmap(repoDir, composer);
  if (map.scanned.length || map.notes.length) {
    notes.push(`classmap: ${map.classes.size} classes in ${map.scanned.join(', ') || 'no folder'}`);
    notes.push(...map.notes);
  }
  return { notes, problems };
}

/** PHP's part of `doctor --repo`: every file passes `php -l`; then the runner and classmap facts above. */
export const phpDoctor: RepositoryDoctor = {
  buildCommand: ({ base, env, sources }) => ({ ...base, argv: ['sh', '-c', `${sources('php')} | xargs -0 -r -n1 php -d display_errors=stderr -l >/dev/null`], env }),
  fix: (repoDir) => `check the files with \`php -l\` in ${repoDir}`,
  async repositoryFacts(check, repoDir, how) {
    const php = await phpRepositoryFacts(repoDir, how.hostToolchains);
    check.notes = [...(check.notes ?? []), ...php.notes];
    check.problems.push(...php.problems);
  },
};
