import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { readSandboxFile, writeSandboxFile } from '../../execute/safe-fs';
import type { PrepareWith, RunContext } from '../../execute/toolchain';
import type { PhaseCommand, PhaseResult } from '../../execute/types';
import type { EnvironmentProblem } from '../../score/types';
import { repositoryNameOrNull } from '../../tasks/task-path';
import { environmentWarmKey, familyOf, hostToolIdentity, shareWithSlot, warmEntry, warmKey, type WarmBuildResult } from '../../execute/warm-environment';
import { unfinishedBuildProblem } from '../../execute/warm-up-problem';
import { fetchDependencies, isResolutionFailure, unresolvableProblem, type FetchResult } from './dependencies';
import { CARGO_METADATA_FILE, MAX_METADATA_BYTES } from './test-targets';

/**
 * A warm `target/` per key for the local executor (docs/execution.md, "Warm environments"). Without it
 * each slot compiles every dependency from scratch (a minute for a crate with criterion as a dev-dependency).
 *
 * Per key (execute/warm-environment.ts) — the pristine copy's whole tree (sources, manifests,
 * Cargo.lock, rust-toolchain files), the host toolchain (`rustc -vV`) and the flags — once, under a
 * lock shared with other processes:
 *   1. the trusted, networked `cargo fetch` (dependencies.ts) into the host's cargo caches;
 *   2. the warm build, a sandboxed phase like the others (offline, caches read-only) that may write
 *      only the entry's `target/`: `cargo build` (its status: do the dependencies resolve and the
 *      project build?) then `cargo test --no-run` (only warms the dev-dependencies);
 *   3. the entry is marked ready, with the Cargo.lock the fetch wrote (libraries seldom commit one:
 *      every slot then builds against the same versions).
 * Each slot then sees the entry's target copy-on-write, before any of its code exists: an overlay
 * mounted for each of its phases where the executor can (cargo's writes land in the slot's upper
 * layer), else its own copy (`cp --reflink=auto`). Never hard links: cargo and rustc rewrite files of
 * the target folder in place (its lock, fingerprints), which a sealed shared file refuses and a
 * writable one would pass on to every later slot. The entry itself is outside the sandbox's view (home
 * folders are empty there), so a test can spoil only its own view, never the results of later slots.
 */

interface WarmMeta {
  /** Cargo.lock files the fetch wrote or changed, relative to the copy ('/'-separated). */
  locks: Array<{ rel: string; content: string }>;
  /** What `cargo metadata --no-deps` said in the warm-up (test-targets.ts), or null. */
  cargoMetadata?: string | null;
}

/** Per sandbox: the warm-up's `cargo metadata` answer, for placement to choose the targets the compile builds. */
const metadataOf = new WeakMap<object, string | null>();

/** The warm-up's `cargo metadata --no-deps` answer for this slot (test-targets.ts), or null when there is none. */
export function cargoMetadataOf(ctx: RunContext): string | null {
  return metadataOf.get(ctx.sandbox) ?? null;
}

/** The answer the warm-up left in the sandbox (written before any test existed; read through safe-fs all the same). */
function readCargoMetadata(ctx: RunContext): string | null {
  const rel = path.relative(ctx.sandbox.dir, path.join(ctx.sandbox.xrt, CARGO_METADATA_FILE)).split(path.sep).join('/');
  try {
    return readSandboxFile(ctx.sandbox.dir, rel, MAX_METADATA_BYTES);
  } catch {
    return null;
  }
}

/** The host toolchain as cargo would run it outside any project (no rust-toolchain.toml applies from /). */
export const hostToolchain = (): string => hostToolIdentity('rustc', ['-vV']);

/** The warm target's key (execute/warm-environment.ts): the pristine copy, the host toolchain and the flags. */
export function warmTargetKey(ctx: RunContext, flags: string): string {
  // Built at the fixed path or at the entry's own: the paths its state holds are part of what it is.
  const at = ctx.fixedPath ? `at ${ctx.fixedPath}` : 'at the entry';
  return warmKey({ copyDir: ctx.sandbox.dir, skip: new Set([path.basename(ctx.sandbox.xrt)]), projectRoot: ctx.sandbox.projectRoot, toolchain: `warm-target v5\0${hostToolchain()}\0${flags}\0${at}`, scope: '' });
}

/** The Cargo.lock candidates of a copy: at the package and each folder above it up to the copy's root. */
function lockCandidates(ctx: RunContext): string[] {
  const out: string[] = [];
  for (let dir = ctx.sandbox.projectRoot; ; dir = path.dirname(dir)) {
    out.push(path.relative(ctx.sandbox.dir, path.join(dir, 'Cargo.lock')).split(path.sep).join('/'));
    if (dir === ctx.sandbox.dir || path.dirname(dir) === dir) return out;
  }
}

export interface WarmTargetPlan {
  /** Part of the key: flags that change every artifact (RUSTFLAGS). */
  flags: string;
  /** The warm build, writing `targetDir` (a host folder outside the sandbox). */
  command(targetDir: string): PhaseCommand;
  /** The slot's own target folder, inside the sandbox (made empty by the engine). */
  targetInSandbox: string;
}

/** The trusted fetch, then the warm build into the entry's `target` (a host folder outside the sandbox). */
async function buildEntry(ctx: RunContext, with_: PrepareWith, host: { bubblewrap: string | null; hostView?: readonly string[] }, plan: WarmTargetPlan, target: string, ran: (r: PhaseResult) => void): Promise<WarmBuildResult<WarmMeta>> {
  const before = new Map(lockCandidates(ctx).map((rel) => [rel, readSandboxFile(ctx.sandbox.dir, rel)]));
  const fetch: FetchResult = await fetchDependencies({ copyDir: ctx.sandbox.dir, projectRoot: ctx.sandbox.projectRoot, bwrap: host.bubblewrap, hostView: host.hostView });
  // Built even when the fetch failed: what the sandbox sees (a vendored source, caches fetched
  // earlier) may be enough; only if the offline build fails too is the fetch's failure the cause.
  // At the executor's fixed path, the entry is built where every slot will see it (at the sandbox's
  // target folder): cargo's fingerprints and rustc's incremental state then hold for each of them.
  const warm = await with_.run(
    ctx.fixedPath ? { ...plan.command(plan.targetInSandbox), binds: [{ source: target, dest: plan.targetInSandbox }] } : { ...plan.command(target), writable: [target] },
  );
  ran(warm);
  // Cut short by a limit while the dependencies compiled: the target so far is kept (the entry's
  // partial content) and the next try continues it; cargo rebuilds nothing its fingerprints hold.
  if (warm.timedOut) return { ok: false, problem: unfinishedBuildProblem(warm, repositoryHint(ctx)), unfinished: true };
  if (!warmed(warm)) {
    const repo = repositoryHint(ctx);
    if (!fetch.ok || isResolutionFailure(warm.output)) return { ok: false, problem: unresolvableProblem(warm.output, repo, fetch) };
    return { ok: false, problem: doesNotBuild(warm, repo, ctx) };
  }
  return { ok: true, meta: { locks: changedLocks(ctx, before), cargoMetadata: readCargoMetadata(ctx) } };
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
export function pinnedToolchain(ctx: RunContext): string | null {
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
  const how = warm.exitCode === null ? `warm-up killed (${warm.signal ?? 'limits'})` : `warm-up exit ${warm.exitCode}`;
  const first = warm.output.split('\n').map((l) => l.trim()).find((l) => l.startsWith('error')) ?? '(no error line)';
  return {
    cause: 'project-does-not-build',
    reason: `the project itself does not build here (${how}: ${first.slice(0, 200)}); build it with \`cargo build --offline\` in ${repo}, then run \`xrepotest doctor --repo ${repo}\``,
  };
}

/**
 * In a container (the docker executor): the dependencies were fetched when the repository's image was
 * built. The warm-up's target is kept on the host across slots and processes (`Session.keptBuilds`),
 * per key — the pristine copy's whole tree, the image's id and the flags — in the same kind of entry
 * as the local executor's (warm-environment.ts: built once under a lock shared between processes,
 * `partial.json` while unfinished, so a build cut short by a limit, a cancellation or a killed process
 * is continued by the next try, in this process or another). The warm-up fills the entry through a
 * bind (`PhaseCommand.binds`): a container of its own, made for that trusted command before the test
 * exists, with the entry shown at the slot's target folder; the slot's container never sees the entry.
 * Each slot then gets its own copy of it, made on the host before its test exists (a test spoils only
 * its copy). Without a place to keep builds the warm-up builds into the slot's own target folder.
 */
async function prepareInContainer(ctx: RunContext, with_: PrepareWith, plan: WarmTargetPlan): Promise<PhaseResult | EnvironmentProblem | null> {
  let kept = with_.kept;
  let root: string | undefined;
  try {
    root = kept?.dir;
  } catch {
    kept = undefined; // nowhere to keep builds (a read-only home): the slot warms up into its own target
  }
  if (!kept || !root) {
    const warm = await with_.run(plan.command(plan.targetInSandbox));
    if (warm.timedOut) return unfinishedBuildProblem(warm, repositoryHint(ctx));
    if (warmed(warm)) {
      metadataOf.set(ctx.sandbox, readCargoMetadata(ctx));
      return warm;
    }
    const repo = repositoryHint(ctx);
    return isResolutionFailure(warm.output) ? unresolvableProblem(warm.output, repo) : doesNotBuild(warm, repo, ctx);
  }
  const toolchain = `rust container target v2\0${kept.identity}\0${plan.flags}`;
  let ranHere: PhaseResult | null = null;
  const outcome = await warmEntry<WarmMeta>({
    root,
    key: environmentWarmKey(ctx, { toolchain, scope: '' }),
    content: 'target',
    family: familyOf(toolchain),
    // cargo rewrites files of its target folder in place: each slot gets a copy, never links.
    prime: false,
    build: async (target) => {
      const before = new Map(lockCandidates(ctx).map((rel) => [rel, readSandboxFile(ctx.sandbox.dir, rel)]));
      const warm = await with_.run({ ...plan.command(plan.targetInSandbox), binds: [{ source: target, dest: plan.targetInSandbox }] });
      ranHere = warm;
      // The project's build scripts ran as root there: no set-user-id file of theirs reaches a slot.
      spawnSync('find', [target, '-type', 'f', '-perm', '/6000', '-exec', 'chmod', 'ug-s', '{}', '+']);
      const repo = repositoryHint(ctx);
      if (warm.timedOut) return { ok: false, problem: unfinishedBuildProblem(warm, repo), unfinished: true };
      if (!warmed(warm)) return { ok: false, problem: isResolutionFailure(warm.output) ? unresolvableProblem(warm.output, repo) : doesNotBuild(warm, repo, ctx) };
      return { ok: true, meta: { locks: changedLocks(ctx, before), cargoMetadata: readCargoMetadata(ctx) } };
    },
  });
  if (!outcome.ok) return outcome.problem;
  // The lock files the warm-up wrote (in the slot that ran it they are already there), then the slot's copy.
  for (const { rel, content } of outcome.entry.meta.locks) {
    if (readSandboxFile(ctx.sandbox.dir, rel) !== content) writeSandboxFile(ctx.sandbox.dir, rel, content);
  }
  kept.share(outcome.entry.content, plan.targetInSandbox, { rewritesInPlace: true });
  metadataOf.set(ctx.sandbox, outcome.entry.meta.cargoMetadata ?? null);
  return ranHere;
}

/** Lock files the warm-up wrote or changed since `before` (read without following links). */
function changedLocks(ctx: RunContext, before: Map<string, string | null>): WarmMeta['locks'] {
  const locks: WarmMeta['locks'] = [];
  for (const [rel, old] of before) {
    const now = readSandboxFile(ctx.sandbox.dir, rel);
    if (now !== null && now !== old) locks.push({ rel, content: now });
  }
  return locks;
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
  let ranHere: PhaseResult | null = null;
  const outcome = await warmEntry<WarmMeta>({
    root: shared.dir,
    key: warmTargetKey(ctx, plan.flags),
    content: 'target',
    family: familyOf(`${hostToolchain()}\0${plan.flags}`),
    // cargo rewrites files of its target folder in place (fingerprints, its lock): no hard links.
    prime: false,
    build: (target) => buildEntry(ctx, with_, host, plan, target, (r) => (ranHere = r)),
  });
  if (!outcome.ok) return outcome.problem;
  // The lock files the fetch wrote (libraries seldom commit one: every slot builds against the same
  // versions), then the entry's target, copy-on-write, before any of the test exists.
  for (const { rel, content } of outcome.entry.meta.locks) {
    if (readSandboxFile(ctx.sandbox.dir, rel) !== content) writeSandboxFile(ctx.sandbox.dir, rel, content);
  }
  shareWithSlot(ctx, shared, outcome.entry.content, plan.targetInSandbox, true);
  metadataOf.set(ctx.sandbox, outcome.entry.meta.cargoMetadata ?? null);
  return ranHere;
}

/** For tests: forget this process's outcomes (a failure is otherwise kept for the process's life). */
export { forgetWarmOutcomes } from '../../execute/warm-environment';
