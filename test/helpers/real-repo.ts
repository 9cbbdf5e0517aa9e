/**
 * Public projects at pinned versions for the real-repository fidelity suites (issue 12, item 7).
 *
 * Only registries a CI machine of this kind reaches are used: the Go module proxy (through `go mod
 * download`, which checks the checksum database), crates.io's static crate files, and Debian's
 * source archive, whose `.orig` tarballs are the upstream repositories of many PHP and Ruby libraries
 * (Packagist, RubyGems and GitHub are not reachable). Downloads are verified against a pinned SHA-256
 * and kept in a cache outside the project tree (XRT_REAL_REPO_CACHE, default ~/.cache/xrepotest-real-repos);
 * each call returns a fresh writable copy in the system temp folder, so a test may build in it.
 *
 * Finding a Debian pin: dists/trixie/main/source/Sources.xz (or bookworm's) lists each source package's
 * `.orig` file and its SHA-256 under Checksums-Sha256; the archive mirror reachable here serves only some
 * of the pool (ruby-tty-color's file answers 404, ruby-hashie's 200), so check the URL once with curl.
 *
 * Usage:
 *   const got = await realRepository({ kind: 'crate', name: 'itoa', version: '1.0.11', sha256: '…' });
 *   if ('unavailable' in got) skipBecause(this, got.unavailable);
 *   // got.dir is the project's root (the tarball's single top-level folder stripped)
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export type RealRepoSource =
  /** A Go module, e.g. { module: 'github.com/google/uuid', version: 'v1.6.0' }; go's sumdb checks it. */
  | { kind: 'go-module'; module: string; version: string }
  /** A crate's published `.crate` tarball from static.crates.io. */
  | { kind: 'crate'; name: string; version: string; sha256: string }
  /** A Debian source package's upstream tarball, e.g. { package: 'ruby-hashie', file: 'ruby-hashie_5.0.0.orig.tar.gz' }. */
  | { kind: 'debian-source'; package: string; file: string; sha256: string };

export type RealRepo = { dir: string; source: RealRepoSource } | { unavailable: string };

const DOWNLOAD_TIMEOUT_MS = 120_000;

export function realRepoCache(): string {
  return process.env.XRT_REAL_REPO_CACHE || path.join(os.homedir(), '.cache', 'xrepotest-real-repos');
}

export function describeSource(src: RealRepoSource): string {
  switch (src.kind) {
    case 'go-module':
      return `${src.module}@${src.version} (Go module proxy)`;
    case 'crate':
      return `${src.name} ${src.version} (crates.io)`;
    case 'debian-source':
      return `${src.file} (Debian source archive)`;
  }
}

function tarballUrl(src: Exclude<RealRepoSource, { kind: 'go-module' }>): string {
  if (src.kind === 'crate') return `https://static.crates.io/crates/${src.name}/${src.name}-${src.version}.crate`;
  const prefix = src.package.startsWith('lib') ? src.package.slice(0, 4) : src.package.slice(0, 1);
  return `http://deb.debian.org/debian/pool/main/${prefix}/${src.package}/${src.file}`;
}

function safeName(s: string): string {
  return s.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** The verified tarball in the cache, downloading it once. */
async function cachedTarball(src: Exclude<RealRepoSource, { kind: 'go-module' }>): Promise<string | { unavailable: string }> {
  const url = tarballUrl(src);
  const file = path.join(realRepoCache(), safeName(src.kind === 'crate' ? `${src.name}-${src.version}.crate` : src.file));
  const verified = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex') === src.sha256;
  if (fs.existsSync(file) && verified(fs.readFileSync(file))) return file;
  let bytes: Buffer;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
    if (!res.ok) return { unavailable: `${describeSource(src)}: ${url} answered HTTP ${res.status}` };
    bytes = Buffer.from(await res.arrayBuffer());
  } catch (err) {
    return { unavailable: `${describeSource(src)}: cannot download ${url} (${(err as Error).message}); no network?` };
  }
  // A changed upstream file is a different project: refuse rather than compare against it.
  if (!verified(bytes)) throw new Error(`${url}: SHA-256 differs from the pinned ${src.sha256}`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(`${file}.part`, bytes);
  fs.renameSync(`${file}.part`, file);
  return file;
}

function freshDir(src: RealRepoSource): string {
  const label = src.kind === 'go-module' ? path.basename(src.module) : src.kind === 'crate' ? src.name : src.package;
  return fs.mkdtempSync(path.join(os.tmpdir(), `xrt-real-${safeName(label)}-`));
}

async function goModule(src: Extract<RealRepoSource, { kind: 'go-module' }>): Promise<RealRepo> {
  const r = spawnSync('go', ['mod', 'download', '-json', `${src.module}@${src.version}`], {
    encoding: 'utf8',
    timeout: DOWNLOAD_TIMEOUT_MS,
    // Outside any module, so the project's own go.mod (if any) plays no part.
    cwd: os.tmpdir(),
    env: { ...process.env, GOFLAGS: '-mod=mod', GO111MODULE: 'on' },
  });
  if (r.error) return { unavailable: `${describeSource(src)}: go not runnable (${r.error.message})` };
  let info: { Dir?: string; Error?: string } = {};
  try {
    info = JSON.parse(r.stdout) as typeof info;
  } catch {
    /* reported below */
  }
  if (r.status !== 0 || !info.Dir) return { unavailable: `${describeSource(src)}: go mod download failed (${(info.Error || r.stderr).trim().split('\n')[0]})` };
  const dir = freshDir(src);
  // The module cache is read-only; the copy must be writable for builds.
  fs.cpSync(info.Dir, dir, { recursive: true });
  spawnSync('chmod', ['-R', 'u+w', dir]);
  return { dir, source: src };
}

/** A fresh writable copy of the project, or why it is unavailable here (for skipBecause). */
export async function realRepository(src: RealRepoSource): Promise<RealRepo> {
  if (src.kind === 'go-module') return goModule(src);
  const tarball = await cachedTarball(src);
  if (typeof tarball !== 'string') return tarball;
  const dir = freshDir(src);
  // Every tarball here has one top-level folder (crates: name-version/, Debian .orig: package-version/).
  const r = spawnSync('tar', ['-xf', tarball, '-C', dir, '--strip-components=1', '--no-same-owner', '--no-same-permissions'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`cannot unpack ${tarball}: ${r.stderr.trim()}`);
  return { dir, source: src };
}

/** Removes a copy made by realRepository (call from after/afterEach). */
export function removeRealRepository(got: RealRepo | undefined): void {
  if (got && 'dir' in got) fs.rmSync(got.dir, { recursive: true, force: true });
}

/** Pinned sources the suites share (hashes read off the registries on 2026-12-01). */
export const PINNED = {
  goUuid: { kind: 'go-module', module: 'github.com/google/uuid', version: 'v1.6.0' },
  crateItoa: { kind: 'crate', name: 'itoa', version: '1.0.11', sha256: '49f1f14873335454500d59611f1cf4a4b0f786f9ac11f4312a78e4cf2566695b' },
  crateOnceCell: { kind: 'crate', name: 'once_cell', version: '1.20.2', sha256: '1261fe7e33c73b354eab43b1273a57c8f967d0391e80353e51f764ac02cf6775' },
  crateSemver: { kind: 'crate', name: 'semver', version: '1.0.26', sha256: '56e6fa9c48d24d85fb3de5ad847117517440f6beceb7798af16b4a87d616b8d0' },
  phpDoctrineInflector: {
    kind: 'debian-source',
    package: 'php-doctrine-inflector',
    file: 'php-doctrine-inflector_2.0.6.orig.tar.xz',
    sha256: '92e7831dda9ca19a55906f0bd741af7125419ad926f0e22e84c2530a69e114a1',
  },
  phpPharIoVersion: {
    kind: 'debian-source',
    package: 'php-phar-io-version',
    file: 'php-phar-io-version_3.2.1.orig.tar.xz',
    sha256: '7fd866ffd3d4ee5db57e0a81e30448b889c01186b4a695150e296c39e8511023',
  },
  rubyHashie: {
    kind: 'debian-source',
    package: 'ruby-hashie',
    file: 'ruby-hashie_5.0.0.orig.tar.gz',
    sha256: 'f16d5394d732678d6287a334aeb41e88bb12fe78c22c4b749ffcb0570014f59a',
  },
} satisfies Record<string, RealRepoSource>;
