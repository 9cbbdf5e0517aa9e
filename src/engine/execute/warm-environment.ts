import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EnvironmentProblem } from '../score/types';
import type { RunContext } from './toolchain';
import type { OverlayMount, SharedCache } from './types';
import { pidAlive } from '../util/process-namespace';

/**
 * Warm environments kept on the host across runs (docs/execution.md, "Warm environments"): a build
 * cache or target folder filled once per key by a trusted warm-up on the pristine copy, then shared
 * with every slot of that key copy-on-write (the executor's `SharedCache.share`), never rebuilt.
 *
 * The key is the pristine copy's content (every file and link, our .xrt scratch left out), where the
 * project sits in it, and what the language names (`Toolchain.warmIdentity`: tool versions, flags, the
 * part of the project the warm-up builds). A changed file, toolchain or flag is another key: a new
 * entry, built from scratch (or started from an entry of the same toolchain where its files are never
 * rewritten in place, `prime`), and old entries are pruned.
 *
 * On disk, per language: `<root>/<key>/<content>/` (what the warm-up fills), `<root>/<key>/ready.json`
 * (written last: the entry is complete; its time says when it was last used), `<root>/<key>/partial.json`
 * (a warm-up was started: what it built so far is kept), `<root>/<key>.lock` (held by the process
 * building it). Within a process each key is warmed once, whatever the number of slots waiting for it;
 * a failed warm-up is that key's environment verdict for the process's life. A warm-up that was cut
 * short (its time or progress limit, a cancellation, the process killed) is not a failure of the
 * project: what it built stays in the entry and the next try, in this process or another, continues
 * from it instead of starting again from nothing (build tools skip what is already built).
 */

/** Entries kept besides the newest ones used within the hour (each is the size of a build cache). */
const KEEP_ENTRIES = 6;
const LOCK_WAIT_MS = 20 * 60_000;
const KEY = /^[0-9a-f]{24}$/;

/** The uid that owns sealed files: not root, so root without capabilities cannot change them. */
export const SEALED_OWNER = 65534;

/** Digest of a copy as it was made (top-level names in `skip` left out): links by target, files by content. */
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

export interface KeyParts {
  /** The pristine copy (before the test exists). */
  copyDir: string;
  /** Top-level names of the copy that are ours, not the project's (the .xrt scratch). */
  skip: ReadonlySet<string>;
  /** The project's root inside the copy. */
  projectRoot: string;
  /** Tool versions and flags (`Toolchain.warmIdentity().toolchain`). */
  toolchain: string;
  /** The part of the project the warm-up builds (`Toolchain.warmIdentity().scope`). */
  scope: string;
}

/** The entry's key: 24 hex digits of the copy's content, the project's place in it, the toolchain and the scope. */
export function warmKey(parts: KeyParts): string {
  const tree = treeDigest(parts.copyDir, parts.skip);
  const project = path.relative(parts.copyDir, parts.projectRoot);
  return createHash('sha256').update(`warm-environment v1\0${tree}\0${project}\0${parts.toolchain}\0${parts.scope}`).digest('hex').slice(0, 24);
}

/**
 * A warm key inside one reused environment (a container serving slot after slot, `Session.warmed`):
 * the copy's content as `warmKey` hashes it, and the environment's own toolchain and flags.
 */
export function environmentWarmKey(ctx: RunContext, identity: { toolchain: string; scope: string }): string {
  return warmKey({ copyDir: ctx.sandbox.dir, skip: new Set([path.basename(ctx.sandbox.xrt)]), projectRoot: ctx.sandbox.projectRoot, ...identity });
}

/** Entries of one toolchain (same versions and flags) share a family: one may start from another. */
export function familyOf(toolchain: string): string {
  return createHash('sha256').update(toolchain).digest('hex').slice(0, 16);
}

/** A lock folder shared with other processes; one whose owner died is taken over. */
export async function acquireLock(lockDir: string, signal?: AbortSignal): Promise<() => void> {
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

export interface WarmEntry<Meta> {
  /** `<root>/<key>` */
  dir: string;
  /** The folder the warm-up filled: what slots see (`<root>/<key>/<content>`). */
  content: string;
  /** What the build recorded with the entry (Rust: the Cargo.lock files its fetch wrote). */
  meta: Meta;
}

export type WarmOutcome<Meta> = { ok: true; entry: WarmEntry<Meta>; built: boolean } | { ok: false; problem: EnvironmentProblem; unfinished?: boolean };

/**
 * What a warm-up answers: the metadata to keep, or the problem every slot of the key gets. `unfinished`:
 * it was cut short (a limit), not refused by the project: what it built is kept for the next try, and
 * the verdict is not remembered for the process's life.
 */
export type WarmBuildResult<Meta> = { ok: true; meta: Meta } | { ok: false; problem: EnvironmentProblem; unfinished?: boolean };

export interface WarmSpec<Meta> {
  /** The language's folder of entries (the executor's `SharedCache.dir`). */
  root: string;
  key: string;
  /** The folder name of what the warm-up fills, inside the entry. */
  content: string;
  /** `familyOf(toolchain)`: recorded, and where `prime` is set, the entries a new one may start from. */
  family: string;
  /**
   * The toolchain never rewrites a file of the folder in place (Go's build cache adds files): the
   * entry's files are sealed when it is ready (as root: owned by nobody, read-only), and a new entry
   * starts as hard links of the newest ready one of its family.
   */
  prime: boolean;
  /**
   * The trusted warm-up, filling `content`: the metadata to keep, or the problem every slot of the key
   * gets. `resumed`: `content` holds what an earlier, unfinished warm-up of this key built.
   */
  build(content: string, resumed: boolean): Promise<WarmBuildResult<Meta>>;
}

/** Per process: one warm-up per entry, whatever the number of slots waiting for it. */
const outcomes = new Map<string, Promise<WarmOutcome<unknown>>>();

/**
 * The ready entry of a key: made now by `build` (under the lock, unless another process made it
 * meanwhile), or found ready on disk, or this process's earlier verdict. `built` says whether this call
 * ran the warm-up (the slot that did records the phase).
 */
export async function warmEntry<Meta>(spec: WarmSpec<Meta>): Promise<WarmOutcome<Meta>> {
  const id = path.join(spec.root, spec.key);
  const known = outcomes.get(id) as Promise<WarmOutcome<Meta>> | undefined;
  if (known) {
    const o = await known;
    if (o.ok) touch(o.entry.dir);
    return o.ok ? { ...o, built: false } : o;
  }
  const outcome = makeEntry(spec);
  outcomes.set(id, outcome);
  // A run that broke off (cancelled, the executor gone) or a warm-up cut short by a limit is tried
  // again by the next slot, which continues what it built.
  outcome.then(
    (o) => !o.ok && o.unfinished && outcomes.delete(id),
    () => outcomes.delete(id),
  );
  return outcome;
}

/** For tests: forget this process's outcomes (a failure is otherwise kept for the process's life). */
export function forgetWarmOutcomes(): void {
  outcomes.clear();
}

function readReady<Meta>(dir: string, content: string): WarmEntry<Meta> | null {
  try {
    const ready = JSON.parse(fs.readFileSync(path.join(dir, 'ready.json'), 'utf8')) as { meta?: Meta };
    if (!fs.statSync(path.join(dir, content)).isDirectory()) return null;
    return { dir, content: path.join(dir, content), meta: ready.meta as Meta };
  } catch {
    return null;
  }
}

function touch(dir: string): void {
  const now = new Date();
  try {
    fs.utimesSync(path.join(dir, 'ready.json'), now, now);
  } catch {
    /* pruned by another process meanwhile: the slot's view is already made */
  }
}

/** An entry a warm-up started and did not finish (no ready marker): what it built, kept for the next try. */
function isPartial(dir: string, content: string): boolean {
  return fs.existsSync(path.join(dir, PARTIAL)) && !!fs.statSync(path.join(dir, content), { throwIfNoEntry: false })?.isDirectory();
}

const PARTIAL = 'partial.json';

async function makeEntry<Meta>(spec: WarmSpec<Meta>): Promise<WarmOutcome<Meta>> {
  const dir = path.join(spec.root, spec.key);
  const ready = readReady<Meta>(dir, spec.content);
  if (ready) {
    touch(dir);
    return { ok: true, entry: ready, built: false };
  }
  const release = await acquireLock(`${dir}.lock`);
  try {
    const made = readReady<Meta>(dir, spec.content);
    if (made) {
      touch(dir);
      return { ok: true, entry: made, built: false };
    }
    const content = path.join(dir, spec.content);
    // Only a warm-up of this very key (same content, toolchain and flags) filled a partial entry.
    const resumed = isPartial(dir, spec.content);
    if (!resumed) {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(dir, { recursive: true });
      if (!(spec.prime && primeFromFamily(spec, content))) fs.mkdirSync(content);
      // Marked before the build starts: a process killed mid-build leaves an entry the next try continues.
      fs.writeFileSync(path.join(dir, PARTIAL), JSON.stringify({ family: spec.family, started: new Date().toISOString() }));
    } else {
      const now = new Date();
      fs.utimesSync(path.join(dir, PARTIAL), now, now);
    }
    const result = await spec.build(content, resumed);
    if (!result.ok) {
      if (!result.unfinished) fs.rmSync(dir, { recursive: true, force: true });
      return result;
    }
    if (spec.prime) seal(content);
    fs.writeFileSync(path.join(dir, 'ready.json'), JSON.stringify({ family: spec.family, meta: result.meta }));
    fs.rmSync(path.join(dir, PARTIAL), { force: true });
    prune(spec.root, spec.key);
    return { ok: true, entry: { dir, content, meta: result.meta }, built: true };
  } finally {
    release();
  }
}

/** As root: every file owned by nobody and read-only, so sandboxed root without capabilities cannot change it. */
export function seal(dir: string): boolean {
  if (process.getuid?.() !== 0) return false;
  const own = spawnSync('find', [dir, '-type', 'f', '!', '-uid', String(SEALED_OWNER), '-exec', 'chown', `${SEALED_OWNER}:${SEALED_OWNER}`, '{}', '+']);
  const ro = spawnSync('find', [dir, '-type', 'f', '-perm', '/222', '-exec', 'chmod', 'a-w', '{}', '+']);
  return own.status === 0 && ro.status === 0;
}

/** A new entry as hard links of the newest ready (sealed) entry of its family; false where there is none or links fail. */
function primeFromFamily(spec: WarmSpec<unknown>, content: string): boolean {
  if (process.getuid?.() !== 0) return false;
  let best: { dir: string; used: number } | null = null;
  for (const name of listEntries(spec.root)) {
    if (name === spec.key) continue;
    const dir = path.join(spec.root, name);
    try {
      const ready = JSON.parse(fs.readFileSync(path.join(dir, 'ready.json'), 'utf8')) as { family?: string };
      const used = fs.statSync(path.join(dir, 'ready.json')).mtimeMs;
      if (ready.family === spec.family && (!best || used > best.used)) best = { dir, used };
    } catch {
      /* not ready */
    }
  }
  if (!best) return false;
  const r = spawnSync('cp', ['-al', path.join(best.dir, spec.content), content]);
  if (r.status === 0) return true;
  fs.rmSync(content, { recursive: true, force: true });
  return false;
}

function listEntries(root: string): string[] {
  try {
    return fs.readdirSync(root).filter((n) => KEY.test(n));
  } catch {
    return [];
  }
}

/** Old entries go: all but the newest few, and never one used within the hour (a running slot may be using it). */
function prune(root: string, keep: string): void {
  // An entry being built (its lock held) has no ready marker yet: never taken for an old one.
  const names = listEntries(root).filter((n) => n !== keep && !fs.existsSync(path.join(root, `${n}.lock`)));
  // An unfinished entry counts from when its warm-up started or last continued.
  const used = (n: string): number =>
    (fs.statSync(path.join(root, n, 'ready.json'), { throwIfNoEntry: false }) ?? fs.statSync(path.join(root, n, PARTIAL), { throwIfNoEntry: false }))?.mtimeMs ?? 0;
  const old = names.sort((a, b) => used(b) - used(a)).slice(KEEP_ENTRIES).filter((n) => Date.now() - used(n) > 3_600_000);
  for (const n of old) fs.rmSync(path.join(root, n), { recursive: true, force: true });
}

/**
 * Shows the slot a ready entry's folder at `dest` (inside the sandbox), before any of the test exists:
 * where the executor mounts overlays, every later phase of the slot mounts one (ctx.overlays); else the
 * executor made the slot's own view now (sealed hard links or a copy).
 */
export function shareWithSlot(ctx: RunContext, shared: SharedCache, lower: string, dest: string, rewritesInPlace: boolean): void {
  const overlay = shared.share(lower, dest, { rewritesInPlace });
  if (overlay) ctx.overlays.push(overlay);
}

/**
 * A kept sandbox (for inspection: `--keep-sandboxes`, tests) shows on the host only the slot's own
 * writes where an overlay was mounted: the whole view is put back into each mount point, the warm
 * entry first, then the slot's writes over it (its deletions, overlay whiteouts, removed again). Only
 * into a mount point that is still a real folder inside the sandbox (a test may have replaced it);
 * the copies never follow a link (cp -a).
 */
export function materializeOverlays(sandboxDir: string, overlays: readonly OverlayMount[]): void {
  const root = fs.realpathSync(sandboxDir);
  for (const o of overlays) {
    const st = fs.lstatSync(o.dest, { throwIfNoEntry: false });
    if (!st?.isDirectory() || !fs.realpathSync(o.dest).startsWith(root + path.sep)) continue;
    spawnSync('cp', ['-a', '--no-dereference', `${o.lower}/.`, `${o.dest}/`]);
    if (fs.lstatSync(o.upper, { throwIfNoEntry: false })?.isDirectory()) spawnSync('cp', ['-a', '--no-dereference', `${o.upper}/.`, `${o.dest}/`]);
    // Whiteouts (character devices 0:0) mark what the slot deleted.
    spawnSync('find', [o.dest, '-type', 'c', '-delete']);
  }
}

const hostIdentities = new Map<string, string>();

/**
 * A host tool's own account of itself, part of a warm key (Go's `go env`, `rustc -vV`, Ruby and its
 * gems): run once per process from `/` (no project's toolchain file applies), its output, or why not.
 */
export function hostToolIdentity(cmd: string, args: readonly string[], env?: NodeJS.ProcessEnv, timeoutMs = 20_000): string {
  const id = JSON.stringify([cmd, args, env ?? null]);
  let out = hostIdentities.get(id);
  if (out === undefined) {
    const r = spawnSync(cmd, [...args], { cwd: '/', encoding: 'utf8', timeout: timeoutMs, env: env && { ...process.env, ...env } });
    out = r.status === 0 ? r.stdout : `unknown: ${r.stderr ?? ''}`;
    hostIdentities.set(id, out);
  }
  return out;
}
