import * as path from 'node:path';
import type { EnvironmentProblem } from '../score/types';
import type { PhaseResult } from './types';

/** The first line of a build log that looks like an error (else its first line), for a one-line reason. */
export function firstErrorLine(output: string): string {
  const lines = output.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  // `\berror\b`: a build printing its packages (`go build -v`) names `errors` without failing.
  return (lines.find((l) => /\berror\b|cannot|undefined|not found|missing/i.test(l)) ?? lines[0] ?? '(no output)').slice(0, 200);
}

/**
 * A failed warm-up (only the project's own code ran) as the environment verdict: the project does not
 * build here. Toolchains that can tell more (Ruby: a gem that cannot load) say so first.
 */
export function warmUpProblem(warm: PhaseResult, repoDir: string): EnvironmentProblem {
  if (warm.timedOut) return unfinishedBuildProblem(warm, repoDir);
  const how = warm.exitCode === null ? `warm-up killed (${warm.signal ?? 'limits'})` : `warm-up exit ${warm.exitCode}`;
  return {
    cause: 'project-does-not-build',
    reason: `the project itself does not build here (${how}: ${firstErrorLine(warm.output)}); run \`xrepotest doctor --repo ${repoDir}\``,
  };
}


const seconds = (ms: number): string => (ms >= 120_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`);

/**
 * A warm-up cut short by a limit is not a project that does not build: it is said as what happened
 * (how long it ran, what it printed last), what it built is kept (warm-environment.ts) and the next
 * try continues it. `cause` is `build-unfinished`; the fixes: try again, give builds more time.
 */
export function unfinishedBuildProblem(warm: PhaseResult, repoDir: string): EnvironmentProblem {
  const repo = path.basename(repoDir) || repoDir;
  const last = lastLine(warm.output);
  const what = warm.stalled
    ? `the first build of ${repo} printed nothing for a while and was stopped after ${seconds(warm.durationMs)}${last ? ` (its last line: ${last})` : ''}`
    : `the first build of ${repo} was still going after ${seconds(warm.durationMs)} and was stopped${last ? ` (its last line: ${last})` : ''}`;
  const flag = warm.stalled ? '--compile-timeout SECONDS (how long a build may print nothing)' : '--build-timeout SECONDS (how long a build may take in all)';
  return {
    cause: 'build-unfinished',
    reason: `${what}; what it built is kept and the next run continues it: run again, or give builds more time with ${flag}`,
    fixes: [{ kind: 'retry' }, { kind: 'build-limit', limit: warm.stalled ? 'silence' : 'total' }],
  };
}

/** The last line a build printed (trimmed, at most 160 characters), or null. */
function lastLine(output: string): string | null {
  const lines = output.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('[xrepotest'));
  const l = lines[lines.length - 1];
  return l ? l.slice(0, 160) : null;
}
