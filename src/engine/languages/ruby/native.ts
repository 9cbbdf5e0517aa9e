import * as fs from 'node:fs';
import * as path from 'node:path';
import type { NativeTestCommand } from '../execution-types';

/**
 * Ruby's own Coverage started before anything loads (RUBYOPT), writing the focal file's line counts
 * at exit: the leanest line coverage a person adds to an `rspec` run (SimpleCov does this and more).
 */
const COVERAGE_START = `require 'coverage'
Coverage.start(lines: true)
at_exit do
  focal = File.expand_path(ENV.fetch('XRT_NATIVE_FOCAL'))
  lines = Coverage.result.find { |file, _| File.expand_path(file) == focal }&.last&.fetch(:lines, nil)
  File.write(ENV.fetch('XRT_NATIVE_COVERAGE'), lines.inspect)
end
`;

/**
 * `rspec` with line coverage in a person's checkout: the benchmark's reference. The test goes to
 * `spec/…_spec.rb` and loads the project through its spec helper, as the toolchain places it.
 */
export const rubyNative: NativeTestCommand = {
  mark: (code, marker) => `# ${marker}\n${code}`,

  async prepare({ projectRoot, focalFile, testCode, outDir }) {
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
          argv: ['rspec', testFile],
          cwd: projectRoot,
          env: { RUBYOPT: `-r${start}`, XRT_NATIVE_FOCAL: focalFile, XRT_NATIVE_COVERAGE: report },
        },
      ],
      plain: [{ argv: ['rspec', testFile], cwd: projectRoot }],
      restore: () => (made ? fs.rmSync(specDir, { recursive: true, force: true }) : fs.rmSync(testFile, { force: true })),
    };
  },
};
