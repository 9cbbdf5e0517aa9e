import * as path from 'node:path';
import { ensureDirInSandbox, SandboxFileError } from '../../execute/safe-fs';
import { emptyReport, phase, readInSandbox, readReport, sandboxRel, writeInSandbox, type Placement, type RunContext, type Toolchain } from '../../execute/toolchain';
import { parseRubyCoverage } from '../../score/coverage/ruby-coverage';
import { parseRspecJson } from '../../score/reports/rspec-json';
import { prepareRubyWarmUp } from './warm-answer';
import { answerPath, PROBE_SPEC, probeSpec, runnerPrefix, warmUpProblem, warmUpScript } from './bundle';
import { definitionLines } from './definition-lines';
import { COVERAGE_START } from './example-phase-coverage';

/** Per placement: the runner the warm-up chose (`bundle exec` or not), reused by mutant runs. */
const runners = new WeakMap<Placement, string[]>();
/** Per task: the focal method's `def` header lines, left out of the executable lines. */
const headers = new WeakMap<object, number[]>();

function hasSpecHelper(ctx: RunContext): boolean {
  try {
    return readInSandbox(ctx, path.join(ctx.sandbox.projectRoot, 'spec', 'spec_helper.rb')) !== null;
  } catch (e) {
    // A link or something odd there: Ruby would still find it, so the test gets the require.
    if (e instanceof SandboxFileError) return true;
    throw e;
  }
}

export const rubyToolchain: Toolchain = {
  manifests: ['Gemfile', '.rspec'],

  warmUp(ctx) {
    // Written before the warm-up runs the project's Gemfile and spec helper (nothing untrusted ran yet).
    writeInSandbox(ctx, path.join(ctx.sandbox.xrt, PROBE_SPEC), probeSpec(hasSpecHelper(ctx)));
    return { ...phase('warm-up', ctx, ['sh', '-c', warmUpScript(ctx.sandbox.xrt)], ctx.sandbox.projectRoot) };
  },

  warmUpProblem: (ctx, warm, repoDir) => warmUpProblem(warm, repoDir, !ctx.hostToolchains),

  // The warm-up's answer kept per repository, Ruby and installed gems (warm-answer.ts): later slots of
  // the same key run no warm-up.
  prepareSandbox: (ctx, with_) => prepareRubyWarmUp(ctx, with_, () => rubyToolchain.warmUp!(ctx, '')),

  async place(ctx: RunContext): Promise<Placement> {
    // The warm-up ran the project's Gemfile and spec helper: from here on, the sandbox is read and
    // written through safe-fs only (docs/execution.md, point 4).
    const root = ctx.sandbox.projectRoot;
    const specDir = path.join(root, 'spec');
    ensureDirInSandbox(ctx.sandbox.dir, sandboxRel(ctx, specDir));
    const notes: string[] = [];
    let code = ctx.testCode;
    // Load the project the way its own specs do: through its spec helper.
    if (hasSpecHelper(ctx) && !/require(_relative)?\s*\(?\s*['"][./]*spec_helper['"]/.test(code)) {
      code = `require 'spec_helper'\n${code}`;
      notes.push("added require 'spec_helper'");
    }
    const testFile = path.join(specDir, `xrepotest_${ctx.id}_spec.rb`);
    writeInSandbox(ctx, testFile, code);
    writeInSandbox(ctx, path.join(ctx.sandbox.xrt, 'coverage_start.rb'), COVERAGE_START);
    const placement: Placement = { testFile, writtenCode: code, testNames: [], notes };
    const runner = runnerPrefix(readInSandbox(ctx, answerPath(ctx), 64));
    if (runner.length) notes.push('runs through `bundle exec` (Gemfile.lock, bundle installed)');
    runners.set(placement, runner);
    headers.set(ctx.task, await definitionLines(ctx.task.file_content, ctx.task.function_component.start_line));
    return placement;
  },

  // `ruby -c`: Ruby's own verdict on the file, writing nothing; run only when the test phase's report
  // does not answer it (execute/evaluate.ts): PHP and Ruby parse a whole file before running any of it.
  compileOnlyChecks: true,
  smallCopyWrites: true,
  checkOnlyWithoutTests: true,
  compile: (ctx, placement) => phase('compile', ctx, ['ruby', '-c', placement.testFile], ctx.sandbox.projectRoot),

  test(ctx, placement) {
    const xrt = ctx.sandbox.xrt;
    return phase(
      'test',
      ctx,
      [...(runners.get(placement) ?? []), 'rspec', '--format', 'json', '--out', path.join(ctx.sandbox.out, 'rspec.json'), '--format', 'progress', placement.testFile],
      ctx.sandbox.projectRoot,
      {
        RUBYOPT: `-r${path.join(xrt, 'coverage_start.rb')}`,
        XRT_COVERAGE_OUT: path.join(ctx.sandbox.out, 'coverage.json'),
        XRT_TEST_FILE: placement.testFile,
      },
    );
  },

  coverage: () => null,

  testReport(ctx) {
    const text = readReport(ctx, 'rspec.json') ?? '';
    return text.trim() ? parseRspecJson(text) : emptyReport(1);
  },

  focalHits(ctx) {
    const text = readReport(ctx, 'coverage.json');
    if (text === null) return null;
    const hits = parseRubyCoverage(text, ctx.sandbox.focalFile);
    // The `def` header runs when the file loads, never in an example (METRICS.md, Ruby).
    for (const line of headers.get(ctx.task) ?? []) hits.delete(line);
    return hits;
  },
};
