import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import type { NativeTestCommand } from '../execution-types';
import { BUNDLE } from './bundle';

/**
 * Ruby's own Coverage, writing the focal file's line counts at exit: the leanest line coverage a person
 * adds to an `rspec` run. Started where a SimpleCov setup starts it — once Bundler (\`bundle exec\`
 * loads it first) and RSpec have loaded, before the spec helper loads the project — not before anything
 * loads, which would count RSpec loading too, as no person's setup does. RUBYOPT, not a line in the
 * spec file: a project's \`.rspec\` often requires its spec helper before any spec file.
 */
const COVERAGE_START = `begin
  require 'rspec/core'
rescue LoadError
end
require 'coverage'
Coverage.start(lines: true)
at_exit do
  focal = File.expand_path(ENV.fetch('XRT_NATIVE_FOCAL'))
  lines = Coverage.result.find { |file, _| File.expand_path(file) == focal }&.last&.fetch(:lines, nil)
  File.write(ENV.fetch('XRT_NATIVE_COVERAGE'), lines.inspect)
end
`;

/** Per checkout copy: whether its bundle is installed (asked once: `bundle check` takes half a second). */
const bundled = new Map<string, boolean>();

/**
 * A person's command for a project with a Gemfile whose bundle is installed is `bundle exec rspec`
 * (the toolchain runs the tests that way too: bundle.ts); else the plain `rspec`.
 */
function runner(projectRoot: string): string[] {
  let installed = bundled.get(projectRoot);
  if (installed === undefined) {
    // --dry-run: the question writes no Gemfile.lock into the checkout.
    installed = fs.existsSync(path.join(projectRoot, 'Gemfile')) && spawnSync(BUNDLE[0], [...BUNDLE.slice(1), 'check', '--dry-run'], { cwd: projectRoot, stdio: 'ignore' }).status === 0;
    bundled.set(projectRoot, installed);
  }
  return installed ? [...BUNDLE, 'exec', 'rspec'] : ['rspec'];
}

/**
 * `rspec` with line coverage in a person's checkout: the benchmark's reference, through `bundle exec`
 * where the project's bundle is installed. The test goes to `spec/…_spec.rb` and loads the project
 * through its spec helper, as the toolchain places it.
 */
export const rubyNative: NativeTestCommand = {
  mark: (code, marker) => `# ${marker}\n${code}`,

  async prepare({ projectRoot, focalFile, testCode, outDir }) {
    // `bundle exec` locks a bundle that has no Gemfile.lock yet: restoring removes a lock the run made.
    const lock = path.join(projectRoot, 'Gemfile.lock');
    const locked = fs.existsSync(lock);
    const specDir = path.join(projectRoot, 'spec');
    const made = !fs.existsSync(specDir);
    fs.mkdirSync(specDir, { recursive: true });
    const helper = fs.existsSync(path.join(specDir, 'spec_helper.rb'));
    const code = helper && !/require(_relative)?\s*\(?\s*['"][./]*spec_helper['"]/.test(testCode) ? `require 'spec_helper'\n${testCode}` : testCode;
    const testFile = path.join(specDir, 'xrepotest_native_spec.rb');
    fs.writeFileSync(testFile, code);
    const start = path.join(outDir, 'coverage_start.rb');
    fs.writeFileSync(start, COVERAGE_START);
    const report = path.join(outDir, 'coverage.txt');
    return {
      testFile,
      report,
      withCoverage: [
        {
          argv: [...runner(projectRoot), testFile],
          cwd: projectRoot,
          env: { RUBYOPT: `-r${start}`, XRT_NATIVE_FOCAL: focalFile, XRT_NATIVE_COVERAGE: report },
        },
      ],
      plain: [{ argv: [...runner(projectRoot), testFile], cwd: projectRoot }],
      restore: () => {
        if (made) fs.rmSync(specDir, { recursive: true, force: true });
        else fs.rmSync(testFile, { force: true });
        if (!locked) fs.rmSync(lock, { force: true });
      },
    };
  },
};
