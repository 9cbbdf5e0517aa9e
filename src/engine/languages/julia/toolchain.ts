import * as fs from 'node:fs';
import * as path from 'node:path';
import { listSandboxDir } from '../../execute/safe-fs';
import { phase, readInSandbox, sandboxRel, type Placement, type RunContext, type Toolchain } from '../../execute/toolchain';
import { parseJuliaCov } from '../../score/coverage/julia-cov';
import { parseJuliaCounts } from '../../score/reports/julia-counts';
import { juliaProjectName } from './project';

/** Fails on the first `:error` or `:incomplete` expression: Julia's "compile" is a parse. */
const PARSE_CHECK = `ex = Meta.parseall(read(ARGS[1], String); filename = ARGS[1])
bad = findfirst(x -> x isa Expr && x.head in (:error, :incomplete), ex.args)
bad === nothing || (println(stderr, ex.args[bad]); exit(1))`;

/**
 * Runs the test inside one @testset after loading the package, and prints the counts in a line we
 * parse: Test.jl's own summary is a table meant for people.
 */
const RUNNER = `using Test
Core.eval(Main, :(using $(Symbol(ARGS[2]))))
result = try
    @testset "xrepotest" begin
        include(ARGS[1])
    end
catch e
    e
end
function xrt_counts(r)
    if r isa Test.TestSetException
        return (r.pass, r.fail, r.error, r.broken)
    elseif r isa Test.AbstractTestSet
        c = Test.get_test_counts(r)
        if c isa Tuple
            return (c[1] + c[5], c[2] + c[6], c[3] + c[7], c[4] + c[8])
        end
        return (c.passes + c.cumulative_passes, c.fails + c.cumulative_fails, c.errors + c.cumulative_errors, c.broken + c.cumulative_broken)
    end
    showerror(stderr, r)
    println(stderr)
    return (0, 0, 1, 0)
end
p, f, e, b = xrt_counts(result)
println("XRT_COUNTS pass=$p fail=$f error=$e broken=$b")
exit(f + e > 0 ? 1 : 0)
`;

export const juliaToolchain: Toolchain = {
  manifests: ['Project.toml'],

  async place(ctx: RunContext): Promise<Placement> {
    const dir = path.join(ctx.sandbox.projectRoot, 'test');
    fs.mkdirSync(dir, { recursive: true });
    const testFile = path.join(dir, `xrepotest_${ctx.id}.jl`);
    fs.writeFileSync(testFile, ctx.testCode);
    fs.writeFileSync(path.join(ctx.sandbox.xrt, 'parse_check.jl'), PARSE_CHECK);
    fs.writeFileSync(path.join(ctx.sandbox.xrt, 'run.jl'), RUNNER);
    return { testFile, writtenCode: ctx.testCode, testNames: [], notes: [] };
  },

  // Julia writes `<file>.<pid>.cov` next to each source file it covers, and precompiles into its depot.
  writableDirs: (ctx) => [path.dirname(ctx.sandbox.focalFile), path.join(ctx.sandbox.xrt, 'depot')],

  // The parse check writes nothing; it may run beside the test phase (execute/evaluate.ts).
  compileOnlyChecks: true,
  compile: (ctx, placement) =>
    phase('compile', ctx, ['julia', '--startup-file=no', path.join(ctx.sandbox.xrt, 'parse_check.jl'), placement.testFile], ctx.sandbox.projectRoot),

  test(ctx, placement) {
    const root = ctx.sandbox.projectRoot;
    return phase(
      'test',
      ctx,
      ['julia', '--startup-file=no', `--project=${root}`, '--code-coverage=user', path.join(ctx.sandbox.xrt, 'run.jl'), placement.testFile, juliaProjectName(root)],
      root,
      { JULIA_DEPOT_PATH: `${path.join(ctx.sandbox.xrt, 'depot')}:`, JULIA_PKG_OFFLINE: 'true' },
    );
  },

  coverage: () => null,

  testReport: (_ctx, _placement, test) => parseJuliaCounts(test.output),

  focalHits(ctx) {
    const dir = path.dirname(ctx.sandbox.focalFile);
    const base = path.basename(ctx.sandbox.focalFile);
    const files = listSandboxDir(ctx.sandbox.dir, sandboxRel(ctx, dir))
      .filter((f) => f.startsWith(base + '.') && f.endsWith('.cov'))
      .map((f) => ({ name: f, text: readInSandbox(ctx, path.join(dir, f)) ?? '' }));
    return files.length ? parseJuliaCov(files) : null;
  },
};
