import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { isExecutable } from '../context/lsp/server-kit';
import { resourceRoot } from '../util/resources';

const run = promisify(execFile);

/**
 * The line tracer (linetrace/main.go), built once per Go installation and source, on the host, outside
 * every sandbox: Go's standard library only, compiled from a copy of the source in an empty folder with
 * none of the user's or a repository's Go settings (no GOFLAGS, no workspace, no toolchain switch,
 * offline), into `~/.cache/xrepotest/linetrace/<go version>-<hash>/linetrace`. The test phase sees that
 * folder read-only (a command view of the local executor), never a copy the test could replace.
 */
export const TRACER_SOURCE = (): string => {
  // In the repository the source itself; in an installed extension the copy the build put in dist/ (esbuild.mjs).
  const inTree = path.join(resourceRoot(), 'src', 'engine', 'tracer', 'linetrace', 'main.go');
  return fs.existsSync(inTree) ? inTree : path.join(resourceRoot(), 'dist', 'linetrace', 'main.go');
};

function cacheHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.XRT_LINETRACE_HOME ?? path.join(env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'xrepotest', 'linetrace');
}

function buildEnv(home: string, gocache: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', HOME: home, GOENV: 'off', GOFLAGS: '', GOWORK: 'off', GOTOOLCHAIN: 'local', GOPROXY: 'off', GO111MODULE: 'on', CGO_ENABLED: '0', GOCACHE: gocache, LANG: 'C.UTF-8' };
}

/** Where the tracer runs at all: it reads x86-64 registers and Linux's ptrace. */
export const tracerSupported = (): boolean => process.platform === 'linux' && process.arch === 'x64';

let pending: Promise<{ dir: string } | { problem: string }> | null = null;
/** What the last build came to, once it has (the answer `lineTracerIfBuilt` gives without waiting). */
let settled: { dir: string } | { problem: string } | null = null;

/** The folder holding a built `linetrace`, or why there is none. Memoized per process. */
export function localLineTracer(): Promise<{ dir: string } | { problem: string }> {
  pending ??= build().then(
    (built) => (settled = built),
    (e: unknown) => {
      pending = null; // a later slot may try again (Go installed since, a full disk freed)
      return (settled = { problem: `the line tracer could not be built (${e instanceof Error ? e.message.split('\n')[0] : String(e)})` });
    },
  );
  return pending;
}

/** For tests: forget this process's build (the next call looks in the cache folder again, as a new process would). */
export function forgetLineTracer(): void {
  pending = null;
  settled = null;
}

/**
 * The built tracer without waiting, for executors whose slots do not wait for the engine's own tools
 * (`Executor.toolsInBackground`: the editor's): on a machine's first Rust scoring the build compiles
 * the parts of Go's standard library it uses from an empty cache (10-15 s; Go ships no compiled
 * standard library), and a first score is not held back by a check of it. The build is started (or
 * goes on) in the background; until it has finished a slot is told why it has no tracer, and says its
 * coverage is not cross-checked.
 */
export function lineTracerIfBuilt(): { dir: string } | { problem: string } {
  const building = localLineTracer();
  void building;
  return settled ?? { problem: 'the line tracer is still being built (once per Go installation, in the background)' };
}

async function build(): Promise<{ dir: string }> {
  if (!tracerSupported()) throw new Error(`ptrace line tracing is implemented for Linux x86-64 only, not ${process.platform}/${process.arch}`);
  const source = fs.readFileSync(TRACER_SOURCE());
  const root = cacheHome();
  fs.mkdirSync(root, { recursive: true });
  const probe = await run('go', ['env', 'GOVERSION', 'GOROOT'], { env: buildEnv(root, path.join(root, `gocache-${process.pid}`)), cwd: root, timeout: 60_000 });
  const [version] = probe.stdout.trim().split('\n');
  const key = `${version}-${createHash('sha256').update(probe.stdout).update(source).digest('hex').slice(0, 12)}`.replace(/[^A-Za-z0-9._-]/g, '_');
  const dir = path.join(root, key);
  const bin = path.join(dir, 'linetrace');
  if (isExecutable(bin)) return { dir };
  // An empty working folder of this build's own: nothing but the source, no go.mod to read settings from.
  const work = fs.mkdtempSync(path.join(root, 'build-'));
  const tmp = `${bin}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(work, 'main.go'), source);
    // At the lowest priority: it runs beside a first warm-up and first scores (in the background for the
    // editor), which it must not slow down on a machine of two cores.
    const go = fs.existsSync('/usr/bin/nice') ? ['/usr/bin/nice', ['-n', '19', 'go']] as const : ['go', []] as const;
    await run(go[0], [...go[1], 'build', '-trimpath', '-o', tmp, 'main.go'], { env: buildEnv(work, path.join(work, 'gocache')), cwd: work, timeout: 600_000 });
    fs.renameSync(tmp, bin); // atomic: another process building the same key renames an identical file
  } finally {
    fs.rmSync(tmp, { force: true });
    fs.rmSync(work, { recursive: true, force: true });
  }
  return { dir };
}
