import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readSandboxFile, writeSandboxFile } from '../../execute/safe-fs';
import type { PrepareWith, RunContext } from '../../execute/toolchain';
import type { PhaseCommand, PhaseResult } from '../../execute/types';
import type { EnvironmentProblem } from '../../score/types';
import { repositoryNameOrNull } from '../../tasks/task-path';
import { pidAlive } from '../../util/process-namespace';
import { fetchDependencies, isResolutionFailure, unresolvableProblem, type FetchResult } from './dependencies';

/**
 * What the warm target needs of the local executor (execute/local.ts): its shared cache and how it
 * confines trusted steps. Named here, not imported: execute/local.ts looks languages up.
 */
/**
 * A warm `target/` per repository for the local executor (docs/execution.md, "Rust"). Without it each
 * slot compiles every dependency from scratch (a minute for a crate with criterion as a dev-dependency).
 *
 * Per key — the pristine copy's whole tree (sources, manifests, Cargo.lock, rust-toolchain files), the
 * host toolchain (`rustc -vV`) and the flags — once, under a lock shared with other processes:
 *   1. the trusted, networked `cargo fetch` (dependencies.ts) into the host's cargo caches;
 *   2. the warm build, a sandboxed phase like the others (offline, caches read-only) that may write
 *      only the entry's `target/`: `cargo build` (its status: do the dependencies resolve and the
 *      project build?) then `cargo test --no-run` (only warms the dev-dependencies);
 *   3. the entry is marked ready, with the Cargo.lock the fetch wrote (libraries seldom commit one:
 *      every slot then builds against the same versions).
 * Each slot then gets its own COPY of the entry's target (`cp --reflink=auto`: free on btrfs/xfs),
 * before any of its code exists. Not hard links: cargo and rustc rewrite files of the target folder in
 * place (its lock, fingerprints), which a sealed shared file refuses and a writable one would pass on
 * to every later slot. The entry itself is outside the sandbox's view (home folders are empty there),
 * so a test can spoil only its own copy, never the results of later slots.
 */

/** Entries kept besides the newest ones used within the hour (each is the size of a target folder). */
const KEEP_ENTRIES = 6;
const LOCK_WAIT_MS = 20 * 60_000;

interface WarmEntry {
  dir: string;
  /** Cargo.lock files the fetch wrote or changed, relative to the copy ('/'-separated). */
  locks: Array<{ rel: string; content: string }>;
}

type Outcome = { ok: true; entry: WarmEntry } | { ok: false; problem: EnvironmentProblem };

/** Per process: one warm-up per key, whatever the number of slots waiting for it. */
const outcomes = new Map<string, Promise<Outcome>>();

let toolchainId: string | undefined;

/** The host toolchain as cargo would run it outside any project (no rust-toolchain.toml applies from /). */
function hostToolchain(): string {
  if (toolchainId === undefined) {
    const r = spawnSync('rustc', ['-vV'], { cwd: '/', encoding: 'utf8', timeout: 20_000 });
    toolchainId = r.status === 0 ? r.stdout : `unknown: ${r.stderr ?? ''}`;
  }
  return toolchainId;
}

/** Digest of the copy as it was made (our .xrt scratch left out): links by target, files by content. */
export function treeDigest(root: string, skip: ReadonlySet<string>): string {
  const h = createHash('sha256');
  const walk = (rel: string): void => {
    const entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (!rel && skip.has(e.name)) continue;
      const abs = path.join(root, r);
      if (e.isSymbolicLink()) h.update(`L ${r}\0${fs.readlinkSync(abs)}\0`);
      else if (e.isDirectory()) {
        h.update(`D ${r}\0`);
        walk(r);
      } else if (e.isFile()) h.update(`F ${r}\0`).update(fs.readFileSync(abs)).update('\0');
    }
  };
  walk('');
  return h.digest('hex');
}

export function warmKey(ctx: RunContext, flags: string): string {
  const tree = treeDigest(ctx.sandbox.dir, new Set([path.basename(ctx.sandbox.xrt)]));
  const project = path.relative(ctx.sandbox.dir, ctx.sandbox.projectRoot);
  return createHash('sha256').update(`warm-target v1\0${tree}\0${project}\0${hostToolchain()}\0${flags}`).digest('hex').slice(0, 24);
}

/** A lock folder shared with other processes; one whose owner died is taken over. */
async function acquireLock(lockDir: string, signal?: AbortSignal): Promise<() => void> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    signal?.throwIfAborted();
    try {
      fs.mkdirSync(lockDir);
      fs.writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
      return () => fs.rmSync(lockDir, { recursive: true, force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const owner = Number(fs.readFileSync(path.join(lockDir, 'pid'), { encoding: 'utf8', flag: 'a+' }) || 0);
    if ((owner && !pidAlive(owner)) || Date.now() > deadline) {
      fs.rmSync(lockDir, { recursive: true, force: true });
      continue;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** The Cargo.lock candidates of a copy: at the package and each folder above it up to the copy's root. */
function lockCandidates(ctx: RunContext): string[] {
  const out: string[] = [];
  for (let dir = ctx.sandbox.projectRoot; ; dir = path.dirname(dir)) {
    out.push(path.relative(ctx.sandbox.dir, path.join(dir, 'Cargo.lock')).split(path.sep).join('/'));
    if (dir === ctx.sandbox.dir || path.dirname(dir) === dir) return out;
  }
}

function readReady(dir: string): WarmEntry | null {
  try {
    const ready = JSON.parse(fs.readFileSync(path.join(dir, 'ready.json'), 'utf8')) as { locks?: WarmEntry['locks'] };
    if (!fs.statSync(path.join(dir, 'target')).isDirectory()) return null;
    return { dir, locks: Array.isArray(ready.locks) ? ready.locks : [] };
  } catch {
    return null;
  }
}

/** Old entries go: all but the newest few, and never one used within the hour (another run may be copying it). */
function prune(root: string, keep: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(root).filter((n) => /^[0-9a-f]{24}$/.test(n) && n !== keep);
  } catch {
    return;
  }
  const used = (n: string): number => fs.statSync(path.join(root, n, 'ready.json'), { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const old = names.sort((a, b) => used(b) - used(a)).slice(KEEP_ENTRIES).filter((n) => Date.now() - used(n) > 3_600_000);
  for (const n of old) fs.rmSync(path.join(root, n), { recursive: true, force: true });
}

export interface WarmTargetPlan {
  /** Part of the key: flags that change every artifact (RUSTFLAGS). */
  flags: string;
  /** The warm build, writing `targetDir` (a host folder outside the sandbox). */
  command(targetDir: string): PhaseCommand;
  /** The slot's own target folder, inside the sandbox (made empty by the engine). */
  targetInSandbox: string;
}

async function warmEntry(ctx: RunContext, with_: PrepareWith, host: { bubblewrap: string | null; hostView?: readonly string[] }, root: string, key: string, plan: WarmTargetPlan, ran: (r: PhaseResult) => void): Promise<Outcome> {
  const dir = path.join(root, key);
  const release = await acquireLock(`${dir}.lock`);
  try {
    const ready = readReady(dir);
    if (ready) return { ok: true, entry: ready };
    fs.rmSync(dir, { recursive: true, force: true });
    const target = path.join(dir, 'target');
    fs.mkdirSync(target, { recursive: true });
    const before = new Map(lockCandidates(ctx).map((rel) => [rel, readSandboxFile(ctx.sandbox.dir, rel)]));
    const fetch: FetchResult = await fetchDependencies({ copyDir: ctx.sandbox.dir, projectRoot: ctx.sandbox.projectRoot, bwrap: host.bubblewrap, hostView: host.hostView });
    // Built even when the fetch failed: what the sandbox sees (a vendored source, caches fetched
    // earlier) may be enough; only if the offline build fails too is the fetch's failure the cause.
    const warm = await with_.run({ ...plan.command(target), writable: [target] });
    ran(warm);
    if (!warmed(warm)) {
      fs.rmSync(dir, { recursive: true, force: true });
      const repo = repositoryHint(ctx);
      if (!fetch.ok || isResolutionFailure(warm.output)) return { ok: false, problem: unresolvableProblem(warm.output, repo, fetch) };
      return { ok: false, problem: doesNotBuild(warm, repo, ctx) };
    }
    const locks: WarmEntry['locks'] = [];
    for (const [rel, old] of before) {
      const now = readSandboxFile(ctx.sandbox.dir, rel);
      if (now !== null && now !== old) locks.push({ rel, content: now });
    }
    fs.writeFileSync(path.join(dir, 'ready.json'), JSON.stringify({ locks, fetch: { ok: fetch.ok, ms: fetch.durationMs }, warmMs: warm.durationMs }));
    prune(root, key);
    return { ok: true, entry: { dir, locks } };
  } finally {
    release();
  }
}

/**
 * Whether the warm-up says the slot can be built: the project builds (exit 1 otherwise), and its tests'
 * build (exit 2 when it fails) did not fail on the dependencies — a dev-dependency that cannot be
 * resolved or built with this toolchain fails every slot's compile. A project test that does not
 * compile on its own is not the environment's failure (the compile phase reports it).
 */
function warmed(warm: PhaseResult): boolean {
  if (warm.timedOut) return false;
  return warm.exitCode === 0 || (warm.exitCode === 2 && !isResolutionFailure(warm.output));
}

/** The checkout as the task names it (where extraction ran), else its folder name: for the reasons' fixes. */
function repositoryHint(ctx: RunContext): string {
  const at = ctx.task.repository?.path;
  return at && path.isAbsolute(at) ? at : (repositoryNameOrNull(ctx.task) ?? 'the repository');
}

/** The toolchain a rust-toolchain(.toml) file of the copy names (at the package or above), if any. */
function pinnedToolchain(ctx: RunContext): string | null {
  for (const lock of lockCandidates(ctx)) {
    const dir = path.posix.dirname(lock);
    for (const name of ['rust-toolchain.toml', 'rust-toolchain']) {
      const text = readSandboxFile(ctx.sandbox.dir, dir === '.' ? name : `${dir}/${name}`, 64 * 1024);
      if (text === null) continue;
      return /^\s*channel\s*=\s*"([^"]+)"/m.exec(text)?.[1] ?? (/^[\w.-]+$/.test(text.trim()) ? text.trim() : null);
    }
  }
  return null;
}

function doesNotBuild(warm: PhaseResult, repo: string, ctx: RunContext): EnvironmentProblem {
  // rustup, in the sandbox's working folder, honours the repository's rust-toolchain file; it cannot
  // install what that file names there (no network, its home read-only).
  const named = /toolchain '([^']+)' is not installed/.exec(warm.output)?.[1];
  const pinned = named ?? (/(\.rustup\/tmp|rustup could not|is not installed)/.test(warm.output) ? pinnedToolchain(ctx) : null);
  if (pinned) {
    return {
      cause: 'toolchain-missing',
      reason: `the repository's rust-toolchain file asks for ${pinned}, which is not installed here (the sandbox cannot download it); install it with \`rustup toolchain install ${pinned}\`, then run \`xrepotest doctor --repo ${repo}\``,
    };
  }
  const how = warm.timedOut ? 'warm-up timed out' : warm.exitCode === null ? `warm-up killed (${warm.signal ?? 'limits'})` : `warm-up exit ${warm.exitCode}`;
  const first = warm.output.split('\n').map((l) => l.trim()).find((l) => l.startsWith('error')) ?? '(no error line)';
  return {
    cause: 'project-does-not-build',
    reason: `the project itself does not build here (${how}: ${first.slice(0, 200)}); build it with \`cargo build --offline\` in ${repo}, then run \`xrepotest doctor --repo ${repo}\``,
  };
}

/** Gives the slot the entry's lock files and its own copy of the warm target (before any of the test exists). */
function seed(ctx: RunContext, entry: WarmEntry, targetInSandbox: string): void {
  for (const { rel, content } of entry.locks) {
    if (readSandboxFile(ctx.sandbox.dir, rel) !== content) writeSandboxFile(ctx.sandbox.dir, rel, content);
  }
  fs.rmSync(targetInSandbox, { recursive: true, force: true });
  fs.mkdirSync(targetInSandbox, { recursive: true });
  // Modes and times kept (cargo compares times), owners not: the copy is the slot's own.
  const r = spawnSync('cp', ['-R', '--no-dereference', '--reflink=auto', '--preserve=mode,timestamps', `${path.join(entry.dir, 'target')}/.`, `${targetInSandbox}/`], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`could not copy the warm target folder: ${(r.stderr || r.error?.message || '').trim()}`);
  const now = new Date();
  fs.utimesSync(path.join(entry.dir, 'ready.json'), now, now);
}

/**
 * In a container (the docker executor): the dependencies were fetched when the repository's image was
 * built, and there is no cache shared between slots; the warm-up builds into the slot's own target
 * folder (so the compile after it starts warm) and its status says, as on the host, whether the
 * dependencies resolve offline with this toolchain and the project builds, before the test exists.
 */
async function prepareInContainer(ctx: RunContext, with_: PrepareWith, plan: WarmTargetPlan): Promise<PhaseResult | EnvironmentProblem> {
  const warm = await with_.run(plan.command(plan.targetInSandbox));
  if (warmed(warm)) return warm;
  const repo = repositoryHint(ctx);
  return isResolutionFailure(warm.output) ? unresolvableProblem(warm.output, repo) : doesNotBuild(warm, repo, ctx);
}

/**
 * The preparation of a Rust slot (see the header): the warm-up phase when this slot ran it, null when
 * the entry was warm, or the environment problem every slot of the key gets.
 */
export async function prepareWarmTarget(ctx: RunContext, with_: PrepareWith, plan: WarmTargetPlan): Promise<PhaseResult | EnvironmentProblem | null> {
  const executor = with_.executor;
  if (!executor.capabilities.hostToolchains) return prepareInContainer(ctx, with_, plan);
  const host = executor.capabilities.hostFetch;
  const shared = host ? executor.sharedCache?.('rust') : null;
  if (!host || !shared) return null;
  const root = shared.dir;
  const key = warmKey(ctx, plan.flags);
  let ranHere: PhaseResult | null = null;
  let outcome = outcomes.get(key);
  if (!outcome) {
    outcome = warmEntry(ctx, with_, host, root, key, plan, (r) => (ranHere = r));
    outcomes.set(key, outcome);
    // A run that broke off (cancelled, the executor gone) is tried again by the next slot.
    outcome.catch(() => outcomes.delete(key));
  }
  const result = await outcome;
  if (!result.ok) return result.problem;
  seed(ctx, result.entry, plan.targetInSandbox);
  return ranHere;
}

/** For tests: forget this process's outcomes (a failure is otherwise kept for the process's life). */
export function forgetWarmOutcomes(): void {
  outcomes.clear();
}
