import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * cmd/test2json for the local executor, built once per Go installation.
 *
 * The test phase runs the test binary the compile phase linked (`go test -c -cover`) under test2json,
 * as `go test -json` does in its own process, instead of `go test` relinking it there. Go 1.25 and
 * later no longer ship test2json prebuilt (`go tool test2json` builds it into GOCACHE on first use,
 * which the test phase must not write), so the engine builds it here from the Go distribution's own
 * source: trusted code, no repository involved (an empty working folder, no user configuration, no
 * workspace, offline), outside every sandbox, into a folder keyed by the installation
 * (`~/.cache/xrepotest/go-tools/<key>/test2json`). Each slot gets a copy in its sandbox at placement
 * (before anything of the test ran); the test phase sees it read-only.
 *
 * On a machine where nothing is built yet, the first warm-up's build cache is empty: test2json is then
 * built into it, before the warm-up, so that the standard library it compiles (runtime, fmt,
 * encoding/json: 74 of its 83 packages are also a test binary's) is compiled once for both. Built into
 * a cache of its own instead, beside the warm-up, it doubled that work: the warm-up of google/uuid took
 * 1.38-1.45 x a cold `go test -cover`. Only an empty cache qualifies (nothing but this trusted build has
 * written it); one a warm-up filled holds builds of a repository's code and is never read here. Not
 * -trimpath: that flag is part of every package's cache key, and no warm-up builds with it.
 */
export function toolsHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.XRT_GO_TOOLS_HOME ?? path.join(env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'xrepotest', 'go-tools');
}

/** The environment of the trusted build: Go's own settings only, none of the user's or a repository's. */
function buildEnv(home: string, gocache: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    GOENV: 'off',
    GOFLAGS: '',
    GOWORK: 'off',
    GOTOOLCHAIN: 'local',
    GOPROXY: 'off',
    CGO_ENABLED: '0',
    GOCACHE: gocache,
    LANG: 'C.UTF-8',
  };
}

let pending: Promise<{ path: string } | { problem: string }> | null = null;

/**
 * The path of a test2json built for the host's `go`, or why there is none. Memoized per process; a
 * memoized binary that is gone since (its cache folder cleared while the engine's server runs) is
 * looked for and built again, once, instead of failing every later Go slot's placement.
 */
export async function localTest2json(emptyCache?: string): Promise<{ path: string } | { problem: string }> {
  const asked = memoized(emptyCache);
  const got = await asked;
  if (!('path' in got) || isExecutable(got.path)) return got;
  // Slots waiting at once share one new build.
  if (pending === asked) pending = null;
  return memoized(emptyCache);
}

function memoized(emptyCache?: string): Promise<{ path: string } | { problem: string }> {
  pending ??= build(emptyCache).catch((e: unknown) => {
    pending = null; // a later slot may try again (a full disk freed, …)
    return { problem: `could not build Go's test2json (${e instanceof Error ? e.message.split('\n')[0] : String(e)})` };
  });
  return pending;
}

/** For tests: forget this process's build (the next call looks in `toolsHome()` again, as a new process would). */
export function forgetTest2json(): void {
  pending = null;
}

/** `emptyCache`: a build cache folder no process has written yet, kept (it is the warm-up's); else one of its own, removed after. */
async function build(emptyCache?: string): Promise<{ path: string }> {
  const root = toolsHome();
  fs.mkdirSync(root, { recursive: true });
  const probeEnv = buildEnv(root, path.join(root, `gocache-${process.pid}`));
  // The installation, not just its version string: a GOROOT rebuilt in place gets a new key.
  const { stdout } = await run('go', ['env', 'GOVERSION', 'GOROOT', 'GOOS', 'GOARCH'], { env: probeEnv, cwd: root, timeout: 60_000 });
  const [version, goroot] = stdout.trim().split('\n');
  let stamp = '';
  try {
    stamp = String(fs.statSync(path.join(goroot ?? '', 'src', 'cmd', 'test2json', 'main.go')).mtimeMs);
  } catch {
    /* no source: the build below says so */
  }
  const key = `${version}-${createHash('sha256').update(`${stdout}\n${stamp}`).digest('hex').slice(0, 12)}`.replace(/[^A-Za-z0-9._-]/g, '_');
  const dir = path.join(root, key);
  const bin = path.join(dir, 'test2json');
  if (isExecutable(bin)) return { path: bin };
  fs.mkdirSync(dir, { recursive: true });
  const tmp = `${bin}.${process.pid}.tmp`;
  const gocache = emptyCache && isEmptyDir(emptyCache) ? emptyCache : path.join(dir, `gocache-${process.pid}`);
  try {
    await run('go', ['build', '-o', tmp, 'cmd/test2json'], { env: buildEnv(dir, gocache), cwd: dir, timeout: 600_000 });
    // Atomic: another process building the same key at once renames an identical file.
    fs.renameSync(tmp, bin);
  } finally {
    fs.rmSync(tmp, { force: true });
    if (gocache !== emptyCache) fs.rmSync(gocache, { recursive: true, force: true });
  }
  return { path: bin };
}

function isEmptyDir(dir: string): boolean {
  try {
    return fs.lstatSync(dir).isDirectory() && fs.readdirSync(dir).length === 0;
  } catch {
    return false;
  }
}

function isExecutable(file: string): boolean {
  try {
    const st = fs.lstatSync(file);
    return st.isFile() && (st.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}
