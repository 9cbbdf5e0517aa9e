import * as fs from 'node:fs';
import * as path from 'node:path';
import { LANGUAGE_IDS, type LanguageId } from '../parse/grammars';
import { DATASET_KINDS, DEFAULT_DATASET_REPO, releasePaths, type DatasetKind } from './files';
import { gitBlobSha1File, sha256File } from './hash';
import { DEFAULT_ENDPOINT, DEFAULT_MAX_FILE_BYTES, HubError, droppedError, openFile, type FileAnswer, type HubTarget } from './hub';
import { lockPath, readLock, writeLock, type DatasetLock, type LockedFile } from './lock';

export interface FetchOptions {
  /** The dataset folder: files at their release paths, and the lock file. */
  dir: string;
  dataset?: string;
  endpoint?: string;
  token?: string;
  /** A branch, tag or commit; unset: the lock's pin, else `main`. */
  revision?: string;
  /** Ask the hub again what the revision is now, even though the lock pins it. */
  refresh?: boolean;
  /** Never touch the network: every file must already be there and match the lock. */
  offline?: boolean;
  languages?: readonly LanguageId[];
  kinds?: readonly DatasetKind[];
  /** Further tries in this run after a dropped connection or a 5xx (default 3). */
  retries?: number;
  retryDelayMs?: number;
  /** A body that sends nothing for this long counts as dropped (default 60 s). */
  stallTimeoutMs?: number;
  /** The most bytes one file may have (default DEFAULT_MAX_FILE_BYTES): a bound for a server that declares no size. */
  maxFileBytes?: number;
  signal?: AbortSignal;
  onEvent?: (event: FetchEvent) => void;
}

export type FetchEvent =
  | { type: 'verified'; path: string; size: number }
  | { type: 'resolved'; revision: string; commit: string }
  | { type: 'download'; path: string; from: number; size: number | null }
  | { type: 'bytes'; path: string; done: number; size: number | null }
  | { type: 'placed'; path: string; size: number; sha256: string; adopted: boolean }
  | { type: 'retry'; path: string; attempt: number; message: string }
  | { type: 'warning'; message: string };

export interface FetchedFile extends LockedFile {
  /** Absolute path on disk. */
  local: string;
  /** Verified against the lock without network, downloaded now, or found on disk matching the hub's hash. */
  from: 'cache' | 'download' | 'adopted';
}

export interface FetchResult {
  dataset: string;
  revision: string;
  commit: string | null;
  files: FetchedFile[];
  /** True when no request was made. */
  offline: boolean;
  lockFile: string;
  downloadedBytes: number;
}

/** Whether a file on disk is exactly what the lock recorded (size first: it is free). */
export async function verifyLocal(dir: string, entry: LockedFile): Promise<boolean> {
  const file = path.join(dir, entry.path);
  if (!fs.existsSync(file) || fs.statSync(file).size !== entry.size) return false;
  return (await sha256File(file)) === entry.sha256;
}

/**
 * Fetches the release's files into `dir`, pinned and verified. A later run with the lock and every
 * file in place verifies them and makes no request at all.
 */
export async function fetchDataset(opts: FetchOptions): Promise<FetchResult> {
  const dir = path.resolve(opts.dir);
  const dataset = opts.dataset ?? DEFAULT_DATASET_REPO;
  const target: HubTarget = { endpoint: opts.endpoint ?? DEFAULT_ENDPOINT, dataset, token: opts.token || undefined };
  const emit = opts.onEvent ?? ((): void => {});
  const wanted = releasePaths(opts.languages ?? LANGUAGE_IDS, opts.kinds ?? DATASET_KINDS);
  const lock = readLock(dir);
  if (lock && lock.dataset !== dataset) throw new Error(`${lockPath(dir)} pins datasets/${lock.dataset}, not ${dataset}: use another --dir`);
  const pinnedByLock =
    !!lock && !opts.refresh && (opts.revision === undefined || opts.revision === lock.revision || (!!lock.commit && opts.revision === lock.commit));
  const state: DatasetLock = pinnedByLock ? { ...lock!, files: [...lock!.files] } : { dataset, revision: opts.revision ?? 'main', commit: null, files: [] };

  const files: FetchedFile[] = [];
  const pending: Array<{ path: string; expect?: LockedFile }> = [];
  for (const p of wanted) {
    const entry = pinnedByLock ? lock!.files.find((f) => f.path === p) : undefined;
    if (entry && (await verifyLocal(dir, entry))) {
      files.push({ ...entry, local: path.join(dir, p), from: 'cache' });
      emit({ type: 'verified', path: p, size: entry.size });
    } else pending.push({ path: p, expect: entry });
  }
  const result = (offline: boolean, downloadedBytes: number): FetchResult => ({
    dataset,
    revision: state.revision,
    commit: state.commit,
    files: wanted.map((p) => files.find((f) => f.path === p)!),
    offline,
    lockFile: lockPath(dir),
    downloadedBytes,
  });
  if (!pending.length) return result(true, 0);
  if (opts.offline) {
    const why = lock ? `missing or not matching ${lockPath(dir)}` : `no lock file in ${dir}`;
    throw new Error(`--offline: ${pending.length} file(s) ${why}, first ${pending[0].path}; fetch once with network (or --endpoint at a mirror)`);
  }

  fs.mkdirSync(dir, { recursive: true });
  const run: Run = {
    dir,
    target,
    opts,
    emit,
    state,
    // Once a branch name has resolved, every other file is asked for at that commit, so all match.
    urlRevision: pinnedByLock ? (lock!.commit ?? lock!.revision) : state.revision,
    downloadedBytes: 0,
  };
  for (const item of pending) {
    let placed: PlacedFile;
    try {
      placed = await fetchWithRetries(run, item.path, item.expect);
    } catch (e) {
      if (e instanceof HubError && e.kind === 'network')
        throw new HubError('network', `${pending.length} file(s) not yet here and verified (first ${pending[0].path}): ${e.message}`);
      throw e;
    }
    state.files = state.files.filter((f) => f.path !== placed.entry.path).concat(placed.entry);
    writeLock(dir, state);
    files.push({ ...placed.entry, local: path.join(dir, placed.entry.path), from: placed.adopted ? 'adopted' : 'download' });
  }
  return result(false, run.downloadedBytes);
}

interface Run {
  dir: string;
  target: HubTarget;
  opts: FetchOptions;
  emit: (e: FetchEvent) => void;
  state: DatasetLock;
  urlRevision: string;
  downloadedBytes: number;
}

interface PlacedFile {
  entry: LockedFile;
  adopted: boolean;
}

/** What a `.partial` is a part of: resuming is only safe into the same file of the same commit. */
interface PartialIdentity {
  dataset: string;
  path: string;
  commit: string | null;
  sha256: string | null;
  gitSha1: string | null;
  size: number | null;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });
}

async function fetchWithRetries(run: Run, filePath: string, expect: LockedFile | undefined): Promise<PlacedFile> {
  const retries = run.opts.retries ?? 3;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fetchOne(run, filePath, expect, false);
    } catch (e) {
      if (!(e instanceof HubError) || !e.retryable || attempt >= retries || run.opts.signal?.aborted) throw e;
      run.emit({ type: 'retry', path: filePath, attempt: attempt + 1, message: e.message });
      await sleep((run.opts.retryDelayMs ?? 1000) * 2 ** attempt, run.opts.signal);
    }
  }
}

function readIdentity(file: string): PartialIdentity | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as PartialIdentity;
  } catch {
    return null;
  }
}

function removeQuietly(...files: string[]): void {
  for (const f of files) fs.rmSync(f, { force: true });
}

function noteCommit(run: Run, answer: FileAnswer, filePath: string): void {
  if (!answer.commit) return;
  if (run.state.commit === null) {
    run.state.commit = answer.commit;
    run.urlRevision = answer.commit;
    run.emit({ type: 'resolved', revision: run.state.revision, commit: answer.commit });
  } else if (answer.commit !== run.state.commit) {
    throw new HubError('protocol', `${filePath}: the server answered from commit ${answer.commit}, but this dataset folder is pinned to ${run.state.commit}`);
  }
}

async function fetchOne(run: Run, filePath: string, expect: LockedFile | undefined, fresh: boolean): Promise<PlacedFile> {
  const local = path.join(run.dir, filePath);
  const partial = `${local}.partial`;
  const identityFile = `${partial}.json`;
  fs.mkdirSync(path.dirname(local), { recursive: true });
  if (fresh) removeQuietly(partial, identityFile);
  const before = fs.existsSync(partial) ? readIdentity(identityFile) : null;
  if (!before) removeQuietly(partial, identityFile); // a partial of unknown origin cannot be continued safely
  const start = before ? fs.statSync(partial).size : 0;

  const controller = new AbortController();
  const parent = run.opts.signal;
  const onParentAbort = (): void => controller.abort(parent!.reason);
  parent?.addEventListener('abort', onParentAbort, { once: true });
  const stallMs = run.opts.stallTimeoutMs ?? 60_000;
  let stall: NodeJS.Timeout | undefined;
  const armStall = (): void => {
    clearTimeout(stall);
    stall = setTimeout(() => controller.abort(new Error(`no data for ${Math.round(stallMs / 1000)} s`)), stallMs);
  };
  try {
    armStall();
    let answer: FileAnswer;
    try {
      answer = await openFile(run.target, run.urlRevision, filePath, { rangeStart: start, signal: controller.signal });
    } catch (e) {
      if (controller.signal.aborted && !parent?.aborted) throw new HubError('dropped', `${filePath}: no answer from the server for ${Math.round(stallMs / 1000)} s`, true);
      throw e;
    }
    const res = answer.response;
    noteCommit(run, answer, filePath);
    const expectSha = expect?.sha256 ?? answer.sha256;
    const expectSize = expect?.size ?? answer.size;
    const restart = async (): Promise<PlacedFile> => {
      clearTimeout(stall);
      await res.body?.cancel().catch(() => undefined);
      if (fresh) throw new HubError('protocol', `${filePath}: the server did not answer a fresh request with the whole file (status ${res.status})`);
      return fetchOne(run, filePath, expect, true);
    };
    if (before) {
      const sameFile =
        before.dataset === run.target.dataset && before.path === filePath &&
        !(before.commit && answer.commit && before.commit !== answer.commit) &&
        !(before.sha256 && expectSha && before.sha256 !== expectSha) &&
        !(before.size !== null && expectSize !== null && before.size !== expectSize);
      if (!sameFile) return restart();
    }

    // A file already in place from an earlier pin is kept when it is byte for byte what the hub serves now.
    if (!before && fs.existsSync(local) && (expectSha || answer.gitSha1)) {
      const same = expectSha ? (await sha256File(local)) === expectSha : (await gitBlobSha1File(local)) === answer.gitSha1;
      if (same) {
        await res.body?.cancel().catch(() => undefined);
        const entry = { path: filePath, size: fs.statSync(local).size, sha256: expectSha ?? (await sha256File(local)) };
        run.emit({ type: 'placed', ...entry, adopted: true });
        return { entry, adopted: true };
      }
    }

    let from = start;
    if (res.status === 416) {
      await res.body?.cancel().catch(() => undefined);
      if (!(expectSize !== null && start === expectSize)) return restart();
    } else if (res.status === 206 && answer.bodyStart !== start) return restart();
    else if (res.status === 200 && start > 0) from = 0; // the server ignored the range: start over

    const bound = sizeBound(expect?.size ?? null, answer.size, run.opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES);
    if (res.status !== 416 && expectSize !== null && expectSize > bound.cap) {
      await res.body?.cancel().catch(() => undefined);
      removeQuietly(partial, identityFile);
      const who = expect ? 'the lock records' : 'the server declares';
      throw new HubError('protocol', `${filePath}: ${who} ${expectSize} bytes, over the cap of ${bound.cap} bytes for one file (raise --max-file-mb to fetch it)`);
    }
    const identity: PartialIdentity = { dataset: run.target.dataset, path: filePath, commit: answer.commit ?? run.state.commit, sha256: expectSha, gitSha1: answer.gitSha1, size: expectSize };
    fs.writeFileSync(identityFile, JSON.stringify(identity) + '\n');
    if (res.status !== 416) {
      run.emit({ type: 'download', path: filePath, from, size: expectSize });
      await streamInto(run, res, partial, from, filePath, expectSize, bound, armStall, controller.signal);
    }
    clearTimeout(stall);
    return await verifyAndPlace(run, filePath, partial, identityFile, local, identity);
  } finally {
    clearTimeout(stall);
    parent?.removeEventListener('abort', onParentAbort);
  }
}

/** The most bytes a file may reach here, and how to name that bound when a server sends more. */
interface SizeBound {
  bytes: number;
  said: string;
  /** The configured cap, which no declared size may exceed either. */
  cap: number;
}

/**
 * A body is trusted for no more than the smallest size anyone stated: the lock's record, the
 * server's own declaration (X-Linked-Size, Content-Range, Content-Length), else the cap. A chunked
 * body is bounded by nothing else, so a mirror could otherwise fill the disk under a 1,000-byte claim.
 */
function sizeBound(locked: number | null, declared: number | null, cap: number): SizeBound {
  const bounds: SizeBound[] = [{ bytes: cap, said: `the cap of ${cap} bytes for one file (--max-file-mb)${locked === null && declared === null ? ' and declared no size' : ''}`, cap }];
  if (declared !== null) bounds.unshift({ bytes: declared, said: `the ${declared} bytes it declared`, cap });
  if (locked !== null) bounds.unshift({ bytes: locked, said: `the ${locked} bytes the lock records`, cap });
  return bounds.reduce((a, b) => (b.bytes < a.bytes ? b : a));
}

async function streamInto(
  run: Run,
  res: Response,
  partial: string,
  from: number,
  filePath: string,
  size: number | null,
  bound: SizeBound,
  armStall: () => void,
  signal: AbortSignal,
): Promise<void> {
  const fd = fs.openSync(partial, from > 0 ? 'a' : 'w');
  let done = from;
  let over = 0;
  try {
    if (!res.body) throw new HubError('protocol', `${filePath}: the server sent no body`);
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      if (done + chunk.length > bound.bytes) {
        // Leaving the loop cancels the body: the connection is dropped, not drained.
        over = done + chunk.length;
        break;
      }
      fs.writeSync(fd, chunk);
      done += chunk.length;
      run.downloadedBytes += chunk.length;
      armStall();
      run.emit({ type: 'bytes', path: filePath, done, size });
    }
  } catch (e) {
    if (e instanceof HubError) throw e;
    if (run.opts.signal?.aborted) throw run.opts.signal.reason ?? e;
    throw droppedError(filePath, done, size, partial, signal.aborted ? signal.reason : e);
  } finally {
    fs.closeSync(fd);
  }
  if (over) {
    // None of it is kept: a partial would be resumed, and its first bytes are those of a server that lied about the rest.
    removeQuietly(partial, `${partial}.json`);
    throw new HubError('protocol', `${filePath}: the server sent more than ${bound.said} (${over} bytes so far); stopped, and the download was removed`);
  }
  if (size !== null && done < size) throw droppedError(filePath, done, size, partial, new Error('the body ended early'));
}

async function verifyAndPlace(run: Run, filePath: string, partial: string, identityFile: string, local: string, id: PartialIdentity): Promise<PlacedFile> {
  const size = fs.statSync(partial).size;
  const reject = (message: string): never => {
    removeQuietly(partial, identityFile);
    throw new HubError('checksum', `${filePath}: ${message}; the download was removed (run again to fetch it anew; if it repeats, the server or a proxy on the way alters the file)`);
  };
  if (id.size !== null && size !== id.size) reject(`size mismatch: expected ${id.size} bytes, got ${size}`);
  const actual = await sha256File(partial);
  if (id.sha256 && actual !== id.sha256) reject(`checksum mismatch: expected SHA-256 ${id.sha256}, got ${actual}`);
  if (!id.sha256 && id.gitSha1) {
    const blob = await gitBlobSha1File(partial);
    if (blob !== id.gitSha1) reject(`checksum mismatch: expected git blob ${id.gitSha1}, got ${blob}`);
  }
  if (!id.sha256 && !id.gitSha1) run.emit({ type: 'warning', message: `${filePath}: the server gave no checksum; the lock records the SHA-256 computed here (${actual})` });
  fs.renameSync(partial, local);
  removeQuietly(identityFile);
  const entry = { path: filePath, size, sha256: actual };
  run.emit({ type: 'placed', ...entry, adopted: false });
  return { entry, adopted: false };
}
