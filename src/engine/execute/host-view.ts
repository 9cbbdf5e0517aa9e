import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { adapterFor, LANGUAGE_IDS, type LanguageId } from '../languages';
import type { HostProbe } from '../languages/execution-types';
import { which } from '../util/which';

/**
 * What of the host a generated test sees under the local executor's bubblewrap. Not the host's root:
 * its output goes back to the model in repair rounds and into stored results, so anything it can
 * read may leave the machine. It gets an empty root with, read-only, the system folders (with known
 * secret files of /etc hidden) and the toolchains' own folders, and empty home folders: not the
 * user's files, caches or keys, and not the original checkout (only its sandbox copy, bound by the
 * session). Everything else does not exist in its view.
 */

/** One bubblewrap mount, in order: a later mount covers an earlier one. */
export type HostMount =
  | { kind: 'ro-bind'; path: string }
  | { kind: 'symlink'; path: string; target: string }
  | { kind: 'empty-dir'; path: string }
  | { kind: 'empty-file'; path: string };

export interface HostView {
  mounts: HostMount[];
}

/** The machine as the plan needs it; `probeHostFacts` reads this one, tests make one up. */
export interface HostFacts {
  /** Folders shown empty: home folders, wherever the toolchains under them are. */
  homes: string[];
  /** Folders toolchains read (GOROOT, GOMODCACHE, RUSTUP_HOME, cargo's bin, gem folders), real paths. */
  toolchainDirs: string[];
  /** The toolchains' commands: where PATH finds each, and the file it resolves to. */
  executables: Array<{ found: string; real: string }>;
  /** What is at a path, without following a last symlink; null when nothing is. */
  kind(p: string): 'dir' | 'file' | 'link' | null;
  readlink(p: string): string;
}

/** The system's programs, libraries and configuration (a merged /usr keeps /bin, /lib… as links). */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'];

/**
 * Secrets under /etc that no toolchain reads: password hashes, host and TLS private keys, sudo rules,
 * VPN and Wi-Fi credentials. Files are covered by an unreadable node, folders by an empty tmpfs.
 */
const ETC_SECRET_FILES = [
  '/etc/shadow', '/etc/shadow-', '/etc/gshadow', '/etc/gshadow-', '/etc/sudoers', '/etc/security/opasswd',
  '/etc/environment', '/etc/ipsec.secrets', '/etc/ppp/chap-secrets', '/etc/ppp/pap-secrets',
];
const ETC_SECRET_DIRS = [
  '/etc/ssh', '/etc/ssl/private', '/etc/pki/tls/private', '/etc/sudoers.d', '/etc/letsencrypt', '/etc/wireguard',
  '/etc/NetworkManager/system-connections', '/etc/credstore', '/etc/credstore.encrypted', '/etc/docker',
];

/** The toolchain commands the local executor runs: each language's `local.hostCommands`. */
export function toolchainCommands(languages: readonly LanguageId[] = LANGUAGE_IDS): string[] {
  return languages.flatMap((id) => adapterFor(id).local.hostCommands);
}

function isUnder(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir.endsWith('/') ? dir : dir + '/');
}

/** Where a command is installed: the folder above `bin`, a Composer `vendor`, else its own folder. */
function installRoot(real: string, homes: string[]): string {
  const vendor = real.lastIndexOf('/vendor/');
  if (vendor > 0) return real.slice(0, vendor + '/vendor'.length);
  const dir = path.dirname(real);
  if (path.basename(dir) !== 'bin') return dir;
  const parent = path.dirname(dir);
  // Directly in a home folder (~/.local, ~/.cargo) the folder above bin holds far more than the tool
  // (keyrings, credentials): only bin then. Deeper (~/.rbenv/versions/3.3.0) it is the install.
  const home = homes.find((h) => isUnder(parent, h));
  if (home && path.relative(home, parent).split('/').length < 2) return dir;
  return parent;
}

/** The mounts for a machine: pure, so what each kind of installation yields can be tested anywhere. */
export function planHostView(facts: HostFacts): HostView {
  const mounts: HostMount[] = [];
  const readOnly: string[] = [];
  const homes = facts.homes.filter((h) => path.isAbsolute(h) && h !== '/');
  const forbidden = (p: string): boolean => !path.isAbsolute(p) || p === '/' || homes.some((h) => isUnder(h, p));
  const covered = (p: string): boolean => readOnly.some((d) => isUnder(p, d));
  const bind = (p: string): void => {
    p = path.normalize(p);
    if (forbidden(p) || covered(p) || facts.kind(p) !== 'dir') return;
    readOnly.push(p);
    mounts.push({ kind: 'ro-bind', path: p });
  };

  for (const dir of SYSTEM_DIRS) {
    const kind = facts.kind(dir);
    if (kind === 'link') mounts.push({ kind: 'symlink', path: dir, target: facts.readlink(dir) });
    else if (kind === 'dir') bind(dir);
  }
  for (const f of ETC_SECRET_FILES) if (facts.kind(f) === 'file') mounts.push({ kind: 'empty-file', path: f });
  for (const d of ETC_SECRET_DIRS) if (facts.kind(d) === 'dir') mounts.push({ kind: 'empty-dir', path: d });
  // Homes before the toolchains inside them: a tmpfs mounted later would cover those.
  const shownEmpty = homes.filter((h, i) => facts.kind(h) === 'dir' && !homes.some((o, j) => j !== i && o !== h && isUnder(h, o)));
  for (const h of [...new Set(shownEmpty)]) mounts.push({ kind: 'empty-dir', path: h });
  for (const d of facts.toolchainDirs) bind(d);
  for (const { found, real } of facts.executables) {
    if (covered(found) && covered(real)) continue;
    if (!covered(real)) bind(installRoot(real, homes));
    if (!covered(found)) bind(path.dirname(found));
  }
  return { mounts };
}

/** The view as bubblewrap arguments, to come before the session's own (/dev, /proc, /tmp, the sandbox). */
export function hostViewArgs(view: HostView): string[] {
  return view.mounts.flatMap((m): string[] => {
    switch (m.kind) {
      case 'ro-bind':
        return ['--ro-bind', m.path, m.path];
      case 'symlink':
        return ['--symlink', m.target, m.path];
      case 'empty-dir':
        return ['--tmpfs', m.path];
      case 'empty-file':
        // A device node on a nodev mount: opening it fails (EACCES), so nothing of the file is read.
        return ['--ro-bind', '/dev/null', m.path];
    }
  });
}

/** For `doctor` and docs: what the view exposes, in words. */
export function describeHostView(view: HostView): string[] {
  const of = (k: HostMount['kind']): string[] => view.mounts.filter((m) => m.kind === k).map((m) => m.path);
  const secrets = [...of('empty-file'), ...of('empty-dir').filter((d) => d.startsWith('/etc/'))];
  const empty = of('empty-dir').filter((d) => !d.startsWith('/etc/'));
  return [
    `read-only: ${of('ro-bind').join(', ') || 'nothing'}${of('symlink').length ? ` (and the links ${of('symlink').join(', ')})` : ''}`,
    `hidden in /etc: ${secrets.join(', ') || 'nothing'}`,
    `shown empty: ${empty.join(', ') || 'nothing'}`,
    'writable: the sandbox copy and a private /tmp; /dev minimal, /proc of its own PID namespace; nothing else of the host exists',
  ];
}

function kindOf(p: string): 'dir' | 'file' | 'link' | null {
  try {
    const st = fs.lstatSync(p);
    return st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'dir' : st.isFile() ? 'file' : null;
  } catch {
    return null;
  }
}


/** A toolchain's answer, asked from `/` with no toolchain switching: a project's go.mod here must not change it. */
function outputLines(cmd: string, args: string[]): string[] {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 20_000, cwd: '/', env: { ...process.env, GOTOOLCHAIN: 'local' } });
  return r.status === 0 ? r.stdout.split('\n').map((l) => l.trim()).filter(Boolean) : [];
}

function realDir(p: string | undefined | null): string | null {
  if (!p) return null;
  try {
    const real = fs.realpathSync(p);
    return fs.statSync(real).isDirectory() ? real : null;
  } catch {
    return null;
  }
}

/**
 * The folders this machine's toolchains read, found as the executor finds the toolchains: PATH, and
 * the settings it passes through (each language's `local.hostDirs`: GOROOT, RUSTUP_HOME, gem folders).
 * User-level gem and depot folders are not among them: HOME points into the sandbox, so the
 * toolchains would not look there anyway.
 */
export function probeHostFacts(env: NodeJS.ProcessEnv = process.env, languages: readonly LanguageId[] = LANGUAGE_IDS): HostFacts {
  const home = os.homedir();
  const homes = [...new Set(['/home', '/root', home, env.HOME ?? home].filter((h) => path.isAbsolute(h)))];
  const dirs: Array<string | undefined | null> = [];
  const executables: HostFacts['executables'] = [];
  for (const cmd of toolchainCommands(languages)) {
    const found = which(cmd);
    if (!found) continue;
    try {
      executables.push({ found, real: fs.realpathSync(found) });
    } catch {
      /* a dangling link: nothing to run */
    }
  }
  const has = (cmd: string): boolean => executables.some((e) => path.basename(e.found) === cmd);
  const probe: HostProbe = { env, home, homes, has, outputLines, isUnder };
  for (const id of languages) dirs.push(...(adapterFor(id).local.hostDirs?.(probe) ?? []));
  const toolchainDirs = [...new Set(dirs.map(realDir).filter((d): d is string => d !== null))];
  return { homes, toolchainDirs, executables, kind: kindOf, readlink: (p) => fs.readlinkSync(p) };
}

const cachedArgs = new Map<LanguageId | 'all', string[]>();

/**
 * This machine's view as bubblewrap arguments, probed once per process (it runs the toolchains once).
 * A language's phases see its own toolchain's folders only (a PHP test has no use for the Go module
 * cache or cargo's registry, and each folder bound is a mount at every command's start: about 0.15 ms
 * each here); without a language, every language's (trusted steps, `doctor`).
 */
export function localHostViewArgs(language?: LanguageId): string[] {
  const key = language ?? 'all';
  let args = cachedArgs.get(key);
  if (!args) {
    args = hostViewArgs(planHostView(probeHostFacts(process.env, language ? [language] : LANGUAGE_IDS)));
    cachedArgs.set(key, args);
  }
  return args;
}
