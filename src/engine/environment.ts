import * as fs from 'node:fs';
import * as path from 'node:path';
import { resolveServer } from './context/lsp/commands';
import { confinesTests } from './execute/docker';
import { connectEngine } from './execute/docker-engine';
import { describeHostView, planHostView, probeHostFacts } from './execute/host-view';
import { findLanguageImage } from './execute/images';
import { LocalExecutor } from './execute/local';
import { adapterFor } from './languages';
import { LANGUAGE_IDS, type LanguageId } from './parse/grammars';

/**
 * Why a language cannot run with an executor, for people: the cause in a few words, what to do, and
 * (where there is one) a command to copy or the setting to change.
 */
export interface EnvironmentVerdict {
  /** `julia is not installed`. */
  cause: string;
  /** The status bar's few words: `julia missing`. */
  short: string;
  /** How a user fixes it on their machine (Debian/Ubuntu, macOS), or the other executor. */
  fix: string;
  /** A command to copy, when the fix is one. */
  command?: string;
  /** The editor setting that changes it (the executor). */
  setting?: string;
}

export type ExecutorKindName = 'local' | 'docker';

export interface LanguageReadiness {
  language: LanguageId;
  /** `Go`, `Julia`: how messages name it. */
  displayName: string;
  /** null: the local executor can run it; else why not and what to install. */
  local: string | null;
  /** The commands the local executor needs that are not on PATH. */
  localMissing: string[];
  /** The docker image to run it in, or why there is none. */
  docker: { image: string } | { missing: string };
  /** The headless language server for LSP context, or what to install. */
  languageServer: { command: string } | { missing: string };
  /** null where the executor can run the language; else the user's verdict. */
  verdicts: Record<ExecutorKindName, EnvironmentVerdict | null>;
}

export interface EnvironmentReport {
  /** `local: bubblewrap …` or its warning. */
  localIsolation: string;
  /** What a generated test can see and change, per executor, one line each. */
  exposes: { local: string[]; docker: string[] };
  /** The Docker Engine API that answered (Docker or Podman), or why none did (`tried`: each address and its error). */
  engine: { description: string } | { missing: string; tried?: string[] };
  languages: LanguageReadiness[];
  /** What to install, one line each, in a user's words; empty when everything is there. */
  missing: string[];
}

/** How a user starts a container engine (the docker executor's). */
export const START_CONTAINER_ENGINE =
  'start Docker (Docker Desktop on macOS; on Debian/Ubuntu `sudo systemctl start docker`) or Podman (`systemctl --user start podman.socket`; on macOS `podman machine start`), then check again';

/** The user's verdict for a language the local executor cannot run: which commands are missing, and how to install them. */
export function localVerdict(language: LanguageId, missingCommands: readonly string[]): EnvironmentVerdict | null {
  if (!missingCommands.length) return null;
  const named = missingCommands.join(' and ');
  const adapter = adapterFor(language);
  return {
    cause: `${named} ${missingCommands.length > 1 ? 'are' : 'is'} not installed`,
    short: `${named} missing`,
    fix: `install ${adapter.displayName} (${adapter.local.howToInstall}), then restart the editor or terminal so it finds ${named} on PATH; or set xrepotest.executor to docker to run ${adapter.displayName} in a container`,
    setting: 'xrepotest.executor',
  };
}

/** The commands of the language's local toolchain that are not on PATH. */
export function missingLocalCommands(language: LanguageId): string[] {
  return adapterFor(language).local.required.filter((t) => !onPath(t.cmd)).map((t) => t.cmd);
}

function onPath(cmd: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((d) => {
    if (!d) return false;
    try {
      fs.accessSync(path.join(d, cmd), fs.constants.X_OK);
      return fs.statSync(path.join(d, cmd)).isFile();
    } catch {
      return false;
    }
  });
}

/** The verdict when no container engine answered. */
export function noEngineVerdict(why?: string): EnvironmentVerdict {
  return { cause: `no container engine (Docker or Podman) answered${why ? ` (${why})` : ''}`, short: 'no container engine', fix: `${START_CONTAINER_ENGINE}; or set xrepotest.executor to local`, setting: 'xrepotest.executor' };
}

/** The verdict when the engine has no image for the language. */
export function noImageVerdict(language: LanguageId): EnvironmentVerdict {
  const name = adapterFor(language).displayName;
  const command = `xrepotest images build --lang ${language}`;
  return { cause: `the container engine has no ${name} image`, short: `no ${name} image`, fix: `build it once with the xrepotest command line: \`${command}\`; or set xrepotest.executor to local`, command, setting: 'xrepotest.executor' };
}

/**
 * An engine problem (evaluate.ts's environment outcome: its short id and its sentence) as the
 * user's verdict. A missing toolchain is said from the language's own install text; anything else
 * keeps the engine's sentence, split at its first `; ` into cause and fix.
 */
export function verdictOfProblem(problem: { cause: string; reason: string }, language: LanguageId, executor: string): EnvironmentVerdict {
  if (problem.cause === 'toolchain-missing') {
    if (executor === 'local') {
      const local = localVerdict(language, missingLocalCommands(language));
      if (local) return local;
    } else if (/no .* image/.test(problem.reason)) return noImageVerdict(language);
  }
  const [cause, ...rest] = problem.reason.split('; ');
  const fix = rest.join('; ') || 'see "XRepoTest: Check the environment"';
  // A command the sentence names (`xrepotest doctor --repo …`, `go mod download`): one to copy.
  const command = /`([^`]+)`/.exec(fix)?.[1];
  return { cause, short: problem.cause.replace(/-/g, ' '), fix, ...(command ? { command } : {}) };
}

/** The addresses tried, from connectEngine's error (`  unix:///…: ENOENT` lines after `Tried:`). */
function triedAddresses(message: string): string[] {
  const lines = message.split('\n');
  const from = lines.findIndex((l) => l.trim().endsWith('Tried:'));
  if (from < 0) return [];
  const out: string[] = [];
  for (const l of lines.slice(from + 1)) {
    if (!l.startsWith('  ') || /^\s*Start one of/.test(l)) break;
    out.push(l.trim());
  }
  return out;
}

/** The container's settings in docker.ts (`open`), in words; what the test may write depends on whether we run as root. */
function dockerExposure(): string[] {
  return [
    "read-only: nothing of the host; the image's own file system (language image, or the repository's environment image)",
    confinesTests()
      ? "writable: the sandbox copy (bind-mounted at its host path) to compile phases; to test and coverage phases (run as nobody) only the runner's folders of it; the rest of the container vanishes with it"
      : 'writable: the sandbox copy, bind-mounted at its host path, in every phase (xrepotest is not root: the test runs as the copy\'s owner); the rest of the container vanishes with it',
    "no network; no capabilities, no-new-privileges; this user's uid:gid inside (the image's user when xrepotest runs as root); memory, pids and CPU limits",
  ];
}

/** The local executor's bubblewrap view of this machine (host-view.ts), or what an unconfined run reaches. */
function localExposure(isolated: boolean): string[] {
  if (!isolated) return ['everything this user can read and write, and the network: bubblewrap is not installed'];
  return [...describeHostView(planHostView(probeHostFacts())), 'no network; no capabilities; memory and pids limits'];
}

/** What this machine can run, and what it lacks, for `xrepotest doctor` and the editor's status bar. */
export async function checkEnvironment(): Promise<EnvironmentReport> {
  const local = new LocalExecutor();
  const missing: string[] = [];
  // The isolation line is the same for every language; any one's info carries it.
  const localIsolation = (await local.info(LANGUAGE_IDS[0])).engine;
  if (!local.isolated) missing.push('bubblewrap, so the local executor can keep a test off the network and out of your files: Debian/Ubuntu `sudo apt install bubblewrap` (Linux only; on macOS use the docker executor)');
  let engine: EnvironmentReport['engine'];
  let docker: Awaited<ReturnType<typeof connectEngine>> | null = null;
  try {
    docker = await connectEngine();
    engine = { description: `${docker.engine} at ${docker.endpoint}` };
  } catch (e) {
    const message = (e as Error).message;
    const tried = triedAddresses(message);
    engine = tried.length ? { missing: 'no Docker or Podman engine answered', tried } : { missing: message.split('\n')[0].replace(/^xrepotest: /, '') };
    missing.push(`a container engine, for the docker executor only: ${START_CONTAINER_ENGINE}`);
  }
  const languages: LanguageReadiness[] = [];
  for (const language of LANGUAGE_IDS) {
    const adapter = adapterFor(language);
    const localReason = await local.unavailable(language);
    const localMissing = localReason ? missingLocalCommands(language) : [];
    const localV = localReason ? (localVerdict(language, localMissing) ?? { cause: localReason, short: 'cannot run', fix: adapter.local.howToInstall }) : null;
    if (localV) missing.push(`${adapter.displayName}, for the local executor: ${localV.cause}; ${localV.fix}`);
    let image: LanguageReadiness['docker'] = { missing: 'no container engine' };
    let dockerV: EnvironmentVerdict | null = noEngineVerdict();
    if (docker) {
      const found = await findLanguageImage(docker.docker, language).catch(() => undefined);
      image = found ? { image: found } : { missing: `run \`xrepotest images build --lang ${language}\`` };
      dockerV = found ? null : noImageVerdict(language);
    }
    let languageServer: LanguageReadiness['languageServer'];
    try {
      const spec = resolveServer(language);
      languageServer = { command: [spec.command, ...spec.args].join(' ') };
    } catch (e) {
      languageServer = { missing: (e as Error).message.split('\n').slice(-1)[0] };
    }
    languages.push({ language, displayName: adapter.displayName, local: localReason, localMissing, docker: image, languageServer, verdicts: { local: localV, docker: dockerV } });
  }
  return { localIsolation, exposes: { local: localExposure(local.isolated), docker: dockerExposure() }, engine, languages, missing };
}

export interface FormatOptions {
  /** Only these languages (the open workspace's); default: every language. */
  languages?: readonly LanguageId[];
  /** Only this executor's view (the one the user chose); default: both. */
  executor?: ExecutorKindName;
  /** Add what this project's developers need (language servers' install commands as the repository sets them up, the engine's raw messages). */
  developer?: boolean;
}

const LSP_NOTE = 'only the "lsp" context mode needs it';

/**
 * The report in a user's words, for the editor's "Check the environment" and `xrepotest doctor`:
 * for each language whether it runs here with the executor, and if not, what to install (Debian/Ubuntu,
 * macOS) or which setting to change. `developer` adds the engine's own messages.
 */
export function formatEnvironment(r: EnvironmentReport, opts: FormatOptions = {}): string {
  const executors: ExecutorKindName[] = opts.executor ? [opts.executor] : ['local', 'docker'];
  const languages = r.languages.filter((l) => !opts.languages || opts.languages.includes(l.language));
  const lines: string[] = [];
  lines.push(opts.executor ? `Executor: ${opts.executor} (setting xrepotest.executor)` : 'Executors: local (this machine\'s toolchains) and docker (container images)');
  if (opts.languages) lines.push(`Languages: ${languages.map((l) => l.displayName).join(', ') || 'none of Rust, Go, Julia, PHP or Ruby found'}`);
  for (const executor of executors) {
    lines.push('');
    if (executor === 'local') {
      lines.push(`Local executor: ${r.localIsolation.replace(/^local: /, '')}`);
      lines.push('  What a generated test sees of this machine:', ...r.exposes.local.map((l) => `    ${l}`));
    } else {
      if ('description' in r.engine) lines.push(`Container engine: ${r.engine.description}`);
      else {
        lines.push(`Container engine: ${r.engine.missing}`);
        for (const t of r.engine.tried ?? []) lines.push(`  tried ${t}`);
        lines.push(`  How to fix: ${START_CONTAINER_ENGINE}.`);
      }
      lines.push('  What a generated test sees (docker executor):', ...r.exposes.docker.map((l) => `    ${l}`));
    }
    if (executor === 'docker' && 'missing' in r.engine) {
      if (languages.length) lines.push(`  ${languages.map((l) => l.displayName).join(', ')}: can't run with the docker executor until a container engine answers`);
      continue;
    }
    for (const l of languages) {
      const v = l.verdicts[executor];
      lines.push(v ? `  ${l.displayName}: can't run here: ${v.cause}` : `  ${l.displayName}: ready${executor === 'docker' && 'image' in l.docker ? ` (image ${l.docker.image})` : ''}`);
      if (v) lines.push(`    How to fix: ${v.fix}.`);
    }
  }
  const servers = languages.filter((l) => 'missing' in l.languageServer);
  if (servers.length) {
    lines.push('', `Language servers (${LSP_NOTE}):`);
    for (const l of servers) {
      const lsp = adapterFor(l.language).lsp;
      lines.push(`  ${l.displayName}: ${lsp.serverName} not found; ${lsp.howToInstall}`);
      if (opts.developer && 'missing' in l.languageServer) lines.push(`    (developer) ${l.languageServer.missing}`);
    }
  }
  if (opts.developer) {
    lines.push('', 'Developer detail:');
    for (const l of languages) {
      const docker = 'image' in l.docker ? l.docker.image : `no image (${l.docker.missing})`;
      lines.push(`  ${l.language.padEnd(5)}  local ${l.local ?? 'ok'}; docker ${docker}`);
    }
  }
  const blocking = languages.some((l) => executors.some((e) => l.verdicts[e]));
  lines.push('', blocking ? 'After installing, restart the editor (or the terminal) so it sees the new PATH, then check again.' : 'Nothing missing for these languages.');
  return lines.join('\n');
}
