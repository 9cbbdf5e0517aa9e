import * as fs from 'node:fs';
import * as path from 'node:path';
import { emptyReport, phase, readReport, type Placement, type RunContext, type Toolchain } from '../../execute/toolchain';
import { parseRubyCoverage } from '../../score/coverage/ruby-coverage';
import { parseRspecJson } from '../../score/reports/rspec-json';

/**
 * Started through RUBYOPT, so coverage is on before RSpec, the spec helper or the project's code
 * load (the release loaded the focal file first, and lost ROM's coverage: notes §8). Written on exit,
 * after RSpec has finished, without touching the exit status.
 */
const COVERAGE_START = `require 'coverage'
Coverage.start(lines: true)
at_exit do
  status = $!.is_a?(SystemExit) ? $!.status : nil
  require 'json'
  result = Coverage.result.transform_values { |v| v.is_a?(Hash) ? v : { 'lines' => v } }
  File.write(ENV.fetch('XRT_COVERAGE_OUT'), JSON.generate(result))
  exit(status) if status
end
`;

export const rubyToolchain: Toolchain = {
  manifests: ['Gemfile', '.rspec'],

  async place(ctx: RunContext): Promise<Placement> {
    const root = ctx.sandbox.projectRoot;
    const specDir = path.join(root, 'spec');
    fs.mkdirSync(specDir, { recursive: true });
    const notes: string[] = [];
    let code = ctx.testCode;
    // Load the project the way its own specs do: through its spec helper.
    if (fs.existsSync(path.join(specDir, 'spec_helper.rb')) && !/require(_relative)?\s*\(?\s*['"][./]*spec_helper['"]/.test(code)) {
      code = `require 'spec_helper'\n${code}`;
      notes.push("added require 'spec_helper'");
    }
    const testFile = path.join(specDir, `xrepotest_${ctx.id}_spec.rb`);
    fs.writeFileSync(testFile, code);
    fs.writeFileSync(path.join(ctx.sandbox.xrt, 'coverage_start.rb'), COVERAGE_START);
    return { testFile, writtenCode: code, testNames: [], notes };
  },

  compile: (ctx, placement) => phase('compile', ctx, ['ruby', '-c', placement.testFile], ctx.sandbox.projectRoot),

  test(ctx, placement) {
    const xrt = ctx.sandbox.xrt;
    return phase(
      'test',
      ctx,
      ['rspec', '--format', 'json', '--out', path.join(ctx.sandbox.out, 'rspec.json'), '--format', 'progress', placement.testFile],
      ctx.sandbox.projectRoot,
      { RUBYOPT: `-r${path.join(xrt, 'coverage_start.rb')}`, XRT_COVERAGE_OUT: path.join(ctx.sandbox.out, 'coverage.json') },
    );
  },

  coverage: () => null,

  testReport(ctx) {
    const text = readReport(ctx, 'rspec.json') ?? '';
    return text.trim() ? parseRspecJson(text) : emptyReport(1);
  },

  focalHits(ctx) {
    const text = readReport(ctx, 'coverage.json');
    return text !== null ? parseRubyCoverage(text, ctx.sandbox.focalFile) : null;
  },
};
