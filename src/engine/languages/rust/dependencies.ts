import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cargoCacheDirs, hostCargoHome } from './cargo-home';
import { CappedOutput } from '../../execute/output';
import type { EnvironmentProblem } from '../../score/types';

/**
 * The trusted, networked step of a Rust slot (docs/execution.md, "Rust"): `cargo fetch` of the
 * pristine copy into the host's cargo caches, run by the engine before anything of the test exists;
 * every later phase is offline and sees those caches read-only.
 *
 * The repository is hostile input, so the fetch must not become code execution or a write outside:
 * - it runs from an empty folder with `--manifest-path`: cargo reads configuration from the working
 *   folder upwards, so the repository's `.cargo/config.toml` (source replacement, `[net]`, runners,
 *   `build.rustc`/wrappers, credential providers, aliases) is never read; nor is `rust-toolchain.toml`
 *   (rustup also looks from the working folder), so the host's default toolchain runs;
 * - under bubblewrap it sees the machine as the sandbox does (host-view.ts: system and toolchain
 *   folders read-only, homes empty: no user configuration, credentials, SSH keys or agent), and may
 *   write only the copy (for its Cargo.lock) and cargo's download caches; only the network is shared;
 * - its environment is cleared but for the toolchains, proxies and CA settings, and wrappers are
 *   switched off explicitly.
 * `cargo fetch` runs no build script and no compiler plugin: it downloads and unpacks.
 */

export const FETCH_TIMEOUT_MS = 5 * 60_000;

/** Host settings a download needs (proxies, CA bundles), passed to the fetch as they are. */
const NETWORK_ENV = /^(https?_proxy|HTTPS?_PROXY|no_proxy|NO_PROXY|all_proxy|ALL_PROXY|SSL_CERT_FILE|SSL_CERT_DIR|CARGO_HTTP_CAINFO|CARGO_HTTP_PROXY)$/;

export interface FetchOptions {
  /** The copy (absolute): bound writable, as cargo writes the lock file at the workspace root. */
  copyDir: string;
  /** The folder of the Cargo.toml to fetch for, inside the copy. */
  projectRoot: string;
  /** bubblewrap to confine the fetch with; null runs it unconfined (then the host's cargo configuration applies). */
  bwrap: string | null;
  /** The host as the sandbox sees it (execute/host-view.ts `localHostViewArgs`), with `bwrap`: cargo and its caches are in it. */
  hostView?: readonly string[];
  timeoutMs?: number;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
}

export interface FetchResult {
  ok: boolean;
  output: string;
  argv: string[];
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
}

/** The fetch's environment: toolchains, cargo's home, network settings; nothing else of the host. */
export function fetchEnv(home: string, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {
    PATH: env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    LANG: 'C.UTF-8',
    CARGO_HOME: hostCargoHome(env),
    CARGO_NET_OFFLINE: 'false',
    CARGO_TERM_COLOR: 'never',
    CARGO_TERM_PROGRESS_WHEN: 'never',
    // Empty switches a configured wrapper off (cargo's documented override); no repository config is
    // read anyway, this also covers the host's own.
    RUSTC_WRAPPER: '',
    RUSTC_WORKSPACE_WRAPPER: '',
    CARGO_BUILD_RUSTC_WRAPPER: '',
    CARGO_NET_GIT_FETCH_WITH_CLI: 'false',
  };
  const rustupHome = env.RUSTUP_HOME ?? path.join(os.homedir(), '.rustup');
  if (fs.existsSync(rustupHome)) out.RUSTUP_HOME = rustupHome;
  for (const [k, v] of Object.entries(env)) if (NETWORK_ENV.test(k) && v !== undefined) out[k] = v;
  return out;
}

/** The command line of the fetch, confined where bubblewrap is given. */
export function fetchArgv(opts: Pick<FetchOptions, 'copyDir' | 'projectRoot' | 'bwrap' | 'hostView'>, cwd: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const cargo = ['cargo', 'fetch', '--manifest-path', path.join(opts.projectRoot, 'Cargo.toml')];
  if (!opts.bwrap) return cargo;
  // Without the view cargo would not even exist in the sandbox: a caller that forgot it must hear so.
  if (!opts.hostView) throw new Error('a confined cargo fetch needs the host view (execute/host-view.ts localHostViewArgs)');
  const cargoHome = hostCargoHome(env);
  // cargo's lock on its package cache, shared with the host's own cargo (made if missing).
  const lock = path.join(cargoHome, '.package-cache');
  if (!fs.existsSync(lock)) fs.writeFileSync(lock, '');
  return [
    opts.bwrap,
    ...opts.hostView,
    '--dev', '/dev',
    '--proc', '/proc',
    '--tmpfs', '/tmp',
    // Later mounts cover the read-only ones of the host view.
    ...cargoCacheDirs(cargoHome).flatMap((d) => ['--bind', d, d]),
    '--bind', lock, lock,
    '--bind', opts.copyDir, opts.copyDir,
    ...resolverArgs(),
    '--dir', cwd,
    '--unshare-pid', '--unshare-ipc', '--unshare-uts',
    '--die-with-parent', '--new-session',
    '--cap-drop', 'ALL',
    '--chdir', cwd,
    '--',
    ...cargo,
  ];
}

/** Where systemd-resolved keeps resolv.conf (/run, outside the host view), that file read-only: names must resolve. */
function resolverArgs(): string[] {
  try {
    const real = fs.realpathSync('/etc/resolv.conf');
    if (real.startsWith('/etc/') || real.startsWith('/usr/')) return [];
    return ['--ro-bind', real, real];
  } catch {
    return [];
  }
}

/** Runs the trusted fetch (see the header); never throws for cargo's own failure. */
export async function fetchDependencies(opts: FetchOptions): Promise<FetchResult> {
  const env = opts.env ?? process.env;
  // Confined: a fresh folder of the private /tmp. Unconfined: an empty folder of our own.
  const scratch = opts.bwrap ? null : fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-cargo-fetch-'));
  const cwd = scratch ?? '/tmp/xrt-fetch';
  const home = scratch ?? '/tmp/xrt-fetch';
  const argv = fetchArgv(opts, cwd, env);
  const output = new CappedOutput(256 * 1024);
  const started = Date.now();
  try {
    return await new Promise<FetchResult>((resolve) => {
      let timedOut = false;
      const child = spawn(argv[0], argv.slice(1), { cwd: scratch ?? '/', env: fetchEnv(home, env), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      const kill = (): void => {
        try {
          if (child.pid) process.kill(-child.pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      };
      const timer = setTimeout(() => {
        timedOut = true;
        kill();
      }, opts.timeoutMs ?? FETCH_TIMEOUT_MS);
      opts.signal?.addEventListener('abort', kill, { once: true });
      child.stdout.on('data', (b: Buffer) => output.push(b));
      child.stderr.on('data', (b: Buffer) => output.push(b));
      let done = false;
      const finish = (code: number | null, error?: Error): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', kill);
        if (error) output.push(Buffer.from(`could not start ${argv[0]}: ${error.message}\n`));
        const exitCode = timedOut ? null : code;
        resolve({ ok: exitCode === 0, output: output.text(), argv, exitCode, timedOut, durationMs: Date.now() - started });
      };
      child.on('error', (e) => finish(null, e));
      child.on('close', (code) => finish(code));
    });
  } finally {
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** cargo's first `error:` line with what follows it (the `Caused by:` chain), on one line. */
function errorSummary(output: string): string {
  const lines = output.split('\n').map((l) => l.trim()).filter(Boolean);
  const at = lines.findIndex((l) => l.startsWith('error'));
  const chosen = at < 0 ? lines.slice(-3) : lines.slice(at, at + 6).filter((l) => l !== 'Caused by:');
  return chosen.join(' ').replace(/\s+/g, ' ').slice(0, 300) || '(no output)';
}

/**
 * Whether a trusted cargo log (fetch or warm build: nothing of the test has run) failed on resolving
 * dependencies rather than on compiling. Never used on a log a test could have written to.
 */
export function isResolutionFailure(output: string): boolean {
  return RESOLUTION_PATTERNS.some(({ re }) => re.test(output));
}

const NETWORK = /(failed to download|spurious network error|Couldn't resolve host|could not resolve host|failed to query replaced source|download of .* failed|Connection (refused|reset|timed out)|SSL connect error|failed to get successful HTTP response|attempting to make an HTTP request, but --offline was specified|--offline was specified|network failure seems to have happened)/i;
const RESOLUTION_PATTERNS: Array<{ re: RegExp; why: string; fix: string }> = [
  {
    re: /failed to (read|load manifest for dependency)[^\n]*|failed to get `[^`]+` as a dependency[^\n]*\n(?:[\s\S]*?)failed to (read|load)[^\n]*Cargo\.toml/i,
    why: 'a path dependency is not inside the repository (the copy holds only the repository)',
    fix: 'vendor it into the repository, or depend on a published version or a public git repository',
  },
  {
    re: /(is not supported by the following package|requires rustc \d[\d.]*)/i,
    why: "a dependency needs a newer Rust than this executor's",
    fix: 'use an executor with a newer toolchain (the local one, or a newer image), or commit a Cargo.lock that pins versions supporting it',
  },
  {
    re: /(failed to select a version|no matching package named|candidate versions found which didn't match|is yanked|version [^\n]* is yanked|locked to [^\n]* which is yanked)/i,
    why: 'no published version satisfies a requirement (never published, yanked, or a newer toolchain needed)',
    fix: 'fix the version requirement, or commit a Cargo.lock that pins versions that can be downloaded',
  },
  {
    re: /(failed to (clone|fetch|authenticate|load source for dependency)[^\n]*git|git repository|failed to authenticate when downloading repository|Unable to update (?:https?|ssh|file|git)[^\n]*)/i,
    why: 'a git dependency cannot be fetched (only public https repositories are fetched, without your credentials)',
    fix: 'make it a public https git dependency or a published version',
  },
  { re: NETWORK, why: 'the registry cannot be reached from this machine', fix: 'give this machine network access to crates.io (proxy settings are passed on), or use the docker executor' },
  {
    re: /(no matching package|failed to load source for dependency|failed to get `[^`]+` as a dependency|unable to get packages from source|failed to parse lock file|registry `[^`]+` not found|no such registry)/i,
    why: 'a dependency cannot be resolved',
    fix: 'check the dependency declarations with `cargo fetch` in the repository',
  },
];

/**
 * The environment verdict for dependencies the trusted steps could not make available: the cause and
 * the fix, from the fetch's log (or the warm build's when the fetch itself succeeded).
 */
export function unresolvableProblem(log: string, repoHint: string, fetch?: FetchResult): EnvironmentProblem {
  const source = fetch && !fetch.ok ? fetch.output : log;
  if (fetch?.timedOut) {
    return {
      cause: 'dependencies-unresolvable',
      reason: `the dependencies could not be fetched: \`cargo fetch\` timed out after ${Math.round(fetch.durationMs / 1000)} s; check this machine's access to crates.io, or run \`cargo fetch\` in ${repoHint} once, then run again`,
    };
  }
  const match = RESOLUTION_PATTERNS.find(({ re }) => re.test(source));
  const why = match?.why ?? 'cargo could not make the dependencies available offline';
  const fix = match?.fix ?? `run \`cargo fetch\` in ${repoHint} to see why`;
  return { cause: 'dependencies-unresolvable', reason: `the dependencies cannot be resolved: ${why} (${errorSummary(source)}); ${fix}; then check with \`xrepotest doctor --repo ${repoHint}\`` };
}
