/**
 * The Hugging Face hub's plain file paths, `/datasets/<repo>/resolve/<revision>/<path>`, spoken with
 * Node's own fetch. What the hub tells about a file comes from its own answer (the first hops), never
 * from the CDN it redirects large files to: `X-Repo-Commit` (the commit a branch name resolved to),
 * `X-Linked-Etag` / `ETag` (an LFS file's SHA-256, or a small file's git blob id) and `X-Linked-Size`.
 */

export const DEFAULT_ENDPOINT = 'https://huggingface.co';

/**
 * 1 GiB, the most one file may have unless the user says otherwise: the release's largest files are
 * estimated at tens of MB (docs/dataset.md), so this is far above any real one and still bounds the
 * disk a mirror can fill with a file it never sized.
 */
export const DEFAULT_MAX_FILE_BYTES = 1024 ** 3;

export type HubErrorKind = 'auth' | 'not-found' | 'network' | 'http' | 'dropped' | 'checksum' | 'protocol';

export class HubError extends Error {
  constructor(
    readonly kind: HubErrorKind,
    message: string,
    /** Worth another try in the same run (a dropped connection, a 5xx); the others are final. */
    readonly retryable = false,
  ) {
    super(message);
    this.name = 'HubError';
  }
}

export interface HubTarget {
  /** Base URL of the hub, a mirror or a proxy. */
  endpoint: string;
  /** `owner/name` of the dataset repository. */
  dataset: string;
  /** Sent as `Authorization: Bearer`, to the hub's own origin only; never logged. */
  token?: string;
}

export function resolveUrl(target: HubTarget, revision: string, filePath: string): string {
  const base = target.endpoint.replace(/\/+$/, '');
  const encodedPath = filePath.split('/').map(encodeURIComponent).join('/');
  // A revision such as refs/pr/1 is one path segment on the hub.
  return `${base}/datasets/${target.dataset}/resolve/${encodeURIComponent(revision)}/${encodedPath}`;
}

/** The final answer for one file (body unread) and what the hub said about the file on the way. */
export interface FileAnswer {
  response: Response;
  /** The commit the revision resolved to, when the hub said (header or redirect). */
  commit: string | null;
  sha256: string | null;
  gitSha1: string | null;
  /** The whole file's size, when known. */
  size: number | null;
  /** The body's first byte within the file: the requested start for a 206, else 0. */
  bodyStart: number;
}

const COMMIT_RE = /^[0-9a-f]{40}$/;

function etagValue(raw: string | null): string | null {
  if (!raw) return null;
  return raw.trim().replace(/^W\//, '').replace(/^"|"$/g, '').toLowerCase();
}

function nonNegative(raw: string | null): number | null {
  if (raw === null || !/^\d+$/.test(raw.trim())) return null;
  return Number(raw.trim());
}

/** `bytes a-b/total` or `bytes *\/total`. */
export function parseContentRange(raw: string | null): { start: number | null; total: number | null } {
  const m = /^bytes\s+(?:(\d+)-\d+|\*)\/(\d+|\*)$/i.exec(raw?.trim() ?? '');
  if (!m) return { start: null, total: null };
  return { start: m[1] !== undefined ? Number(m[1]) : null, total: m[2] === '*' ? null : Number(m[2]) };
}

/** The most telling word for a failed request: undici wraps the system's error code in causes. */
function networkCode(e: unknown): string {
  let cur: unknown = e;
  let message = (e as Error)?.message ?? String(e);
  for (let depth = 0; cur && depth < 5; depth++) {
    const c = cur as { code?: unknown; cause?: unknown; name?: unknown; message?: unknown };
    if (typeof c.code === 'string') return c.code;
    if (c.name === 'AbortError' || c.name === 'TimeoutError') return String(c.name);
    if (typeof c.message === 'string' && c.message) message = c.message;
    cur = c.cause;
  }
  return message;
}

function unreachable(url: string, e: unknown): HubError {
  const origin = new URL(url).origin;
  return new HubError(
    'network',
    `cannot reach ${origin} (${networkCode(e)}): no network, or the hub is blocked from here. ` +
      `--endpoint URL (or HF_ENDPOINT) can point at a mirror or proxy of the hub; files already fetched, with their lock file, are used without network`,
  );
}

async function discard(res: Response): Promise<void> {
  try {
    await res.body?.cancel();
  } catch {
    // the connection may already be gone; nothing to release
  }
}

function refusal(res: Response, target: HubTarget, revision: string, filePath: string, hops: Headers[]): HubError {
  const code = hops.map((h) => h.get('x-error-code')).find(Boolean) ?? '';
  const what = `datasets/${target.dataset}: ${filePath} at revision ${revision}`;
  if (res.status === 401 || res.status === 403) {
    if (code === 'GatedRepo')
      return new HubError('auth', `${what}: the hub answered ${res.status}: the dataset is gated; accept its conditions on its page, then set HF_TOKEN (or --token) to a token of that account`);
    const told = target.token ? 'the token sent was refused; set HF_TOKEN (or --token) to a token that can read it' : 'set HF_TOKEN (or pass --token) to a token that can read it';
    return new HubError('auth', `${what}: the hub answered ${res.status} ${res.statusText || 'Unauthorized'}: ${told} (the hub also answers 401 for a repository that does not exist)`);
  }
  if (res.status === 404) {
    if (code === 'RevisionNotFound') return new HubError('not-found', `${what}: the revision ${JSON.stringify(revision)} does not exist in datasets/${target.dataset} (404)`);
    if (code === 'EntryNotFound') return new HubError('not-found', `${what}: the file ${filePath} does not exist at revision ${revision} (404)`);
    if (code === 'RepoNotFound') return new HubError('not-found', `${what}: the repository datasets/${target.dataset} does not exist (404)`);
    return new HubError('not-found', `${what}: not found (404): the revision or the path does not exist`);
  }
  const retryable = res.status >= 500 || res.status === 429 || res.status === 408;
  return new HubError('http', `${what}: the server answered ${res.status} ${res.statusText}`.trimEnd(), retryable);
}

export interface OpenOptions {
  /** Ask for the file from this byte on (`Range: bytes=N-`); 0 asks for all of it. */
  rangeStart?: number;
  signal?: AbortSignal;
  maxRedirects?: number;
}

/**
 * Opens one file of the dataset, following redirects by hand: the token goes to the hub's origin only
 * (a presigned CDN URL must not receive it), and the hub's own headers are read on the way.
 */
export async function openFile(target: HubTarget, revision: string, filePath: string, opts: OpenOptions = {}): Promise<FileAnswer> {
  const hubOrigin = new URL(target.endpoint).origin;
  const rangeStart = opts.rangeStart ?? 0;
  let url = resolveUrl(target, revision, filePath);
  const hubHops: Headers[] = [];
  let commit: string | null = null;
  for (let hop = 0; ; hop++) {
    const onHub = new URL(url).origin === hubOrigin;
    const headers: Record<string, string> = { 'accept-encoding': 'identity', 'user-agent': 'xrepotest-dataset' };
    if (onHub && target.token) headers.authorization = `Bearer ${target.token}`;
    if (rangeStart > 0) headers.range = `bytes=${rangeStart}-`;
    let res: Response;
    try {
      res = await fetch(url, { headers, redirect: 'manual', signal: opts.signal });
    } catch (e) {
      if (opts.signal?.aborted) throw opts.signal.reason ?? e;
      throw unreachable(url, e);
    }
    if (onHub) {
      hubHops.push(res.headers);
      const said = res.headers.get('x-repo-commit')?.trim().toLowerCase();
      if (said && COMMIT_RE.test(said)) commit = said;
    }
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      await discard(res);
      if (hop >= (opts.maxRedirects ?? 8)) throw new HubError('protocol', `${filePath}: too many redirects (last to ${new URL(location, url).origin})`);
      const next = new URL(location, url);
      // A mirror may answer a branch name with a redirect to the commit's own path.
      const pinned = onHub && /\/resolve\/([0-9a-f]{40})\//.exec(next.pathname);
      if (pinned && !commit) commit = pinned[1];
      url = next.toString();
      continue;
    }
    if (res.status === 200 || res.status === 206 || res.status === 416) return describeAnswer(res, onHub, hubHops, commit, rangeStart);
    await discard(res);
    throw refusal(res, target, revision, filePath, hubHops);
  }
}

function describeAnswer(res: Response, finalOnHub: boolean, hubHops: Headers[], commit: string | null, rangeStart: number): FileAnswer {
  let sha256: string | null = null;
  let gitSha1: string | null = null;
  let size: number | null = null;
  for (const h of hubHops) {
    const linked = etagValue(h.get('x-linked-etag'));
    if (linked && /^[0-9a-f]{64}$/.test(linked)) sha256 = linked;
    size = nonNegative(h.get('x-linked-size')) ?? size;
  }
  // A CDN's own ETag is its business (often an MD5); the hub's, on a file it serves itself, is a hash of ours.
  if (finalOnHub) {
    const etag = etagValue(res.headers.get('etag'));
    if (etag && /^[0-9a-f]{64}$/.test(etag)) sha256 ??= etag;
    else if (etag && /^[0-9a-f]{40}$/.test(etag)) gitSha1 = etag;
  }
  const range = parseContentRange(res.headers.get('content-range'));
  const length = nonNegative(res.headers.get('content-length'));
  let bodyStart = 0;
  if (res.status === 206) {
    bodyStart = range.start ?? rangeStart;
    size ??= range.total;
  } else if (res.status === 416) size ??= range.total;
  else size ??= length;
  return { response: res, commit, sha256, gitSha1, size, bodyStart };
}

/** Whether a body read failed because the connection went away (rather than our own abort). */
export function droppedError(filePath: string, got: number, size: number | null, partial: string, e: unknown): HubError {
  const of = size !== null ? ` of ${size}` : '';
  return new HubError(
    'dropped',
    `${filePath}: the connection dropped after ${got}${of} bytes (${networkCode(e)}); the partial download is kept at ${partial} and the next run resumes it`,
    true,
  );
}
