import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { fetchDataset, type FetchEvent, type FetchOptions } from '../../src/engine/dataset/fetch';
import { releasePath } from '../../src/engine/dataset/files';
import { gitBlobSha1 } from '../../src/engine/dataset/hash';
import { HubError } from '../../src/engine/dataset/hub';
import { LOCK_FILE, readLock } from '../../src/engine/dataset/lock';
import { loadTasks } from '../../src/engine/tasks/load';
import { runCli } from '../helpers/dataset-cli';

/*
 * A hub on 127.0.0.1 that speaks the Hugging Face file paths, `/datasets/<repo>/resolve/<rev>/<path>`,
 * as the real one does: LFS files answered with a redirect to a CDN on another origin, carrying
 * X-Repo-Commit, X-Linked-Etag (the SHA-256) and X-Linked-Size; small files served by the hub itself
 * with their git blob id as ETag; Range requests; a token check. Faults are switched on per test.
 */

const DATASET = 'solis-soict/xrepotest';
const TOKEN = 'hf_TESTTOKEN_must_never_be_printed_0123456789';
const COMMITS = { old: 'a'.repeat(40), pinned: 'b'.repeat(40), newer: 'c'.repeat(40) };

function sha256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

/** Published-format records (notes §1), long enough that a file spans many network chunks. */
function recordsFile(language: string, commitTag: string, count: number): Buffer {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const body = Array.from({ length: 30 }, (_, k) => `    x${k} := ${i} + ${k} // ${commitTag}`).join('\n');
    lines.push(
      JSON.stringify({
        task_id: i,
        function_name: `Fn${i}`,
        file_path: `demo-main/pkg/f${i}.go`,
        focal_code: `func Fn${i}() int {\n${body}\n    return 0\n}`,
        file_content: `package pkg\n\nfunc Fn${i}() int {\n${body}\n    return 0\n}\n`,
        language,
        function_component: { name: `Fn${i}`, signature: `func Fn${i}() int`, start_line: 3, end_line: 35 },
        metadata: { package: 'pkg', class_name: '', class_signature: '' },
      }),
    );
  }
  return Buffer.from(lines.join('\n') + '\n');
}

interface Seen {
  server: 'hub' | 'cdn';
  path: string;
  revision?: string;
  range?: string;
  authorization?: string;
}

interface HubConfig {
  /** commit → release path → bytes */
  files: Record<string, Record<string, Buffer>>;
  branches: Record<string, string>;
  token?: string;
  /** How a branch name is resolved: an X-Repo-Commit header, or a redirect to the commit's path. */
  commitVia: 'header' | 'redirect';
  /** Paths answered with a redirect to the CDN (LFS); the others are served by the hub. */
  isLfs: (p: string) => boolean;
  /** Served with other bytes than the hash the hub announces. */
  corrupt: Set<string>;
  /** Path → bytes after which the connection is cut, once. */
  dropOnce: Map<string, number>;
  ignoreRange: boolean;
}

class LocalHub {
  seen: Seen[] = [];
  config: HubConfig;
  private hub!: http.Server;
  private cdn!: http.Server;
  private blobs = new Map<string, Buffer>();

  constructor(config: Partial<HubConfig> & Pick<HubConfig, 'files' | 'branches'>) {
    this.config = { token: TOKEN, commitVia: 'header', isLfs: (p) => !p.includes('/lsp/'), corrupt: new Set(), dropOnce: new Map(), ignoreRange: false, ...config };
  }

  /** Kept after stop(): a stopped hub is still the address a client tries. */
  endpoint = '';
  private cdnBase = '';

  async start(): Promise<this> {
    this.hub = http.createServer((req, res) => this.onHub(req, res));
    this.cdn = http.createServer((req, res) => this.onCdn(req, res));
    await Promise.all([this.hub, this.cdn].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
    this.endpoint = `http://127.0.0.1:${(this.hub.address() as AddressInfo).port}`;
    this.cdnBase = `http://127.0.0.1:${(this.cdn.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    for (const s of [this.hub, this.cdn]) s.closeAllConnections();
    await Promise.all([this.hub, this.cdn].map((s) => new Promise<void>((r) => s.close(() => r()))));
  }

  requestsFor(p: string): Seen[] {
    return this.seen.filter((s) => s.path === p);
  }

  private send(req: http.IncomingMessage, res: http.ServerResponse, bytes: Buffer, key: string, headers: Record<string, string>): void {
    const m = /^bytes=(\d+)-$/.exec(String(req.headers.range ?? ''));
    let start = 0;
    if (m && !this.config.ignoreRange) {
      start = Number(m[1]);
      if (start >= bytes.length) {
        res.writeHead(416, { ...headers, 'content-range': `bytes */${bytes.length}` });
        return void res.end();
      }
      res.writeHead(206, { ...headers, 'content-length': String(bytes.length - start), 'content-range': `bytes ${start}-${bytes.length - 1}/${bytes.length}`, 'accept-ranges': 'bytes' });
    } else res.writeHead(200, { ...headers, 'content-length': String(bytes.length), 'accept-ranges': 'bytes' });
    const cut = this.config.dropOnce.get(key);
    if (cut !== undefined && cut > start) {
      this.config.dropOnce.delete(key);
      // Let the client take the bytes in before the connection goes, as a real mid-file drop does.
      res.write(bytes.subarray(start, cut), () => setTimeout(() => res.socket?.destroy(), 150));
      return;
    }
    res.end(bytes.subarray(start));
  }

  private onHub(req: http.IncomingMessage, res: http.ServerResponse): void {
    const m = /^\/datasets\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(req.url ?? '');
    const revision = m ? decodeURIComponent(m[2]) : undefined;
    const filePath = m ? m[3].split('/').map(decodeURIComponent).join('/') : (req.url ?? '');
    this.seen.push({ server: 'hub', path: filePath, revision, range: req.headers.range, authorization: req.headers.authorization });
    if (this.config.token && req.headers.authorization !== `Bearer ${this.config.token}`) {
      res.writeHead(401, { 'x-error-code': 'RepoNotFound', 'x-error-message': 'Invalid credentials in Authorization header' });
      return void res.end('Unauthorized');
    }
    if (!m || m[1] !== DATASET) {
      res.writeHead(404, { 'x-error-code': 'RepoNotFound' });
      return void res.end();
    }
    const branchCommit = this.config.branches[revision!];
    if (branchCommit && this.config.commitVia === 'redirect') {
      res.writeHead(302, { location: `/datasets/${DATASET}/resolve/${branchCommit}/${m[3]}` });
      return void res.end();
    }
    const commit = branchCommit ?? (this.config.files[revision!] ? revision! : undefined);
    if (!commit) {
      res.writeHead(404, { 'x-error-code': 'RevisionNotFound', 'x-error-message': 'Invalid rev id' });
      return void res.end();
    }
    const bytes = this.config.files[commit][filePath];
    if (!bytes) {
      res.writeHead(404, { 'x-error-code': 'EntryNotFound', 'x-repo-commit': commit });
      return void res.end();
    }
    const served = this.config.corrupt.has(filePath) ? Buffer.from(bytes.toString().replace(/Fn1\b/g, 'Fx1')) : bytes;
    const meta: Record<string, string> = this.config.commitVia === 'header' ? { 'x-repo-commit': commit } : {};
    if (this.config.isLfs(filePath)) {
      const hash = sha256(bytes);
      this.blobs.set(hash, served);
      res.writeHead(302, { ...meta, location: `${this.cdnBase}/blobs/${hash}?path=${encodeURIComponent(filePath)}`, 'x-linked-etag': `"${hash}"`, 'x-linked-size': String(bytes.length), etag: `"${gitBlobSha1(bytes)}"` });
      return void res.end();
    }
    this.send(req, res, served, filePath, { ...meta, etag: `"${gitBlobSha1(bytes)}"` });
  }

  private onCdn(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://cdn');
    const filePath = url.searchParams.get('path') ?? '';
    this.seen.push({ server: 'cdn', path: filePath, range: req.headers.range, authorization: req.headers.authorization });
    const bytes = this.blobs.get(url.pathname.replace('/blobs/', ''));
    if (!bytes) {
      res.writeHead(404);
      return void res.end();
    }
    // A CDN's ETag is no hash of ours (an MD5 here): the client must not take it for the SHA-256.
    this.send(req, res, bytes, filePath, { etag: `"${createHash('md5').update(bytes).digest('hex')}"` });
  }
}

const GO_BASE = releasePath('go', 'base');
const RUBY_BASE = releasePath('ruby', 'base');
const GO_LSP = releasePath('go', 'lsp');
const RUBY_LSP = releasePath('ruby', 'lsp');
const FOUR = [GO_BASE, RUBY_BASE, GO_LSP, RUBY_LSP];

function publishedFiles(tag: string): Record<string, Buffer> {
  return {
    [GO_BASE]: recordsFile('go', `${tag}-go`, 120),
    [RUBY_BASE]: recordsFile('ruby', `${tag}-ruby`, 80),
    [GO_LSP]: recordsFile('go', `${tag}-go-lsp`, 40),
    [RUBY_LSP]: recordsFile('ruby', `${tag}-ruby-lsp`, 40),
  };
}

function hubFiles(): Record<string, Record<string, Buffer>> {
  return { [COMMITS.old]: publishedFiles('old'), [COMMITS.pinned]: publishedFiles('pinned'), [COMMITS.newer]: publishedFiles('newer') };
}

describe('dataset fetch from a Hugging Face hub (a local one)', function () {
  let tmp: string;
  let hub: LocalHub;
  const events: FetchEvent[] = [];

  const options = (dir: string, extra: Partial<FetchOptions> = {}): FetchOptions => ({
    dir,
    endpoint: hub.endpoint,
    token: TOKEN,
    languages: ['go', 'ruby'],
    kinds: ['base', 'lsp'],
    retries: 0,
    retryDelayMs: 5,
    onEvent: (e) => events.push(e),
    ...extra,
  });

  beforeEach(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-dataset-'));
    hub = await new LocalHub({ files: hubFiles(), branches: { main: COMMITS.pinned } }).start();
    events.length = 0;
  });
  afterEach(async () => {
    await hub.stop().catch(() => undefined);
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('downloads every file at the commit main resolves to, verifies it and records it in the lock file', async () => {
    const dir = path.join(tmp, 'ds');
    const r = await fetchDataset(options(dir));
    assert.equal(r.commit, COMMITS.pinned);
    assert.equal(r.offline, false);
    const served = hubFiles()[COMMITS.pinned];
    for (const p of FOUR) assert.ok(fs.readFileSync(path.join(dir, p)).equals(served[p]), `${p} is the pinned commit's bytes`);
    const lock = readLock(dir)!;
    assert.equal(lock.commit, COMMITS.pinned);
    assert.equal(lock.revision, 'main');
    assert.deepEqual(
      lock.files.map((f) => [f.path, f.size, f.sha256]),
      [...FOUR].sort().map((p) => [p, served[p].length, sha256(served[p])]),
    );
    // Only the first file is asked for by branch name; the others at the commit it resolved to.
    const hubAsks = hub.seen.filter((s) => s.server === 'hub');
    assert.equal(hubAsks[0].revision, 'main');
    assert.deepEqual([...new Set(hubAsks.slice(1).map((s) => s.revision))], [COMMITS.pinned]);
    // The token goes to the hub only, never to the CDN's other origin, and is never written or reported.
    assert.ok(hubAsks.every((s) => s.authorization === `Bearer ${TOKEN}`));
    const cdnAsks = hub.seen.filter((s) => s.server === 'cdn');
    assert.ok(cdnAsks.length >= 2, 'LFS files came through the CDN');
    assert.ok(cdnAsks.every((s) => s.authorization === undefined));
    assert.ok(!fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8').includes(TOKEN));
    assert.ok(!JSON.stringify(events).includes(TOKEN));
    assert.ok(events.some((e) => e.type === 'bytes'), 'progress was reported');
    assert.deepEqual(fs.readdirSync(path.join(dir, 'data', 'base')).sort(), ['go_functions.jsonl', 'ruby_functions.jsonl']);
  });

  it('reuses a fetched folder with the server stopped, and refetches only a changed file, at the locked commit', async () => {
    const dir = path.join(tmp, 'ds');
    await fetchDataset(options(dir));
    await hub.stop();
    const again = await fetchDataset(options(dir));
    assert.equal(again.offline, true);
    assert.deepEqual(again.files.map((f) => f.from), ['cache', 'cache', 'cache', 'cache']);
    assert.equal(again.commit, COMMITS.pinned);

    fs.appendFileSync(path.join(dir, GO_LSP), 'tampered\n');
    await assert.rejects(fetchDataset(options(dir)), (e: Error) => {
      assert.ok(e instanceof HubError && e.kind === 'network', e.message);
      assert.match(e.message, /cannot reach http:\/\/127\.0\.0\.1:\d+/);
      assert.match(e.message, /--endpoint/);
      assert.match(e.message, /data\/lsp\/go_functions_enriched\.jsonl/);
      return true;
    });
    await assert.rejects(fetchDataset(options(dir, { offline: true })), /--offline: 1 file\(s\) missing or not matching/);

    // The hub moves main on; the folder stays pinned to its commit.
    hub = await new LocalHub({ files: hubFiles(), branches: { main: COMMITS.newer } }).start();
    const repaired = await fetchDataset(options(dir));
    assert.deepEqual(repaired.files.map((f) => f.from), ['cache', 'cache', 'download', 'cache']);
    assert.deepEqual([...new Set(hub.seen.filter((s) => s.server === 'hub').map((s) => s.path + '@' + s.revision))], [`${GO_LSP}@${COMMITS.pinned}`]);
    assert.ok(fs.readFileSync(path.join(dir, GO_LSP)).equals(hubFiles()[COMMITS.pinned][GO_LSP]));
  });

  it('moves the pin with --refresh, keeping files whose bytes did not change', async () => {
    const dir = path.join(tmp, 'ds');
    await fetchDataset(options(dir, { kinds: ['base'] }));
    const files = hubFiles();
    files[COMMITS.newer][GO_BASE] = files[COMMITS.pinned][GO_BASE]; // unchanged between the two commits
    hub.config.files = files;
    hub.config.branches.main = COMMITS.newer;
    const r = await fetchDataset(options(dir, { kinds: ['base'], refresh: true }));
    assert.equal(r.commit, COMMITS.newer);
    assert.deepEqual(r.files.map((f) => [f.path, f.from]), [[GO_BASE, 'adopted'], [RUBY_BASE, 'download']]);
    assert.ok(fs.readFileSync(path.join(dir, RUBY_BASE)).equals(files[COMMITS.newer][RUBY_BASE]));
    assert.equal(readLock(dir)!.commit, COMMITS.newer);
  });

  it('keeps the partial of a dropped download and resumes it with a Range request on the next run', async () => {
    const dir = path.join(tmp, 'ds');
    hub.config.dropOnce.set(RUBY_BASE, 20_000);
    await assert.rejects(fetchDataset(options(dir)), (e: Error) => {
      assert.ok(e instanceof HubError && e.kind === 'dropped', e.message);
      assert.match(e.message, /data\/base\/ruby_functions\.jsonl: the connection dropped after \d+ of \d+ bytes/);
      assert.match(e.message, /next run resumes it/);
      return true;
    });
    const partial = path.join(dir, `${RUBY_BASE}.partial`);
    const kept = fs.statSync(partial).size;
    const whole = hubFiles()[COMMITS.pinned][RUBY_BASE];
    assert.ok(kept > 0 && kept <= 20_000, `partial holds ${kept} bytes`);
    assert.ok(!fs.existsSync(path.join(dir, RUBY_BASE)), 'nothing half-written is in place');
    assert.ok(!readLock(dir)!.files.some((f) => f.path === RUBY_BASE));

    hub.seen = [];
    const r = await fetchDataset(options(dir));
    const asks = hub.requestsFor(RUBY_BASE);
    assert.ok(asks.length >= 2 && asks.every((s) => s.range === `bytes=${kept}-`), JSON.stringify(asks));
    assert.ok(events.some((e) => e.type === 'download' && e.path === RUBY_BASE && e.from === kept));
    assert.ok(fs.readFileSync(path.join(dir, RUBY_BASE)).equals(whole));
    assert.ok(!fs.existsSync(partial) && !fs.existsSync(`${partial}.json`));
    assert.equal(r.files.find((f) => f.path === RUBY_BASE)!.sha256, sha256(whole));
  });

  it('retries a dropped download in the same run, and starts over when the server ignores Range', async () => {
    const dir = path.join(tmp, 'ds');
    hub.config.dropOnce.set(GO_LSP, 15_000); // served by the hub itself (not LFS)
    hub.config.ignoreRange = true;
    const r = await fetchDataset(options(dir, { retries: 1 }));
    assert.ok(events.some((e) => e.type === 'retry' && e.path === GO_LSP));
    const asks = hub.requestsFor(GO_LSP);
    assert.equal(asks.length, 2);
    assert.match(asks[1].range ?? '', /^bytes=\d+-$/);
    assert.ok(fs.readFileSync(path.join(dir, GO_LSP)).equals(hubFiles()[COMMITS.pinned][GO_LSP]));
    assert.equal(r.files.length, 4);
  });

  it('rejects a file whose bytes do not match the hub\'s hash, naming the file and both hashes', async () => {
    const dir = path.join(tmp, 'ds');
    hub.config.corrupt.add(GO_BASE).add(GO_LSP);
    const good = hubFiles()[COMMITS.pinned][GO_BASE];
    await assert.rejects(fetchDataset(options(dir)), (e: Error) => {
      assert.ok(e instanceof HubError && e.kind === 'checksum', e.message);
      assert.match(e.message, /^data\/base\/go_functions\.jsonl: checksum mismatch: expected SHA-256 ([0-9a-f]{64}), got ([0-9a-f]{64})/);
      const [, expected, actual] = /expected SHA-256 ([0-9a-f]{64}), got ([0-9a-f]{64})/.exec(e.message)!;
      assert.equal(expected, sha256(good));
      assert.notEqual(actual, expected);
      return true;
    });
    assert.ok(!fs.existsSync(path.join(dir, GO_BASE)));
    assert.ok(!fs.existsSync(path.join(dir, `${GO_BASE}.partial`)));
    // A small file's hash is its git blob id, checked the same way.
    hub.config.corrupt.delete(GO_BASE);
    await assert.rejects(fetchDataset(options(dir)), /data\/lsp\/go_functions_enriched\.jsonl: checksum mismatch: expected git blob [0-9a-f]{40}, got [0-9a-f]{40}/);
    assert.ok(!fs.existsSync(path.join(dir, GO_LSP)));
    assert.deepEqual(readLock(dir)!.files.map((f) => f.path), [GO_BASE, RUBY_BASE]);
  });

  it('says to set HF_TOKEN on a 401, and tells a missing revision from a missing file on a 404', async () => {
    const dir = path.join(tmp, 'ds');
    await assert.rejects(fetchDataset(options(dir, { token: undefined })), (e: Error) => {
      assert.ok(e instanceof HubError && e.kind === 'auth');
      assert.match(e.message, /answered 401.*set HF_TOKEN \(or pass --token\)/);
      return true;
    });
    await assert.rejects(fetchDataset(options(dir, { token: 'hf_wrong' })), /401.*the token sent was refused/);
    await assert.rejects(fetchDataset(options(dir, { revision: 'v9' })), (e: Error) => {
      assert.ok(e instanceof HubError && e.kind === 'not-found');
      assert.match(e.message, /the revision "v9" does not exist in datasets\/solis-soict\/xrepotest \(404\)/);
      return true;
    });
    await assert.rejects(fetchDataset(options(dir, { kinds: ['rag-bm25'] })), /the file data\/rag\/go_functions_ws50_ss10_k20_enriched_bm25\.jsonl does not exist at revision main \(404\)/);
    assert.ok(!fs.existsSync(path.join(dir, LOCK_FILE)), 'no lock for a fetch that got nothing');
  });

  it('says that --endpoint can point at a mirror when nothing answers', async () => {
    const dir = path.join(tmp, 'ds');
    await hub.stop();
    await assert.rejects(fetchDataset(options(dir)), /cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\).*--endpoint URL \(or HF_ENDPOINT\) can point at a mirror/);
    assert.ok(!fs.existsSync(path.join(dir, GO_BASE)));
  });

  it('learns the commit from a mirror that redirects the branch name to the commit\'s path', async () => {
    hub.config.commitVia = 'redirect';
    const dir = path.join(tmp, 'ds');
    const r = await fetchDataset(options(dir, { kinds: ['base'] }));
    assert.equal(r.commit, COMMITS.pinned);
    assert.equal(readLock(dir)!.commit, COMMITS.pinned);
    assert.ok(fs.readFileSync(path.join(dir, GO_BASE)).equals(hubFiles()[COMMITS.pinned][GO_BASE]));
  });

  it('runs as `xrepotest dataset fetch`, with the token from HF_TOKEN, and the fetched files load as tasks', async () => {
    const dir = path.join(tmp, 'ds');
    const out = await runCli(['dataset', 'fetch', '--dir', dir, '--endpoint', hub.endpoint, '--lang', 'go', '--kinds', 'base', '--no-progress'], { HF_TOKEN: TOKEN });
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, new RegExp(`at main: commit ${COMMITS.pinned}`));
    assert.match(out.stdout, /1 files, .* 1 fetched/);
    assert.ok(!(out.stdout + out.stderr).includes(TOKEN));
    const { tasks, problems } = await loadTasks([path.join(dir, GO_BASE)]);
    assert.deepEqual(problems, []);
    assert.equal(tasks.length, 120);
    const offline = await runCli(['dataset', 'fetch', '--dir', dir, '--lang', 'go', '--kinds', 'base', '--offline'], {});
    assert.match(offline.stdout, /no network used/);
    const bad = await runCli(['dataset', 'fetch', '--dir', dir, '--kinds', 'base,rag'], {});
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /unknown dataset kind "rag"/);
  });
});

