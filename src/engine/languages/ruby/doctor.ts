import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RepositoryDoctor } from '../execution-types';
import { PROBE_SPEC, probeSpec, rubyRepositoryFacts, warmUpScript } from './bundle';

/** Ruby's part of `doctor --repo`: the files parse, then a run's warm-up (bundle.ts). */
export const rubyDoctor: RepositoryDoctor = {
  buildCommand({ base, scratch, env, sources }) {
    // The files parse, then the warm-up of a run: `bundle check` where there is a Gemfile, and
    // the spec helper probed (bundle.ts). Nothing ran in the copy yet: plain writes.
    fs.mkdirSync(scratch, { recursive: true });
    fs.writeFileSync(path.join(scratch, PROBE_SPEC), probeSpec(fs.existsSync(path.join(base.cwd, 'spec', 'spec_helper.rb'))));
    return { ...base, argv: ['sh', '-c', `${sources('rb')} | xargs -0 -r -n1 ruby -c >/dev/null || exit 1\n${warmUpScript(scratch)}`], env };
  },
  fix: (repoDir) => `check the files with \`ruby -c\` and that \`rspec\` loads spec/spec_helper.rb in ${repoDir}`,
  async repositoryFacts(check, repoDir) {
    rubyRepositoryFacts(check, repoDir);
  },
};
