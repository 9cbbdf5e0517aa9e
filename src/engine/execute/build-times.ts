import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { LanguageId } from '../parse/grammars';

/**
 * How long this machine took for a repository's first build last time (issue 30: "estimates come from
 * what this machine measured last time for this repository, else no number"). Progress shows it beside
 * a build that is running (`last time here: 87 crates in 4 min`); with no measure it shows only the
 * build's own count. One small JSON file in the user's cache folder, keyed by a digest of the
 * repository's folder, the language and the executor; the engine is its only writer.
 *
 * A build cut short (its limit, a cancel) and continued later is one build: the cut parts are kept as
 * `pending` and added to the measure when the build completes.
 */

export interface BuildTime {
  /** Wall time of the whole first build (its cut parts included). */
  durationMs: number;
  /** Units the build named (crates, packages; 0 when the language's build names none). */
  built: number;
  /** When it was measured (ISO time). */
  at: string;
}

interface Entry {
  last?: BuildTime;
  /** Parts of a build that was cut short, not yet completed. */
  pending?: { durationMs: number; built: number };
}

/** Entries kept (the newest by their last write); one per repository, language and executor. */
const MAX_ENTRIES = 200;

export function buildTimesFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'xrepotest', 'build-times.json');
}

export function buildTimeKey(repoDir: string, language: LanguageId, executor: string): string {
  return createHash('sha256').update(`${path.resolve(repoDir)}\0${language}\0${executor}`).digest('hex').slice(0, 32);
}

const count = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** The file's entries; what does not have the expected shape is left out (a damaged file is no measure). */
function readAll(file: string): Map<string, Entry & { touched: string }> {
  const out = new Map<string, Entry & { touched: string }>();
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return out;
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return out;
  for (const [key, v] of Object.entries(raw as Record<string, unknown>)) {
    if (!/^[0-9a-f]{32}$/.test(key) || !v || typeof v !== 'object') continue;
    const e = v as Record<string, unknown>;
    const entry: Entry & { touched: string } = { touched: typeof e.touched === 'string' ? e.touched : '' };
    const last = e.last as Record<string, unknown> | undefined;
    if (last && count(last.durationMs) && count(last.built) && typeof last.at === 'string') entry.last = { durationMs: last.durationMs, built: last.built, at: last.at };
    const pending = e.pending as Record<string, unknown> | undefined;
    if (pending && count(pending.durationMs) && count(pending.built)) entry.pending = { durationMs: pending.durationMs, built: pending.built };
    if (entry.last || entry.pending) out.set(key, entry);
  }
  return out;
}

/** The last completed first build of this key, if this machine measured one. */
export function lastBuildTime(key: string, file = buildTimesFile()): BuildTime | undefined {
  return readAll(file).get(key)?.last;
}

/**
 * Records a build that ran: `completed` adds its cut parts and becomes the key's measure; a build cut
 * short is kept as a part. Best effort: a cache folder that cannot be written changes nothing else.
 */
export function recordBuildTime(key: string, part: { durationMs: number; built: number }, completed: boolean, file = buildTimesFile(), now = new Date()): void {
  try {
    const all = readAll(file);
    const entry: Entry = all.get(key) ?? {};
    const sum = { durationMs: (entry.pending?.durationMs ?? 0) + part.durationMs, built: (entry.pending?.built ?? 0) + part.built };
    const next: Entry & { touched: string } = completed
      ? { last: { ...sum, at: now.toISOString() }, touched: now.toISOString() }
      : { ...(entry.last ? { last: entry.last } : {}), pending: sum, touched: now.toISOString() };
    all.delete(key);
    all.set(key, next);
    const kept = [...all.entries()].sort((a, b) => (a[1].touched < b[1].touched ? 1 : a[1].touched > b[1].touched ? -1 : 0)).slice(0, MAX_ENTRIES);
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    // Written aside and renamed: a reader never sees half a file, and two writers leave one whole one.
    const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(Object.fromEntries(kept)), { mode: 0o600 });
    fs.renameSync(tmp, file);
  } catch {
    // No measure kept: progress shows no estimate next time, as on a new machine.
  }
}
