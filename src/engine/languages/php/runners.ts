import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as semver from 'semver';
import { readSandboxFile } from '../../execute/safe-fs';
import type { EnvironmentProblem } from '../../score/types';
import { pathInRepository } from '../../tasks/task-path';
import { which } from '../../util/which';

/**
 * Which PHPUnit runs a project's tests. A package written for another major version than the runner
 * is not tested at all (PHPUnit 9 ignores `#[DataProvider]`, 12 ignores `@dataProvider`), so the
 * runner must satisfy composer.json's `phpunit/phpunit` constraint. The local executor knows the host's
 * `phpunit` (Debian bookworm: 9.6) and project-local ones that scripts/setup-phpunit.sh unpacked
 * (Debian trixie's 11.5); where none satisfies the constraint the slot is an environment verdict,
 * decided before the test runs. The docker executor's images bring their own (trixie's 11.5, or the
 * repository's Composer-installed one in an environment image).
 */

export interface PhpunitRunner {
  /** The `phpunit` script run with `php`. */
  bin: string;
  /** x.y.z */
  version: string;
  major: number;
  origin: 'host' | 'project-local' | 'image';
}

/** Where setup-phpunit.sh unpacks project-local PHPUnits, one folder per version. */
export function localPhpunitHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.XRT_PHPUNIT_HOME ?? path.join(env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'xrepotest', 'phpunit');
}

/** composer.json's PHPUnit constraint (require-dev first, as packages declare it there), or null. */
export function phpunitConstraint(composer: unknown): string | null {
  if (!composer || typeof composer !== 'object') return null;
  for (const key of ['require-dev', 'require']) {
    const section = (composer as Record<string, unknown>)[key];
    if (!section || typeof section !== 'object') continue;
    const c = (section as Record<string, unknown>)['phpunit/phpunit'];
    if (typeof c === 'string' && c.length <= 200) return c;
  }
  return null;
}

/**
 * A Composer version constraint as an npm semver range, or null where Composer's syntax has no
 * equivalent here (`dev-` branches, `!=`). The differences handled: `|` and `||` are both "or", `,`
 * and spaces are both "and", stability flags (`@dev`) are dropped, and `~X.Y` means >=X.Y <X+1
 * (npm's `~X.Y` would stop at X.Y+1). `^`, `~X.Y.Z`, `*`/`X.*`, hyphen ranges and comparisons read alike.
 */
export function composerToNpmRange(constraint: string): string | null {
  const alternatives = constraint.replace(/@[a-zA-Z]+/g, '').split(/\s*\|\|?\s*/);
  const out: string[] = [];
  for (const alt of alternatives) {
    const trimmed = alt.trim();
    if (!trimmed) return null;
    const hyphen = /^(\S+)\s+-\s+(\S+)$/.exec(trimmed);
    if (hyphen) {
      out.push(`${hyphen[1]} - ${hyphen[2]}`);
      continue;
    }
    const tokens = trimmed.replace(/([<>=~^]+)\s+/g, '$1').split(/\s*,\s*|\s+/).filter(Boolean);
    const and: string[] = [];
    for (const token of tokens) {
      if (/^dev-|-dev$|^!=/.test(token)) return null;
      const tilde = /^~v?(\d+)\.(\d+)$/.exec(token);
      and.push(tilde ? `>=${tilde[1]}.${tilde[2]}.0 <${Number(tilde[1]) + 1}.0.0` : token.replace(/\.\*$/, '.x'));
    }
    out.push(and.join(' '));
  }
  const range = out.join(' || ');
  return semver.validRange(range) === null ? null : range;
}

/** Whether a PHPUnit version satisfies a Composer constraint; null when the constraint is not understood. */
export function satisfiesConstraint(version: string, constraint: string): boolean | null {
  const range = composerToNpmRange(constraint);
  return range === null ? null : semver.satisfies(version, range);
}

export function versionOf(line: string): string | null {
  return /PHPUnit (\d+\.\d+\.\d+)/.exec(line)?.[1] ?? null;
}

export function runner(bin: string, version: string, origin: PhpunitRunner['origin']): PhpunitRunner {
  return { bin, version, major: Number(version.split('.')[0]), origin };
}


let hostRunners: PhpunitRunner[] | undefined;

/** This machine's PHPUnits for the local executor: the host's first, then project-local ones, newest first. */
export function localPhpunitRunners(home = localPhpunitHome()): PhpunitRunner[] {
  if (hostRunners && home === localPhpunitHome()) return hostRunners;
  const found: PhpunitRunner[] = [];
  const host = which('phpunit');
  if (host) {
    const r = spawnSync(host, ['--version'], { encoding: 'utf8', timeout: 20_000 });
    const v = r.status === 0 ? versionOf(r.stdout) : null;
    if (v) found.push(runner(host, v, 'host'));
  }
  const local: PhpunitRunner[] = [];
  let names: string[] = [];
  try {
    names = fs.readdirSync(home);
  } catch {
    /* none installed */
  }
  for (const name of names) {
    const dir = path.join(home, name);
    const bin = path.join(dir, 'bin', 'phpunit');
    let version: string | null = null;
    try {
      version = fs.readFileSync(path.join(dir, 'VERSION'), 'utf8').trim();
    } catch {
      continue; // an unfinished install (setup-phpunit.sh writes VERSION last, then renames)
    }
    if (semver.valid(version) && fs.existsSync(bin)) local.push(runner(bin, version, 'project-local'));
  }
  local.sort((a, b) => (semver.satisfies(a.version, `>${b.version}`) ? -1 : 1));
  found.push(...local);
  if (home === localPhpunitHome()) hostRunners = found;
  return found;
}

export type RunnerChoice =
  | { runner: PhpunitRunner | null; note: string | null }
  | { problem: EnvironmentProblem };

/**
 * The runner for a project: without a constraint (or one we cannot read) the host's, as before; else
 * the host's when it satisfies the constraint, else the newest project-local one that does, else an
 * environment verdict naming the constraint, the runners found and the fix.
 */
export function chooseRunner(constraint: string | null, runners: PhpunitRunner[], executor: 'local' | 'docker' = 'local'): RunnerChoice {
  const fallback = runners[0] ?? null;
  if (constraint === null) return { runner: fallback, note: null };
  const range = composerToNpmRange(constraint);
  if (range === null) {
    return { runner: fallback, note: `composer.json's phpunit/phpunit constraint "${constraint}" is not understood; PHPUnit ${fallback?.version ?? '(none)'} runs` };
  }
  const fits = runners.filter((r) => semver.satisfies(r.version, range));
  if (fits.length) return { runner: fits[0], note: fits[0] === fallback ? null : `PHPUnit ${fits[0].version} (${fits[0].origin}) for composer.json's phpunit/phpunit "${constraint}"` };
  const have = runners.length ? runners.map((r) => `${r.version} (${r.origin})`).join(', ') : 'none';
  if (executor === 'docker') {
    return {
      problem: {
        cause: 'runner-mismatch',
        reason:
          `composer.json requires phpunit/phpunit "${constraint}" but the docker image runs PHPUnit ${have}; ` +
          `use an environment image whose Composer install brings a PHPUnit within the constraint (\`xrepotest images build\`), or \`--executor local\` where a fitting PHPUnit is installed (scripts/setup.sh)`,
      },
    };
  }
  // setup.sh can only add Debian trixie's PHPUnit 11: suggested where it is missing and would fit.
  const setup = !runners.some((r) => r.origin === 'project-local') && semver.satisfies('11.5.99', range) ? 'run scripts/setup.sh (it installs a project-local PHPUnit 11), or ' : '';
  return {
    problem: {
      cause: 'runner-mismatch',
      reason:
        `composer.json requires phpunit/phpunit "${constraint}" but the local executor has PHPUnit ${have}; ` +
        `${setup}use \`--executor docker\` with the repository's environment image (Composer installs a PHPUnit within the constraint)`,
    },
  };
}

/**
 * The major version of the PHPUnit the local executor would run a task's test with, for the prompt:
 * composer.json is the nearest one above the focal file (`taskFilePath`: the task's file_path) (read without following links, capped);
 * null when no runner fits (the slot will be an environment verdict) or nothing is known.
 */
export function phpunitMajorFor(repoDir: string, taskFilePath: string, runners: PhpunitRunner[] = localPhpunitRunners()): number | null {
  let inRepo: string;
  try {
    inRepo = pathInRepository(taskFilePath); // the task's file_path starts with the repository's folder
  } catch {
    return null;
  }
  const parts = inRepo.split('/').slice(0, -1);
  for (let n = parts.length; n >= 0; n--) {
    const rel = [...parts.slice(0, n), 'composer.json'].join('/');
    let text: string | null = null;
    try {
      text = readSandboxFile(repoDir, rel, 4 * 1024 ** 2);
    } catch {
      return null; // a link or something else where composer.json should be: no claim
    }
    if (text === null) continue;
    let composer: unknown;
    try {
      composer = JSON.parse(text);
    } catch {
      return null;
    }
    const choice = chooseRunner(phpunitConstraint(composer), runners);
    return 'runner' in choice ? choice.runner?.major ?? null : null;
  }
  return runners[0]?.major ?? null;
}
