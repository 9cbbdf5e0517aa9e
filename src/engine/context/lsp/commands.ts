import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { LanguageId } from '../../parse/grammars';
import { resourceRoot } from '../../util/resources';

/** How to start one language's server, and what it needs at initialize. */
export interface ServerSpec {
  language: LanguageId;
  /** A short name for messages ("gopls", "rust-analyzer"…). */
  name: string;
  command: string;
  args: string[];
  env?: Record<string, string>;
  /** The `languageId` of opened documents. */
  languageId: string;
  /** Given a fresh folder the server may write into (removed after it exits). */
  initializationOptions?: (scratchDir: string) => unknown;
  /** Answers to `workspace/configuration`, by section. */
  settings?: Record<string, unknown>;
}

/** No usable server for a language: says what to install, with the exact command. */
export class ServerMissingError extends Error {
  constructor(
    readonly language: LanguageId,
    readonly server: string,
    readonly install: string,
    why: string,
  ) {
    super(`${language} LSP context needs ${server}: ${why}. Install it with: ${install}`);
    this.name = 'ServerMissingError';
  }
}

/** The project root (the folder with grammars/, package.json, .tools/). */
function projectRoot(): string {
  return resourceRoot();
}

/** Where scripts/setup.sh installs gopls; git-ignored. */
export function projectToolsBin(): string {
  return path.join(projectRoot(), '.tools', 'bin');
}

function onPath(name: string): string[] {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((d) => d !== '')
    .map((d) => path.join(d, name))
    .filter((p) => isExecutable(p));
}

function isExecutable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function run(command: string, args: string[]): { ok: boolean; out: string } {
  const r = spawnSync(command, args, { encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'] });
  return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

/** Debian's gopls 0.5 answers definition with the name's range only and misses module features. */
const MIN_GOPLS_MINOR = 10;

function goplsMinor(binary: string): number | null {
  const m = /gopls v0\.(\d+)\./.exec(run(binary, ['version']).out);
  return m ? Number(m[1]) : null;
}

function resolveGopls(): ServerSpec {
  const install = `GOBIN=${projectToolsBin()} go install golang.org/x/tools/gopls@latest (or bash scripts/setup.sh)`;
  const gopath = run('go', ['env', 'GOPATH']).out.trim();
  const candidates = [path.join(projectToolsBin(), 'gopls'), ...(gopath ? [path.join(gopath, 'bin', 'gopls')] : []), ...onPath('gopls')];
  let tooOld = '';
  for (const c of candidates.filter(isExecutable)) {
    const minor = goplsMinor(c);
    if (minor === null) continue;
    if (minor < MIN_GOPLS_MINOR) {
      tooOld = `${c} is gopls v0.${minor}, too old`;
      continue;
    }
    return { language: 'go', name: 'gopls', command: c, args: ['serve'], languageId: 'go', settings: { gopls: {} } };
  }
  throw new ServerMissingError('go', 'gopls', install, tooOld || 'no gopls found in .tools/bin, $GOPATH/bin or on PATH');
}

/**
 * rustup puts a `rust-analyzer` proxy in ~/.cargo/bin that fails unless the rustup component is
 * installed, and it often comes first on PATH; only a binary that answers --version counts.
 */
function resolveRustAnalyzer(): ServerSpec {
  const install = 'apt-get install rust-web-analyzer (Debian; installs /usr/bin/rust-analyzer)';
  const candidates = [...onPath('rust-analyzer'), '/usr/bin/rust-analyzer'];
  for (const c of [...new Set(candidates)]) {
    if (!isExecutable(c)) continue;
    if (path.basename(fs.realpathSync(c)) === 'rustup') continue;
    if (!run(c, ['--version']).ok) continue;
    return {
      language: 'rust',
      name: 'rust-analyzer',
      command: c,
      args: [],
      languageId: 'rust',
      // Build scripts and proc macros would compile the project: context needs names, not builds.
      initializationOptions: () => ({ cargo: { buildScripts: { enable: false } }, procMacro: { enable: false }, checkOnSave: false, check: { command: 'check' } }),
    };
  }
  throw new ServerMissingError('rust', 'rust-analyzer', install, 'no working rust-analyzer (the rustup proxy in ~/.cargo/bin does not count)');
}

function resolveIntelephense(): ServerSpec {
  const install = 'npm install --save-dev intelephense';
  let main: string;
  try {
    main = require.resolve('intelephense', { paths: [projectRoot(), __dirname] });
  } catch {
    throw new ServerMissingError('php', 'intelephense', install, 'the npm package intelephense is not installed');
  }
  return {
    language: 'php',
    name: 'intelephense',
    command: process.execPath,
    args: [main, '--stdio'],
    // Inside the editor process.execPath is Electron; this makes it behave as Node.
    env: { ELECTRON_RUN_AS_NODE: '1' },
    languageId: 'php',
    // Its caches would go to ~/.config/intelephense: the scratch folder keeps runs independent.
    initializationOptions: (scratch: string) => ({ storagePath: path.join(scratch, 'storage'), globalStoragePath: path.join(scratch, 'global'), clearCache: true }),
    settings: { intelephense: { telemetry: { enabled: false } } },
  };
}

function resolveTypeProf(): ServerSpec {
  const install = 'gem install typeprof -v "~> 0.21" (Debian ruby 3.1 ships it)';
  const r = run('ruby', ['-e', 'print Gem::Specification.find_by_name("typeprof").gem_dir']);
  if (!r.ok) throw new ServerMissingError('ruby', 'TypeProf', install, r.out.includes('MissingSpec') ? 'the typeprof gem is not installed' : 'ruby did not run');
  const exe = path.join(r.out.trim(), 'exe', 'typeprof');
  if (!fs.existsSync(exe)) throw new ServerMissingError('ruby', 'TypeProf', install, `${exe} does not exist`);
  return { language: 'ruby', name: 'TypeProf', command: 'ruby', args: [exe, '--lsp', '--stdio'], languageId: 'ruby' };
}

function resolveJuliaServer(): ServerSpec {
  const pkg = `julia -e 'using Pkg; Pkg.add("LanguageServer")'`;
  if (!run('julia', ['--version']).ok) {
    throw new ServerMissingError('julia', 'LanguageServer.jl', `Julia from https://julialang.org/downloads, then ${pkg}`, 'julia is not installed on this machine');
  }
  if (!run('julia', ['--startup-file=no', '-e', 'using LanguageServer']).ok) {
    throw new ServerMissingError('julia', 'LanguageServer.jl', pkg, 'the Julia package LanguageServer is not installed');
  }
  return {
    language: 'julia',
    name: 'LanguageServer.jl',
    command: 'julia',
    args: ['--startup-file=no', '--history-file=no', '-e', 'using LanguageServer; runserver()'],
    languageId: 'julia',
  };
}

/** The server for a language, or a ServerMissingError naming what to install. */
export function resolveServer(language: LanguageId): ServerSpec {
  switch (language) {
    case 'go':
      return resolveGopls();
    case 'rust':
      return resolveRustAnalyzer();
    case 'php':
      return resolveIntelephense();
    case 'ruby':
      return resolveTypeProf();
    case 'julia':
      return resolveJuliaServer();
  }
}
