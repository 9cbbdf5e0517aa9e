import type { EnvironmentProblem } from '../score/types';
import type { PhaseResult } from './types';

/** The first line of a build log that looks like an error (else its first line), for a one-line reason. */
export function firstErrorLine(output: string): string {
  const lines = output.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  return (lines.find((l) => /error|cannot|undefined|not found|missing/i.test(l)) ?? lines[0] ?? '(no output)').slice(0, 200);
}

/**
 * A failed warm-up (only the project's own code ran) as the environment verdict: the project does not
 * build here. Toolchains that can tell more (Ruby: a gem that cannot load) say so first.
 */
export function warmUpProblem(warm: PhaseResult, repoDir: string): EnvironmentProblem {
  const how = warm.timedOut ? 'warm-up timed out' : warm.exitCode === null ? `warm-up killed (${warm.signal ?? 'limits'})` : `warm-up exit ${warm.exitCode}`;
  return {
    cause: 'project-does-not-build',
    reason: `the project itself does not build here (${how}: ${firstErrorLine(warm.output)}); run \`xrepotest doctor --repo ${repoDir}\``,
  };
}

