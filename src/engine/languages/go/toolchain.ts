import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { listSandboxDir, readSandboxFile, renameInSandbox, writeSandboxFile } from '../../execute/safe-fs';
import { hostToolIdentity } from '../../execute/warm-environment';
import { phase, readInSandbox, readReport, sandboxRel, writeInSandbox, type Placement, type RunContext, type Toolchain } from '../../execute/toolchain';
import { goImportPath, parseGoCoverProfile } from '../../score/coverage/go-cover';
import { goTestJsonText, parseGoTestJson } from '../../score/reports/go-test-json';
import type { TestReport } from '../../score/types';
import { goStatementStarts } from './statement-lines';
import { goTestEvents } from './test-events';
import { blamedFiles, collidingNames, declaredNames, freeSuffix, predictedCollisions, renameIdentifiers, testFunctionNames, type DeclaredNames } from './collisions';

const ASIDE = '.xrt-aside';

/** Per placement: the package's import path, read from the pristine go.mod (the test events name it). */
const importPaths = new WeakMap<Placement, string>();

/** The test binary the compile phase links (instrumented for coverage) and the test phase runs. */
const testBinary = (ctx: RunContext): string => path.join(ctx.sandbox.xrt, 'pkg.test');
/**
 * Runs the test binary with its stderr and stdout in one pipe (a panic's trace, written by the runtime
 * to fd 2, stays where it happened among the framing lines: test2json read them from one pipe too) and,
 * when a signal killed it (the memory limit's SIGKILL), says so as `go test` does ("signal: killed",
 * Go's name for it): the exit status alone only says that the test failed.
 */
const SAY_SIGNAL = [
  // The shell's own "Killed" notice goes nowhere (it is printed with the parent's redirections: hence
  // the subshell).
  'exec 2>/dev/null',
  '("$@" 2>&1); s=$?',
  '[ "$s" -gt 128 ] || exit "$s"',
  'case $((s - 128)) in',
  '  1) n=hangup;; 2) n=interrupt;; 3) n=quit;; 4) n="illegal instruction";; 5) n="trace/breakpoint trap";;',
  '  6) n=aborted;; 7) n="bus error";; 8) n="floating point exception";; 9) n=killed;; 10) n="user defined signal 1";;',
  '  11) n="segmentation fault";; 12) n="user defined signal 2";; 13) n="broken pipe";; 14) n="alarm clock";; 15) n=terminated;;',
  '  24) n="CPU time limit exceeded";; 25) n="file size limit exceeded";; 31) n="bad system call";; *) n="signal $((s - 128))";;',
  'esac',
  'printf "signal: %s\\n" "$n"', // as go test prints it: no line break first
  'exit "$s"',
].join('\n');

function packageArg(ctx: RunContext): string {
  const rel = path.relative(ctx.sandbox.projectRoot, path.dirname(ctx.sandbox.focalFile)).split(path.sep).join('/');
  return rel ? `./${rel}` : '.';
}

/** The build cache the Go images warm with the standard library (docker/go/Dockerfile.*). */
const IMAGE_GOCACHE = '/xrt/cache/go/build';

function goEnv(ctx: RunContext, gocache = !ctx.hostToolchains ? IMAGE_GOCACHE : path.join(ctx.sandbox.xrt, 'gocache')): Record<string, string> {
  // Offline and pinned: dependencies come from the module cache (the image's, or the host's read-only).
  return { GOFLAGS: '-mod=mod', GOPROXY: 'off', GOTOOLCHAIN: 'local', GOCACHE: gocache, CGO_ENABLED: '0' };
}

/** The host's Go as the phases run it (GOTOOLCHAIN=local, outside any module): part of the warm cache's key. */
const hostGoVersion = (): string => hostToolIdentity('go', ['env', 'GOVERSION', 'GOOS', 'GOARCH', 'GOROOT'], { GOTOOLCHAIN: 'local' });

export const goToolchain: Toolchain = {
  manifests: ['go.mod'],
  // Go's build cache keys a package's compile on its folder (the file paths it embeds): at a new path
  // every slot would rebuild the module's own packages the focal package imports, however warm the cache.
  fixedPath: true,
  smallCopyWrites: true,

  // The warm build cache's key (execute/warm-environment.ts): Go and the flags every phase builds
  // with, and the package the warm-up builds; the copy's content is added by the engine.
  warmIdentity(ctx) {
    const { GOCACHE: _cache, ...flags } = goEnv(ctx);
    // Where the phases see the copy is part of every cached compile of the module's own packages.
    const at = ctx.fixedPath ? `at ${ctx.fixedPath}` : 'at the sandbox';
    return { toolchain: `go warm-up v2\0${hostGoVersion()}\0${JSON.stringify(flags)}\0${at}`, scope: packageArg(ctx) };
  },

  // Go compiles the standard library and the package from scratch with an empty cache (15 s for a
  // small package here, against 0.3 s warm): build the untouched package once per key into a warm
  // cache (execute/warm-environment.ts) every later slot of the key sees copy-on-write.
  warmUp(ctx, cacheDir) {
    const pkg = packageArg(ctx);
    const cmd = phase(
      'warm-up',
      ctx,
      // Its exit status says whether the package itself builds (else every slot is an environment
      // verdict); the package's own tests only warm the cache: a stale one is set aside at compile time.
      // -v names each package as it is compiled: the build's progress (its limit is the time without any, execute/toolchain.ts).
      // The tests are built once, in the compile phase's coverage mode: a build without coverage (an
      // earlier `go test -c -o /dev/null` here) filled the cache with objects no phase reads (0.6 s of
      // CPU and a link on the fixture, more for a large package).
      // Built, never run (-c): the cache is writable here and becomes a sealed entry later entries of
      // the family start from, so no code of the repository may run while it is open (a test's init or
      // TestMain, run by `go test -run '^$'`, planted files in it; hostile-warm.test.ts). With cgo off
      // and no -toolexec, only the go tool writes it.
      ['sh', '-c', 'go build -v "$1" || exit 1; go test -c -covermode=count -o /dev/null "$1"; exit 0', 'warm-up', pkg],
      ctx.sandbox.projectRoot,
      goEnv(ctx, cacheDir),
    );
    return { ...cmd, writable: [cacheDir] };
  },

  // `go build -v` names each package as it compiles it (import paths, one a line).
  buildProgress: { unit: 'packages', line: /^[\w.~-]+(?:\/[\w.~-]+)*$/ },

  cacheDirInSandbox: (ctx) => (!ctx.hostToolchains ? IMAGE_GOCACHE : path.join(ctx.sandbox.xrt, 'gocache')),

  // The test phase runs the compiled binary and builds nothing: no cache to write
  // (so a reused container's build cache stays closed to tests: execute/docker.ts).
  writableDirs: () => [],

  async place(ctx: RunContext): Promise<Placement> {
    const testFile = path.join(path.dirname(ctx.sandbox.focalFile), `xrepotest_${ctx.id}_test.go`);
    const testNames = await testFunctionNames(ctx.testCode);
    const placement: Placement = { testFile, writtenCode: ctx.testCode, testNames, notes: testNames.length ? [] : ['no func TestXxx(t *testing.T) in the test'] };
    // Names the package already declares are renamed in our file before the first compile: a model
    // names its test Test<Function>, and so do people (the fixture's TestStatus). Found by the
    // compiler instead, each costs a failed compile and a second one (1.1 s of the fixture's 1.8 s).
    const predicted = await collisionsWithPackage(ctx, ctx.testCode);
    const note = await renameOurs(placement, predicted.names, predicted.others);
    if (note) placement.notes.push(note);
    fs.writeFileSync(testFile, placement.writtenCode);
    // Nothing of the test has run yet: go.mod is the repository's own.
    const goMod = readInSandbox(ctx, path.join(ctx.sandbox.projectRoot, 'go.mod'));
    importPaths.set(placement, goMod !== null ? path.posix.dirname(goImportPath(goMod, ctx.sandbox.projectRoot, ctx.sandbox.focalFile)) : 'command-line-arguments');
    return placement;
  },

  // The test binary, built once with coverage (only the package under test is instrumented; its
  // dependencies are the same cached objects as the warm-up's). Its status is the compile verdict, its
  // output what the repair rounds read; `go test -c` also runs go test's vet checks, as `go test` would.
  // Linked as `go test` links the binary it runs (`-s -w`: no symbol table, no DWARF; `go test -c`
  // keeps both, 0.2–0.4 s more link time on the fixture): stack traces and coverage are the same.
  compile: (ctx) =>
    phase('compile', ctx, ['go', 'test', '-c', '-cover', '-covermode=count', '-ldflags=-s -w', '-o', testBinary(ctx), packageArg(ctx)], ctx.sandbox.projectRoot, goEnv(ctx)),

  async repairEnvironment(ctx, placement, failed) {
    // Called round by round after a failed compile (execute/evaluate.ts). The package's own files are
    // never edited: a model names its test Test<Function>, and so do people, and it may redeclare a
    // helper the package's tests have; the names are changed in OUR file instead, and the tests run by
    // their new names. Only existing test files that fail on their own (stale, or needing build tags we
    // do not pass) are set aside, each one the errors blame, in the copy. A round with nothing to do
    // ends it: the failure is the test's.
    const ours = path.basename(placement.testFile);
    // The package folder is resolved first (a link such as pkg -> pkg-real inside the repository is
    // fine); every file is then written or renamed inside it without following links.
    const realDir = fs.realpathSync(path.dirname(placement.testFile));
    const colliding = collidingNames(failed.output, ours);
    if (colliding.length) {
      const note = await renameOurs(placement, colliding, failed.output);
      // Compile runs no test code, so nothing untrusted has run yet; the safe writer all the same.
      if (note) writeSandboxFile(ctx.sandbox.dir, sandboxRel(ctx, path.join(realDir, ours)), placement.writtenCode);
      return note;
    }
    const others = fs.readdirSync(realDir).filter((f) => f.endsWith('_test.go') && f !== ours);
    const blamed = blamedFiles(failed.output, ours, others);
    if (!blamed.length) return null;
    for (const f of blamed) renameInSandbox(ctx.sandbox.dir, sandboxRel(ctx, path.join(realDir, f)), sandboxRel(ctx, path.join(realDir, f + ASIDE)));
    return `the package's existing test file(s) ${blamed.join(', ')} did not build on their own; set aside in the copy (the package's other tests stay)`;
  },

  test(ctx, placement) {
    const run = placement.testNames.length ? `^(${placement.testNames.join('|')})$` : '^$';
    const profile = path.join(ctx.sandbox.out, 'cover.out');
    // Set at placement; a placement made elsewhere builds its events under go's name for a file list.
    const importPath = importPaths.get(placement) ?? 'command-line-arguments';
    // Written again per mutant, after the test ran once: never through a link the test left.
    const script = path.join(ctx.sandbox.xrt, 'go-test.sh');
    writeInSandbox(ctx, script, SAY_SIGNAL + '\n');
    // What `go test -json` does after linking, without linking again: the binary in the package's
    // folder with the flags go test gives it (-test.paniconexit0: an os.Exit(0) inside a test is a
    // failure). Its output is turned into test2json's events by the engine, on the host, after it
    // ended (test-events.ts; nothing of ours runs beside the test), and the status is test2json's:
    // 1 when the binary failed. Nothing here writes a build cache. The same in an image.
    const cmd = phase(
      'test',
      ctx,
      ['sh', script, testBinary(ctx), '-test.v=test2json', '-test.paniconexit0', '-test.count=1', '-test.run', run, `-test.coverprofile=${profile}`],
      path.dirname(ctx.sandbox.focalFile),
      goEnv(ctx),
    );
    cmd.readOutput = (raw, maxBytes) => {
      const events = goTestEvents(raw.output, { package: importPath, exitCode: raw.exitCode, elapsed: Math.round(raw.durationMs) / 1000, maxBytes });
      const exitCode = raw.exitCode === null || raw.exitCode === 0 ? raw.exitCode : 1;
      return { ...raw, exitCode, output: events.text, outputTruncated: raw.outputTruncated || events.truncated };
    };
    return cmd;
  },

  coverage: () => null,

  testReport: (_ctx, placement, test) => namesAsWritten(parseGoTestJson(test.output), placement),

  // The test phase writes `go test -json` events; the warm-up and compile phases write text.
  displayText: (phase, output) => (phase === 'test' ? goTestJsonText(output) : output),

  async focalHits(ctx) {
    const profile = readReport(ctx, 'cover.out');
    const goMod = readInSandbox(ctx, path.join(ctx.sandbox.projectRoot, 'go.mod'));
    if (profile === null || goMod === null) return null;
    // Statement lines come from the task's focal file (trusted), never from what the test left in the copy.
    const statements = await goStatementStarts(ctx.task.file_content);
    return parseGoCoverProfile(profile, goImportPath(goMod, ctx.sandbox.projectRoot, ctx.sandbox.focalFile), statements);
  },
};

/** Top-level names of the package's files, by content (a package's files are read by every slot of its tasks). */
const declaredByContent = new Map<string, DeclaredNames | null>();

/**
 * What our test declares that another Go file of the focal file's folder (the package, and its
 * external `_test` package: matched by package clause) declares too. Read before anything of the test
 * has run, without following links all the same; a file that cannot be read or parsed is skipped (the
 * compiler still reports a collision with it, repaired after the compile).
 */
async function collisionsWithPackage(ctx: RunContext, code: string): Promise<{ names: string[]; others: string }> {
  const ours = await declaredNames(code);
  if (!ours || !ours.names.length) return { names: [], others: '' };
  const dir = path.posix.dirname(ctx.sandbox.focalInCopy);
  const rel = (name: string): string => (dir === '.' ? name : `${dir}/${name}`);
  let files: string[] = [];
  try {
    // The sandbox's root is the engine's own folder (made by it, never a link); below it, no link is followed.
    files = (dir === '.' ? fs.readdirSync(ctx.sandbox.dir) : listSandboxDir(ctx.sandbox.dir, dir)).filter((f) => f.endsWith('.go')).sort();
  } catch {
    return { names: [], others: '' };
  }
  const others: DeclaredNames[] = [];
  const texts: string[] = [];
  for (const f of files) {
    let text: string | null = null;
    try {
      text = readSandboxFile(ctx.sandbox.dir, rel(f), 4 * 1024 ** 2);
    } catch {
      continue;
    }
    if (text === null) continue;
    const key = createHash('sha256').update(text).digest('hex');
    if (!declaredByContent.has(key)) {
      declaredByContent.set(key, await declaredNames(text));
      while (declaredByContent.size > 2000) declaredByContent.delete(declaredByContent.keys().next().value as string);
    }
    const declared = declaredByContent.get(key);
    if (declared) others.push(declared);
    texts.push(text);
  }
  return { names: predictedCollisions(ours, others), others: texts.join('\n') };
}

/**
 * Gives our colliding top-level names a free suffix in our code (`placement.writtenCode`, written by
 * the caller), and runs the tests by their new names. `context` is text the suffix must not clash
 * with (the compiler's output, or the package's files, which name the package's declarations).
 */
async function renameOurs(placement: Placement, names: string[], context: string): Promise<string | null> {
  if (!names.length) return null;
  const suffix = freeSuffix(placement.writtenCode, context, names);
  const renames = new Map(names.map((n) => [n, n + suffix]));
  const code = await renameIdentifiers(placement.writtenCode, renames);
  if (code === null || code === placement.writtenCode) return null;
  placement.writtenCode = code;
  const asWritten = { ...placement.renamedTests };
  for (const [from, to] of renames) {
    if (!placement.testNames.includes(from)) continue;
    asWritten[to] = asWritten[from] ?? from;
    delete asWritten[from];
  }
  placement.renamedTests = asWritten;
  placement.testNames = placement.testNames.map((n) => renames.get(n) ?? n);
  return `the package already declares ${names.join(', ')}; renamed in our test only (${[...renames].map(([a, b]) => `${a} -> ${b}`).join(', ')}), the package's files untouched`;
}

/** The report under the test names the generated test gave (TestStatus_xrt1 -> TestStatus, subtests too). */
function namesAsWritten(report: TestReport, placement: Placement): TestReport {
  const renamed = placement.renamedTests;
  if (!renamed || !Object.keys(renamed).length) return report;
  const cases = report.cases.map((c) => {
    const [top, ...rest] = c.name.split('/');
    const original = Object.hasOwn(renamed, top!) ? renamed[top!] : undefined;
    return original === undefined ? c : { ...c, name: [original, ...rest].join('/') };
  });
  return { ...report, cases };
}
