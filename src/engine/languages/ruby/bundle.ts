import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RunContext } from '../../execute/toolchain';
import type { PhaseResult } from '../../execute/types';
import type { EnvironmentProblem } from '../../score/types';

/**
 * Whether a Ruby project runs through `bundle exec`, decided by the warm-up (docs/execution.md, Ruby).
 *
 * Trust: a Gemfile is Ruby code and a spec helper too, so checking the bundle runs the repository's
 * code. It runs as the project's own build does elsewhere (Rust's build scripts): in the warm-up
 * phase, inside the executor's sandbox (no network, the host's view of host-view.ts, limits), on the
 * untouched copy, before the test is placed. Its answer is the project's word about itself, which
 * no generated test can shape; the engine treats the sandbox as touched from then on (placement
 * writes through safe-fs) and reads the answer through safe-fs.
 *
 * The warm-up: with a Gemfile, `bundle check` (bundler from the Ruby's own gem, `bundle` may be
 * missing from PATH); installed -> the spec helper is probed through `bundle exec rspec` and, when it
 * loads, the runs use it. Otherwise (no Gemfile, a bundle that is not installed, or one without RSpec)
 * the spec helper is probed with the plain `rspec`: when it loads, the tests can run without the
 * bundle, and do; when it cannot load a gem, the slot is an environment verdict
 * (`dependencies-unresolvable`) naming the gem and the fix, saying so when a Gemfile.lock's bundle
 * is not installed.
 */

/** Our files in S/.xrt: the probe spec and the warm-up's answer. */
export const PROBE_SPEC = 'probe_spec.rb';
export const RUNNER_ANSWER = 'ruby-runner';

/** Bundler's own executable, through the Ruby on PATH: Debian ships `bundle` in a separate package. */
export const BUNDLE = ['ruby', '-e', 'load Gem.bin_path("bundler", "bundle")'];

const PROBE_MISSING = 'XRT_PROBE_MISSING';
const BUNDLE_MISSING = 'XRT_BUNDLE_NOT_INSTALLED';
const PROBE_FAILED = 'XRT_PROBE_FAILED';
const BUNDLE_PROBE_FAILED = 'XRT_BUNDLE_PROBE_FAILED';

/** The probe: loads the spec helper as a test's placement would, and names a gem it cannot load. */
export function probeSpec(hasSpecHelper: boolean): string {
  if (!hasSpecHelper) return '# xrepotest probe: RSpec and the project\'s .rspec load\n';
  return `# xrepotest probe: the project's spec helper loads here, before any test is placed
begin
  require 'spec_helper'
rescue LoadError => e
  $stderr.puts "${PROBE_MISSING} #{e.path || e.message}"
  exit 3
rescue StandardError => e
  # Bundler's and RubyGems' own "not installed" (Bundler::GemNotFound, Gem::MissingSpecError) are no
  # LoadError: named here, where RSpec would only say "An error occurred while loading spec_helper".
  raise unless e.class.name.to_s =~ /GemNotFound|MissingSpec/
  $stderr.puts "${PROBE_MISSING} #{e.message[/gem '([^']+)'/, 1] || e.message[/find '([^']+)'/, 1] || e.message[/Could not find (\\S+)/, 1] || e.message.lines.first.to_s.strip}"
  exit 3
end
`;
}

export function warmUpScript(xrt: string): string {
  const probe = path.join(xrt, PROBE_SPEC);
  const answer = path.join(xrt, RUNNER_ANSWER);
  const bundle = BUNDLE.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return [
    `rm -f '${answer}'`,
    'locked=no; [ -f Gemfile.lock ] && locked=yes',
    'if [ -f Gemfile ]; then',
    // Without a lock too: an environment image installs the bundle of a Gemfile alone (BUNDLE_PATH),
    // which only `bundle exec` sees. `bundle check` then writes the lock into the copy.
    `  if out=$(${bundle} check 2>&1); then`,
    `    if ${bundle} exec rspec '${probe}'; then echo bundle > '${answer}'; echo 'XRT_RUNNER bundle'; exit 0; fi`,
    // A bundle without RSpec (or whose spec helper fails under it): the plain runner may still do.
    `    echo ${BUNDLE_PROBE_FAILED}`,
    '    [ "$locked" = yes ] || rm -f Gemfile.lock',
    '  elif [ "$locked" = yes ]; then',
    `    echo "${BUNDLE_MISSING} $(printf '%s' "$out" | grep -v '^Resolving' | head -n 3 | tr '\\n' ' ')"`,
    '  fi',
    'fi',
    `rspec '${probe}' || { echo ${PROBE_FAILED}; exit 1; }`,
    `echo plain > '${answer}'; echo 'XRT_RUNNER plain'`,
  ].join('\n');
}

/**
 * The warm-up failed: why, as an environment verdict. The output is the project's own (no test
 * exists yet), so reading it cannot let a test fake its way out of N.
 */
export function warmUpProblem(warm: PhaseResult, repoDir: string, inContainer = false): EnvironmentProblem | null {
  if (warm.timedOut || warm.exitCode === 0) return null;
  const missing =
    /XRT_PROBE_MISSING (\S+)/.exec(warm.output)?.[1] ??
    /cannot load such file -- (\S+)/.exec(warm.output)?.[1] ??
    // Bundler's own words where RSpec reports only "An error occurred while loading spec_helper".
    /(?:Bundler::GemNotFound|Gem::MissingSpecError):?\s+Could not find (?:gem )?'?([^'\s]+)'?/.exec(warm.output)?.[1] ??
    /Could not find gem '([^']+)'/.exec(warm.output)?.[1];
  const bundleLine = new RegExp(`${BUNDLE_MISSING} ?(.*)`).exec(warm.output)?.[1]?.trim();
  // In a container the bundle is the image's: the repository's environment image installs it.
  const docker = inContainer
    ? `in the image this ran in; build the repository's environment image, which installs the bundle (\`xrepotest images build --repo ${repoDir} --lang ruby\`: its log says why \`bundle install\` failed), or use the local executor`
    : 'or use the docker executor, whose environment image installs the bundle';
  if (bundleLine !== undefined && missing) {
    return {
      cause: 'dependencies-unresolvable',
      reason: `the project's bundle is not installed here (Gemfile.lock pins gems \`bundle check\` does not find${bundleLine ? `: ${bundleLine.slice(0, 200)}` : ''}) and its spec helper cannot run without it (cannot load ${missing}); install it with \`bundle install\` in ${repoDir} (or Debian's ruby-* packages of the versions Gemfile.lock pins), ${docker}`,
    };
  }
  if (missing) {
    return {
      cause: 'dependencies-unresolvable',
      reason: `the project's spec helper needs a gem that is not installed here (cannot load ${missing}); install the gems its Gemfile names (\`bundle install\` in ${repoDir}, or Debian's ruby-* packages), ${docker}`,
    };
  }
  return null;
}

/** What the warm-up answered: run through `bundle exec`, or the plain `rspec`. */
export function runnerPrefix(answer: string | null): string[] {
  return answer?.trim() === 'bundle' ? [...BUNDLE, 'exec'] : [];
}

export function answerPath(ctx: RunContext): string {
  return path.join(ctx.sandbox.xrt, RUNNER_ANSWER);
}

/** For `doctor --repo`: the check as a run's warm-up reads it (the verdict), and what a run will do with the bundle. */
export function rubyRepositoryFacts(
  check: { build: { command: string; exitCode: number | null; timedOut: boolean; output: string } | null; problems: EnvironmentProblem[]; notes?: string[] },
  repoDir: string,
): void {
  if (!check.build) return;
  check.build.command = 'ruby -c on every file; bundle check (with a Gemfile); rspec loads the spec helper';
  const { exitCode, timedOut, output } = check.build;
  const problem = warmUpProblem({ phase: 'warm-up', argv: [], exitCode, signal: null, timedOut, outputTruncated: false, output, durationMs: 0 }, repoDir);
  if (problem) check.problems.splice(0, check.problems.length, problem);
  if (exitCode !== 0 || timedOut) return;
  const locked = fs.existsSync(path.join(repoDir, 'Gemfile.lock'));
  const runner = /^XRT_RUNNER (\w+)/m.exec(output)?.[1];
  let note: string;
  if (runner === 'bundle') note = `Gemfile.lock: ${locked ? 'yes' : 'no'}; bundle installed: yes (\`bundle check\` passes); specs run through \`bundle exec rspec\``;
  else if (locked) note = 'Gemfile.lock: yes; bundle installed: no (`bundle check` fails); the spec helper loads without it, so specs run with the plain `rspec`';
  else note = 'Gemfile.lock: no; the Gemfile\'s bundle is not installed (or has no RSpec); specs run with the plain `rspec` and the gems installed here';
  check.notes = [...(check.notes ?? []), note];
}
