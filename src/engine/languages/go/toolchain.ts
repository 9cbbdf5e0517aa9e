import * as fs from 'node:fs';
import * as path from 'node:path';
import { renameInSandbox } from '../../execute/safe-fs';
import { phase, readInSandbox, readReport, sandboxRel, type Placement, type RunContext, type Toolchain } from '../../execute/toolchain';
import { named, field } from '../../parse/nodes';
import { parseWithDeadline } from '../../parse/parse';
import { goImportPath, parseGoCoverProfile } from '../../score/coverage/go-cover';
import { parseGoTestJson } from '../../score/reports/go-test-json';

const ASIDE = '.xrt-aside';

/** `func TestXxx(t *testing.T)` names, for `-run`: only our tests run, not the package's others. */
async function testFunctionNames(code: string): Promise<string[]> {
  const parsed = await parseWithDeadline('go', code, 10_000);
  if (!('tree' in parsed)) return [];
  try {
    return named(parsed.tree.rootNode)
      .filter((n) => n.type === 'function_declaration')
      .map((n) => field(n, 'name')?.text ?? '')
      .filter((name) => /^Test($|[^a-z])/.test(name));
  } finally {
    parsed.tree.delete();
  }
}

function packageArg(ctx: RunContext): string {
  const rel = path.relative(ctx.sandbox.projectRoot, path.dirname(ctx.sandbox.focalFile)).split(path.sep).join('/');
  return rel ? `./${rel}` : '.';
}

/** The build cache the Go images warm with the standard library (docker/go/Dockerfile.*). */
const IMAGE_GOCACHE = '/xrt/cache/go/build';

function goEnv(ctx: RunContext, gocache = ctx.executorKind === 'docker' ? IMAGE_GOCACHE : path.join(ctx.sandbox.xrt, 'gocache')): Record<string, string> {
  // Offline and pinned: dependencies come from the module cache (the image's, or the host's read-only).
  return { GOFLAGS: '-mod=mod', GOPROXY: 'off', GOTOOLCHAIN: 'local', GOCACHE: gocache, CGO_ENABLED: '0' };
}

export const goToolchain: Toolchain = {
  manifests: ['go.mod'],

  // Go compiles the standard library and the package from scratch with an empty cache (15 s for a
  // small package here, against 0.3 s warm): build the untouched package once into the shared cache.
  warmUp(ctx, cacheDir) {
    const pkg = packageArg(ctx);
    const cmd = phase(
      'warm-up',
      ctx,
      ['sh', '-c', 'go test -c -o /dev/null "$1" && go test -count=1 -run "^$" -covermode=count "$1"', 'warm-up', pkg],
      ctx.sandbox.projectRoot,
      goEnv(ctx, cacheDir),
    );
    return { ...cmd, writable: [cacheDir] };
  },

  cacheDirInSandbox: (ctx) => (ctx.executorKind === 'docker' ? IMAGE_GOCACHE : path.join(ctx.sandbox.xrt, 'gocache')),

  // `go test` rebuilds the test binary into its cache during the test phase.
  writableDirs: (ctx) => (ctx.executorKind === 'docker' ? [] : [path.join(ctx.sandbox.xrt, 'gocache')]),

  async place(ctx: RunContext): Promise<Placement> {
    const testFile = path.join(path.dirname(ctx.sandbox.focalFile), `xrepotest_${ctx.id}_test.go`);
    fs.writeFileSync(testFile, ctx.testCode);
    const testNames = await testFunctionNames(ctx.testCode);
    return { testFile, writtenCode: ctx.testCode, testNames, notes: testNames.length ? [] : ['no func TestXxx(t *testing.T) in the test'] };
  },

  compile: (ctx) => phase('compile', ctx, ['go', 'test', '-c', '-o', path.join(ctx.sandbox.xrt, 'pkg.test'), packageArg(ctx)], ctx.sandbox.projectRoot, goEnv(ctx)),

  repairEnvironment(ctx, placement, failed) {
    // The package's own tests may not build next to ours: stale ones, ones needing build tags we do not
    // pass, or one with the same name as ours (models name tests Test<Function>, and so do people).
    // When the errors name them, set them aside in the copy and compile again; a second failure is ours.
    const dir = path.dirname(placement.testFile);
    const ours = path.basename(placement.testFile);
    const others = fs.readdirSync(dir).filter((f) => f.endsWith('_test.go') && f !== ours);
    const blamed = others.filter((f) => new RegExp(`(^|[/\\s])${f.replace(/\./g, '\\.')}:\\d+`, 'm').test(failed.output));
    if (!blamed.length) return null;
    // In the copy only, and without following links: the package folder is resolved first (a link such as
    // pkg -> pkg-real inside the repository is fine), then each file is renamed inside it.
    const realDir = fs.realpathSync(dir);
    for (const f of others) renameInSandbox(ctx.sandbox.dir, sandboxRel(ctx, path.join(realDir, f)), sandboxRel(ctx, path.join(realDir, f + ASIDE)));
    return `the package's existing tests did not build next to ours (${blamed.join(', ')}); set aside ${others.length} existing _test.go files in the copy`;
  },

  test(ctx, placement) {
    const run = placement.testNames.length ? `^(${placement.testNames.join('|')})$` : '^$';
    return phase(
      'test',
      ctx,
      ['go', 'test', '-count=1', '-json', '-run', run, '-covermode=count', `-coverprofile=${path.join(ctx.sandbox.out, 'cover.out')}`, packageArg(ctx)],
      ctx.sandbox.projectRoot,
      goEnv(ctx),
    );
  },

  coverage: () => null,

  testReport: (_ctx, _placement, test) => parseGoTestJson(test.output),

  focalHits(ctx) {
    const profile = readReport(ctx, 'cover.out');
    const goMod = readInSandbox(ctx, path.join(ctx.sandbox.projectRoot, 'go.mod'));
    if (profile === null || goMod === null) return null;
    return parseGoCoverProfile(profile, goImportPath(goMod, ctx.sandbox.projectRoot, ctx.sandbox.focalFile));
  },
};
