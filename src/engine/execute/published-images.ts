import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type Dockerode from 'dockerode';
import { adapterFor, type LanguageId } from '../languages';
import { ownerLabels } from './docker';
import { IMAGES_LOCK_FILE, PUBLISHED_REPO_DATA, PUBLISHED_REPOSITORY } from './published-names';

/**
 * The benchmark's published images (xrepotest-release.md §3): one per language, with the
 * repositories at `/app/repo_data/<lang>/<repo_dir>/`. We pull them, pin them by digest, copy a
 * repository out, and run our own phases in them (docs/execution.md), so a published task is scored
 * the same way wherever it runs.
 */
export { IMAGES_LOCK_FILE, PUBLISHED_REPO_DATA, PUBLISHED_REPOSITORY };

export class PublishedImageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PublishedImageError';
  }
}

export interface PublishedImageOptions {
  /** Registry prefix, e.g. `127.0.0.1:5000` (default: Docker Hub). */
  registry?: string;
  /** Default `latest`. */
  tag?: string;
  /** Where the digest is recorded (default: `xrepotest-images.lock.json` in the current folder); null: not recorded. */
  lockFile?: string | null;
  /** One line per progress event of the pull. */
  onProgress?: (line: string) => void;
}

export interface PulledImage {
  /** The name pulled, `<registry>/dungxg502/xrepotest-<lang>:<tag>`. */
  reference: string;
  /** The repository digest, `<registry>/dungxg502/xrepotest-<lang>@sha256:…`: what later runs use. */
  digest: string;
}

export interface ImagesLock {
  images: Partial<Record<LanguageId, PulledImage>>;
}

/** `[registry/]dungxg502/xrepotest-<lang>:<tag>`. */
export function publishedReference(language: LanguageId, opts: Pick<PublishedImageOptions, 'registry' | 'tag'> = {}): string {
  const registry = opts.registry?.replace(/\/+$/, '');
  return `${registry ? `${registry}/` : ''}${PUBLISHED_REPOSITORY}-${language}:${opts.tag ?? 'latest'}`;
}

/** The name without its tag (a registry's `host:port` is not a tag). */
function repositoryOf(reference: string): string {
  const at = reference.indexOf('@');
  const noDigest = at >= 0 ? reference.slice(0, at) : reference;
  const slash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  return colon > slash ? noDigest.slice(0, colon) : noDigest;
}

/** Docker Hub names come back as `docker.io/…` (Podman) or bare (Docker); compare without that. */
function sameRepository(a: string, b: string): boolean {
  const norm = (s: string): string => s.replace(/^(docker\.io|index\.docker\.io)\//, '').replace(/^library\//, '');
  return norm(a) === norm(b);
}

export function readImagesLock(file: string): ImagesLock {
  if (!fs.existsSync(file)) return { images: {} };
  try {
    const lock = JSON.parse(fs.readFileSync(file, 'utf8')) as ImagesLock;
    if (!lock || typeof lock.images !== 'object') throw new Error('no "images" object');
    return lock;
  } catch (e) {
    throw new PublishedImageError(`${file}: not a readable image lock file (${(e as Error).message})`);
  }
}

function writeImagesLock(file: string, language: LanguageId, pulled: PulledImage): void {
  const lock = readImagesLock(file);
  lock.images[language] = pulled;
  // Written whole then renamed: a crash never leaves a half lock file that a later run would trust.
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(lock, null, 2) + '\n');
  fs.renameSync(tmp, file);
}

/** The digest a lock file pins for a language, or null when it pins none. */
export function lockedImage(file: string, language: LanguageId): string | null {
  return readImagesLock(file).images[language]?.digest ?? null;
}

interface ProgressEvent {
  status?: string;
  id?: string;
  progress?: string;
  error?: string;
  errorDetail?: { message?: string };
}

/** Follows a pull stream; the engine reports failures as events in a 200 answer, so they are checked here. */
function followPull(docker: Dockerode, stream: NodeJS.ReadableStream, onProgress?: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let failure: string | undefined;
    docker.modem.followProgress(
      stream,
      (err: Error | null) => {
        if (err) reject(err);
        else if (failure) reject(new Error(failure));
        else resolve();
      },
      (ev: ProgressEvent) => {
        const message = ev.errorDetail?.message ?? ev.error;
        if (message) failure ??= message;
        const line = [ev.id, ev.status, ev.progress].filter(Boolean).join(' ');
        if (line) onProgress?.(line);
      },
    );
  });
}

/** The failure in words a user can act on. */
function explainPullFailure(reference: string, message: string): string {
  const why = message.split('\n')[0];
  if (/manifest unknown|not found|no such image|does not exist|repository name not known|denied/i.test(why)) {
    return `${reference} does not exist in its registry (or needs a login): ${why}`;
  }
  if (/connection refused|no such host|i\/o timeout|dial tcp|network is unreachable|TLS|certificate|HTTP response to HTTPS/i.test(why)) {
    return (
      `the registry of ${reference} cannot be reached: ${why}` +
      (/HTTP response to HTTPS/i.test(why) ? ' (a plain-HTTP registry must be marked insecure in the engine: Docker\'s insecure-registries, Podman\'s registries.conf)' : '')
    );
  }
  return `pulling ${reference} failed: ${why}`;
}

/**
 * Pulls a published image through the Engine API and records its repository digest in the lock file,
 * so later runs (`lockedImage`) use exactly that image even if the tag moves.
 */
export async function pullPublishedImage(docker: Dockerode, language: LanguageId, opts: PublishedImageOptions = {}): Promise<PulledImage> {
  const reference = publishedReference(language, opts);
  opts.onProgress?.(`pulling ${reference}`);
  try {
    const stream = (await docker.pull(reference)) as NodeJS.ReadableStream;
    await followPull(docker, stream, opts.onProgress);
  } catch (e) {
    throw new PublishedImageError(explainPullFailure(reference, (e as Error).message));
  }
  let info: Dockerode.ImageInspectInfo;
  try {
    info = await docker.getImage(reference).inspect();
  } catch (e) {
    throw new PublishedImageError(`the pull of ${reference} reported success but no such image is here: ${(e as Error).message.split('\n')[0]}`);
  }
  const repo = repositoryOf(reference);
  const digest = (info.RepoDigests ?? []).find((d) => sameRepository(repositoryOf(d), repo));
  if (!digest) throw new PublishedImageError(`${reference} has no repository digest for ${repo} (got ${JSON.stringify(info.RepoDigests ?? [])})`);
  const pulled = { reference, digest };
  const lockFile = opts.lockFile === undefined ? path.resolve(IMAGES_LOCK_FILE) : opts.lockFile;
  if (lockFile) writeImagesLock(lockFile, language, pulled);
  opts.onProgress?.(`${reference} is ${digest}`);
  return pulled;
}

/**
 * The image a run uses: the lock file's digest (pulled by digest when it is not here), else a fresh
 * pull that is then recorded.
 */
export async function resolvePublishedImage(docker: Dockerode, language: LanguageId, opts: PublishedImageOptions = {}): Promise<string> {
  const lockFile = opts.lockFile === undefined ? path.resolve(IMAGES_LOCK_FILE) : opts.lockFile;
  const locked = lockFile ? lockedImage(lockFile, language) : null;
  if (!locked) return (await pullPublishedImage(docker, language, opts)).digest;
  await ensureImage(docker, locked, opts.onProgress);
  return locked;
}

/** An image by its reference (a digest, for a pinned one): here already, else pulled now. */
export async function ensureImage(docker: Dockerode, reference: string, onProgress?: (line: string) => void): Promise<void> {
  try {
    await docker.getImage(reference).inspect();
  } catch {
    try {
      await followPull(docker, (await docker.pull(reference)) as NodeJS.ReadableStream, onProgress);
    } catch (e) {
      throw new PublishedImageError(explainPullFailure(reference, (e as Error).message));
    }
  }
}

/** `<cacheDir>/<lang>/<repo_dir>`, named after the image id so another image never reuses a copy. */
function checkoutPath(cacheDir: string, imageId: string, language: LanguageId, repoDir: string): string {
  return path.join(cacheDir, imageId.replace(/^sha256:/, '').slice(0, 16), language, repoDir);
}

function untar(stream: NodeJS.ReadableStream, into: string): Promise<void> {
  return new Promise((resolve, reject) => {
    // --no-same-owner: the files belong to whoever runs us, not to the image's uids.
    const tar = spawn('tar', ['-x', '-C', into, '--no-same-owner', '-f', '-'], { stdio: ['pipe', 'ignore', 'pipe'] });
    let err = '';
    tar.stderr.on('data', (b: Buffer) => (err = (err + b.toString('utf8')).slice(-4096)));
    tar.on('error', reject);
    tar.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`tar -x exited ${code}: ${err.trim()}`))));
    stream.on('error', reject);
    stream.pipe(tar.stdin);
  });
}

/**
 * A host copy of `/app/repo_data/<lang>/<repoDir>` from a published image, made once per image: a
 * container is created (never started, so the image is never changed) and its folder read with
 * `getArchive`. The copy is the checkout `evaluateTest` sandboxes, with `image` as the executor's image.
 */
export async function publishedCheckout(docker: Dockerode, image: string, language: LanguageId, repoDir: string, cacheDir: string): Promise<string> {
  if (!repoDir || repoDir.includes('/') || repoDir === '.' || repoDir === '..') throw new PublishedImageError(`not a repository folder name: ${JSON.stringify(repoDir)}`);
  const imageId = (await docker.getImage(image).inspect()).Id;
  const target = checkoutPath(cacheDir, imageId, language, repoDir);
  // Beside the copy, not in it: the copy must hold exactly the image's files.
  const marker = `${target}.published.json`;
  // The copy appears only whole (renamed into place): where it exists it is complete, and it is never
  // replaced, as another process (a second worker on the machine) may be reading it.
  if (fs.existsSync(target)) {
    if (!fs.existsSync(marker)) fs.writeFileSync(marker, JSON.stringify({ image, imageId, source: path.posix.join(PUBLISHED_REPO_DATA, language, repoDir) }, null, 2) + '\n');
    return target;
  }

  const source = path.posix.join(PUBLISHED_REPO_DATA, language, repoDir);
  const container = await docker.createContainer({ Image: image, Cmd: ['true'], Labels: ownerLabels(randomUUID()), NetworkDisabled: true, HostConfig: { NetworkMode: 'none' } });
  // Extracted next to the target and renamed into place: a half copy is never taken for a whole one.
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const staging = fs.mkdtempSync(path.join(path.dirname(target), '.staging-'));
  try {
    let archive: NodeJS.ReadableStream;
    try {
      archive = (await container.getArchive({ path: `${source}/.` })) as NodeJS.ReadableStream;
    } catch (e) {
      const status = (e as { statusCode?: number }).statusCode;
      if (status === 404) throw new PublishedImageError(`${image} has no ${source} (the records' file_path must start with a folder of ${path.posix.dirname(source)})`);
      throw e;
    }
    await untar(archive, staging);
    // getArchive of `dir/.` yields `./…` (Docker) or `<dir>/…` (some engines): take the one top folder if so.
    const entries = fs.readdirSync(staging);
    const root = entries.length === 1 && entries[0] === repoDir && fs.statSync(path.join(staging, repoDir)).isDirectory() ? path.join(staging, repoDir) : staging;
    try {
      fs.renameSync(root, target);
    } catch (e) {
      if (!fs.existsSync(target)) throw e; // else another process put the same copy in place first
    }
    fs.writeFileSync(marker, JSON.stringify({ image, imageId, source }, null, 2) + '\n');
    return target;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
    await container.remove({ force: true }).catch(() => undefined);
  }
}

/** Every phase runs under `timeout` (the docker executor's deadline) and some through `sh`. */
const COMMON_CHECKS = 'command -v timeout >/dev/null || echo "missing=timeout (coreutils)"; command -v sh >/dev/null || echo "missing=sh"';

/**
 * The tools our phases need that the image lacks, in words ("pcov (…)"); empty when all are there.
 * Run before scoring, so a missing tool is reported as such instead of a silent zero.
 */
export async function missingTools(docker: Dockerode, image: string, language: LanguageId): Promise<string[]> {
  const container = await docker.createContainer({
    Image: image,
    Entrypoint: ['sh', '-c'],
    // What our phase commands need in an image (docs/execution.md), each language's `image.toolChecks`:
    // the published images were made for the paper's harness, not ours (xdebug rather than pcov,
    // cargo-llvm-cov rather than bare llvm tools, per-repo vendor/bundle).
    Cmd: [`${COMMON_CHECKS}; ${adapterFor(language).image.toolChecks}; true`],
    Labels: ownerLabels(randomUUID()),
    NetworkDisabled: true,
    HostConfig: { NetworkMode: 'none', Ulimits: [{ Name: 'nofile', Soft: 4096, Hard: 4096 }, { Name: 'nproc', Soft: 16384, Hard: 16384 }] },
  });
  try {
    await container.start();
    await container.wait();
    const logs = (await container.logs({ stdout: true, stderr: false })) as unknown as Buffer;
    return demux(logs)
      .split('\n')
      .map((l) => /^missing=(.+)$/.exec(l.trim())?.[1])
      .filter((m): m is string => !!m);
  } finally {
    await container.remove({ force: true }).catch(() => undefined);
  }
}

/** Stdout of a non-TTY container log (8-byte frame headers). */
function demux(buf: Buffer): string {
  const parts: Buffer[] = [];
  for (let i = 0; i + 8 <= buf.length; ) {
    const size = buf.readUInt32BE(i + 4);
    parts.push(buf.subarray(i + 8, i + 8 + size));
    i += 8 + size;
  }
  return Buffer.concat(parts).toString('utf8');
}
