import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type Dockerode from 'dockerode';
import { adapterFor, LANGUAGE_IDS, type LanguageId } from '../languages';
import { resourceRoot } from '../util/resources';
import { runBuild, ImageBuildError, type BuildProgress } from './image-build';
import { copyRepository } from './copy-repository';

export { ImageBuildError, type BuildProgress } from './image-build';

export const BASE_IMAGE = 'xrepotest/base:trixie';

/**
 * A build's containers removed when it fails too (`forcerm`), not only when it succeeds: a failed
 * build (a dependency no registry serves) otherwise leaves its container on the user's engine, and on
 * Podman leaves it mounted, one more overlay in every mount table (each bubblewrap start reads it).
 */
const REMOVE_BUILD_CONTAINERS = { rm: true, forcerm: true };
const DEBIAN_SUITE = 'trixie';
const DEBIAN_MIRROR = 'http://deb.debian.org/debian';

export type ImageVariant = 'official' | 'debian';
export type ImageSource = 'auto' | ImageVariant;

/** The official image a language image starts from when a registry answers (languages/<id>/image.ts). */
function officialBase(language: LanguageId): string {
  return adapterFor(language).image.officialBase;
}

export const LABEL = {
  marker: 'xrepotest',
  kind: 'xrepotest.kind',
  language: 'xrepotest.language',
  variant: 'xrepotest.variant',
  repo: 'xrepotest.repo',
} as const;

export function languageImageTag(language: LanguageId, variant: ImageVariant): string {
  return `xrepotest/${language}:${variant}`;
}

export interface BuildOptions {
  onProgress?: BuildProgress;
  signal?: AbortSignal;
}

/** The folder of Dockerfiles: the repository's docker/ (or $XREPOTEST_HOME/docker). */
export function dockerDir(): string {
  return path.join(resourceRoot(), 'docker');
}

export async function imageExists(docker: Dockerode, ref: string): Promise<boolean> {
  try {
    await docker.getImage(ref).inspect();
    return true;
  } catch {
    return false;
  }
}

function run(cmd: string, args: string[], onLine: BuildProgress | undefined, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], signal });
    let log = '';
    const take = (b: Buffer): void => {
      const text = b.toString('utf8');
      log = (log + text).slice(-64 * 1024);
      for (const line of text.split('\n')) if (line.trim()) onLine?.(line);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', (e) => reject(new ImageBuildError(`${cmd}: ${e.message}`, log)));
    child.on('close', (code) => (code === 0 ? resolve(log) : reject(new ImageBuildError(`${cmd} ${args.join(' ')} exited ${code}`, log))));
  });
}

/**
 * `xrepotest/base:trixie`, imported from a debootstrap root file system when missing: no registry
 * is needed, only Debian's mirror. Made once and reused.
 */
export async function ensureBaseImage(docker: Dockerode, opts: BuildOptions = {}): Promise<string> {
  if (await imageExists(docker, BASE_IMAGE)) return BASE_IMAGE;
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    throw new ImageBuildError(`${BASE_IMAGE} is missing and debootstrap needs root: run \`xrepotest images build\` once as root`, '');
  }
  const rootfs = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-rootfs-'));
  try {
    opts.onProgress?.(`debootstrap --variant=minbase ${DEBIAN_SUITE} (about a minute)`);
    await run('debootstrap', ['--variant=minbase', DEBIAN_SUITE, rootfs, DEBIAN_MIRROR], opts.onProgress, opts.signal);
    // apt inside the image must not try to drop to the _apt user: builds run with few capabilities.
    fs.writeFileSync(path.join(rootfs, 'etc/apt/apt.conf.d/99xrepotest'), 'APT::Sandbox::User "root";\n');
    opts.onProgress?.(`importing ${BASE_IMAGE}`);
    const tar = spawn('tar', ['-C', rootfs, '--numeric-owner', '-c', '.'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const [repo, tag] = BASE_IMAGE.split(':');
    const stream = await docker.importImage(tar.stdout, { repo, tag, changes: ['ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'ENV LANG=C.UTF-8'] });
    const log = await runBuild(stream, opts);
    if (!(await imageExists(docker, BASE_IMAGE))) await tagImported(docker, log, repo, tag);
    return BASE_IMAGE;
  } finally {
    fs.rmSync(rootfs, { recursive: true, force: true });
  }
}

/**
 * Podman's import ignores the `tag` parameter and names the image `<repo>:latest`; tag it by the id
 * the import printed, and drop that stray name.
 */
async function tagImported(docker: Dockerode, log: string, repo: string, tag: string): Promise<void> {
  const ids = log.match(/sha256:[0-9a-f]{64}/g);
  if (!ids) throw new ImageBuildError(`the import of ${repo}:${tag} printed no image id`, log);
  const id = ids[ids.length - 1];
  await docker.getImage(id).tag({ repo, tag });
  const stray = docker.getImage(`${repo}:latest`);
  try {
    if ((await stray.inspect()).Id === id) await stray.remove({ noprune: true });
  } catch {
    // no stray name: Docker honours the tag parameter
  }
  if (!(await imageExists(docker, `${repo}:${tag}`))) throw new ImageBuildError(`the import of ${repo}:${tag} left no image of that name`, log);
}

/** Whether the official image is here or can be pulled (no registry answers on some machines). */
async function officialAvailable(docker: Dockerode, ref: string, opts: BuildOptions): Promise<boolean> {
  if (await imageExists(docker, ref)) return true;
  try {
    opts.onProgress?.(`pulling ${ref}`);
    const stream = await docker.pull(ref);
    await runBuild(stream, opts);
    return await imageExists(docker, ref);
  } catch (e) {
    opts.onProgress?.(`cannot pull ${ref}: ${(e as Error).message.split('\n')[0]}`);
    return false;
  }
}

export interface BuiltImage {
  tag: string;
  variant: ImageVariant;
}

/**
 * `xrepotest/<lang>:<variant>` from docker/<lang>/Dockerfile.<variant>. `auto` takes the official
 * image when a registry answers, else Debian's packages on the base image.
 */
export async function buildLanguageImage(docker: Dockerode, language: LanguageId, from: ImageSource, opts: BuildOptions = {}): Promise<BuiltImage> {
  let variant: ImageVariant;
  const adapter = adapterFor(language);
  const official = adapter.image.officialBase;
  if (from === 'auto') variant = (await officialAvailable(docker, official, opts)) ? 'official' : 'debian';
  else variant = from;
  if (variant === 'official' && from === 'official' && !(await officialAvailable(docker, official, opts))) {
    throw new ImageBuildError(`${official} cannot be pulled: no registry answers (try --from debian)`, '');
  }
  if (variant === 'debian' && adapter.image.noDebianVariant) {
    throw new ImageBuildError(
      `${language}: ${adapter.image.noDebianVariant}, and ${official} cannot be pulled (no registry answers); ` +
        `the ${adapter.displayName} image needs a registry (or a local copy of that image: \`docker load\`)`,
      '',
    );
  }
  if (variant === 'debian') await ensureBaseImage(docker, opts);
  const tag = languageImageTag(language, variant);
  const context = path.join(dockerDir(), language);
  const dockerfile = `Dockerfile.${variant}`;
  if (!fs.existsSync(path.join(context, dockerfile))) throw new ImageBuildError(`missing ${path.join(context, dockerfile)}`, '');
  opts.onProgress?.(`building ${tag} from ${path.join('docker', language, dockerfile)}`);
  const stream = await docker.buildImage(
    // The Dockerfile and what it copies (PHP: warm-opcache.sh); not the other variant's Dockerfile.
    { context, src: fs.readdirSync(context).filter((f) => f === dockerfile || !f.startsWith('Dockerfile')) },
    {
      t: tag,
      dockerfile,
      networkmode: 'host',
      ...REMOVE_BUILD_CONTAINERS,
      labels: { [LABEL.marker]: '1', [LABEL.kind]: 'language', [LABEL.language]: language, [LABEL.variant]: variant },
      buildargs: { BASE: variant === 'debian' ? BASE_IMAGE : officialBase(language) },
    },
  );
  await runBuild(stream, opts);
  if (!(await imageExists(docker, tag))) throw new ImageBuildError(`build of ${tag} reported success but the image is missing`, '');
  return { tag, variant };
}

/** The language image that exists here, official preferred. */
export async function findLanguageImage(docker: Dockerode, language: LanguageId): Promise<string | undefined> {
  for (const variant of ['official', 'debian'] as const) {
    const tag = languageImageTag(language, variant);
    if (await imageExists(docker, tag)) return tag;
  }
  return undefined;
}

export interface ImageRow {
  tags: string[];
  kind: string;
  language: string;
  variant: string;
  repo: string;
  sizeBytes: number;
  created: Date;
}

export async function listImages(docker: Dockerode): Promise<ImageRow[]> {
  const images = await docker.listImages({ filters: JSON.stringify({ label: [`${LABEL.marker}=1`] }) });
  const base = await docker.listImages({ filters: JSON.stringify({ reference: [BASE_IMAGE] }) });
  const rows = [...base, ...images].map((i) => ({
    tags: (i.RepoTags ?? []).map((t) => t.replace(/^(localhost|docker\.io)\//, '')),
    kind: i.Labels?.[LABEL.kind] ?? 'base',
    language: i.Labels?.[LABEL.language] ?? '',
    variant: i.Labels?.[LABEL.variant] ?? '',
    repo: i.Labels?.[LABEL.repo] ?? '',
    sizeBytes: i.Size,
    created: new Date(i.Created * 1000),
  }));
  const seen = new Set<string>();
  return rows.filter((r) => {
    const key = r.tags.join(',');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

// ---- per-repository environment images --------------------------------------------------------

/** Folders an environment image neither searches for manifests nor copies: VCS, ours, and each language's `image.skippedDirs`. */
function skippedDirs(): Set<string> {
  return new Set(['.git', '.hg', '.svn', 'node_modules', '.xrt', ...LANGUAGE_IDS.flatMap((l) => adapterFor(l).image.skippedDirs ?? [])]);
}

/** Folders (relative, '' = the root) holding the manifest; nested ones only where each is a project (Go's modules). */
export function manifestDirs(repoDir: string, language: LanguageId): string[] {
  const { manifest, nestedManifests } = adapterFor(language).image;
  const found: string[] = [];
  const skipped = skippedDirs();
  const walk = (rel: string, depth: number): void => {
    const abs = path.join(repoDir, rel);
    const entries = fs.readdirSync(abs, { withFileTypes: true });
    const here = entries.some((e) => e.isFile() && e.name === manifest);
    if (here) {
      found.push(rel);
      // A Cargo workspace, a Composer project or a bundle resolves everything below it.
      if (!nestedManifests) return;
    }
    if (depth >= 6) return;
    for (const e of entries) if (e.isDirectory() && !skipped.has(e.name) && !e.name.startsWith('.')) walk(path.join(rel, e.name), depth + 1);
  };
  walk('', 0);
  return found.filter((rel) => !dependenciesProvided(language, path.join(repoDir, rel)));
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * Whether a manifest folder asks only for what the image already has: then there is nothing to fetch
 * (and nothing that needs a registry), so the environment is the language image as it is.
 */
export function dependenciesProvided(language: LanguageId, dir: string): boolean {
  const provided = adapterFor(language).image.dependenciesProvided;
  if (!provided) return false;
  try {
    return provided(dir);
  } catch {
    return false;
  }
}

/** The install command for one manifest folder; dependency caches are the ones docker/README.md lists. */
function installCommand(language: LanguageId, repoName: string, rel: string): string {
  const cd = `cd ${shellQuote(path.posix.join('/xrt/src', repoName, rel))}`;
  return adapterFor(language).image.installCommand({ cd, depsDir: path.posix.join('/xrt/deps', repoName, rel), quote: shellQuote });
}

const HOST_CA_BUNDLES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt', '/etc/ssl/cert.pem'];

export function envImageTag(repoName: string, language: LanguageId, contentHash: string): string {
  const safe = repoName.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[^a-z0-9]+/, '') || 'repo';
  return `xrepotest/env-${language}-${safe}:${contentHash.slice(0, 12)}`;
}

function hashManifests(repoDir: string, dirs: string[], languageImageId: string): string {
  const h = createHash('sha256').update(languageImageId);
  // Every language's lock files: a repository of several languages gets a new image when any changes.
  const locks = LANGUAGE_IDS.flatMap((l) => adapterFor(l).image.lockFiles);
  for (const d of dirs) {
    for (const f of locks) {
      const p = path.join(repoDir, d, f);
      if (fs.existsSync(p)) h.update(`${d}/${f}\0`).update(fs.readFileSync(p));
    }
  }
  return h.digest('hex');
}

export interface EnvImageOptions extends BuildOptions {
  /** The language image to start from (default: the one that exists, official preferred). */
  languageImage?: string;
  /** Rebuild even when an image for the same manifests exists. */
  force?: boolean;
}

/**
 * An image with the repository's dependencies fetched at build time (containers run without network).
 * The repository is copied into the build context (without .git, target/, vendor/, node_modules/)
 * because cargo and bundler need more than the manifests (targets, gemspecs); the copy is deleted in
 * the same layer. A failed install fails the build, with the build log in the error.
 */
export async function buildEnvImage(docker: Dockerode, repoDir: string, language: LanguageId, opts: EnvImageOptions = {}): Promise<string> {
  const repoAbs = path.resolve(repoDir);
  const repoName = path.basename(repoAbs);
  const base = opts.languageImage ?? (await findLanguageImage(docker, language));
  if (!base) throw new ImageBuildError(`no ${language} image here: run \`xrepotest images build --lang ${language}\` first`, '');
  const baseId = (await docker.getImage(base).inspect()).Id;
  const dirs = manifestDirs(repoAbs, language);
  const tag = envImageTag(repoName, language, hashManifests(repoAbs, dirs, baseId));
  if (!opts.force && (await imageExists(docker, tag))) return tag;

  const context = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-envctx-'));
  try {
    const lines = [`FROM ${base}`];
    if (dirs.length) {
      // The sandbox's copy rules (links kept only inside the repository, no FIFOs, no huge files):
      // fs.cpSync would turn relative links into absolute ones into the user's checkout.
      fs.mkdirSync(path.join(context, 'src'));
      copyRepository(repoAbs, path.join(context, 'src'), { skipNames: skippedDirs() });
      const installs = dirs.map((d) => installCommand(language, repoName, d));
      // The host's CA bundle, for the install step only: behind a TLS-inspecting proxy the registries
      // answer with certificates only the host trusts. Not kept in the image.
      const hostCa = HOST_CA_BUNDLES.find((f) => fs.existsSync(f));
      let trust = '';
      if (hostCa) {
        fs.copyFileSync(hostCa, path.join(context, 'src', '.xrt-host-ca.crt'));
        const ca = path.posix.join('/xrt/src', repoName, '.xrt-host-ca.crt');
        // Every fetcher's own setting too (the languages' `image.caBundleEnv`: cargo, Composer).
        const vars = ['SSL_CERT_FILE', ...LANGUAGE_IDS.flatMap((l) => adapterFor(l).image.caBundleEnv ?? []), 'GIT_SSL_CAINFO'];
        trust = `export ${vars.map((v) => `${v}=${ca}`).join(' ')}; `;
      }
      lines.push(
        `COPY src ${path.posix.join('/xrt/src', repoName)}`,
        // One layer: install, then drop the sources; caches become writable for a non-root --user.
        `RUN set -e; ${trust}${installs.join('; ')}; rm -rf /xrt/src; mkdir -p /xrt/deps /xrt/cache; chmod -R a+rwX /xrt/deps /xrt/cache`,
      );
    } else {
      fs.mkdirSync(path.join(context, 'src'));
    }
    lines.push(`ENV XRT_DEPS=${path.posix.join('/xrt/deps', repoName)}`);
    fs.writeFileSync(path.join(context, 'Dockerfile'), lines.join('\n') + '\n');
    opts.onProgress?.(`building ${tag} (${dirs.length ? dirs.map((d) => d || '.').join(', ') : 'no dependencies'})`);
    const stream = await docker.buildImage(
      { context, src: ['Dockerfile', 'src'] },
      {
        t: tag,
        networkmode: 'host',
        ...REMOVE_BUILD_CONTAINERS,
        labels: { [LABEL.marker]: '1', [LABEL.kind]: 'env', [LABEL.language]: language, [LABEL.repo]: repoName },
      },
    );
    await runBuild(stream, opts);
    if (!(await imageExists(docker, tag))) throw new ImageBuildError(`build of ${tag} reported success but the image is missing`, '');
    return tag;
  } finally {
    fs.rmSync(context, { recursive: true, force: true });
  }
}
