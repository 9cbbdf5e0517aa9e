import { resolveServer } from './context/lsp/commands';
import { confinesTests } from './execute/docker';
import { connectEngine } from './execute/docker-engine';
import { describeHostView, planHostView, probeHostFacts } from './execute/host-view';
import { findLanguageImage } from './execute/images';
import { LocalExecutor } from './execute/local';
import { LANGUAGE_IDS, type LanguageId } from './parse/grammars';

export interface LanguageReadiness {
  language: LanguageId;
  /** null: the local executor can run it; else why not and what to install. */
  local: string | null;
  /** The docker image to run it in, or why there is none. */
  docker: { image: string } | { missing: string };
  /** The headless language server for LSP context, or what to install. */
  languageServer: { command: string } | { missing: string };
}

export interface EnvironmentReport {
  /** `local: bubblewrap …` or its warning. */
  localIsolation: string;
  /** What a generated test can see and change, per executor, one line each. */
  exposes: { local: string[]; docker: string[] };
  /** The Docker Engine API that answered (Docker or Podman), or why none did. */
  engine: { description: string } | { missing: string };
  languages: LanguageReadiness[];
  /** What to install, one line each; empty when everything is there. */
  missing: string[];
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
  if (!local.isolated) missing.push('bubblewrap (Debian: apt-get install bubblewrap): without it the local executor cannot stop network access or writes outside the copy');
  let engine: EnvironmentReport['engine'];
  let docker: Awaited<ReturnType<typeof connectEngine>> | null = null;
  try {
    docker = await connectEngine();
    engine = { description: `${docker.engine} at ${docker.endpoint}` };
  } catch (e) {
    engine = { missing: (e as Error).message.split('\n')[0] };
    missing.push('a Docker Engine API (Docker, or Podman: scripts/podman-service.sh start) for the docker executor');
  }
  const languages: LanguageReadiness[] = [];
  for (const language of LANGUAGE_IDS) {
    const localReason = await local.unavailable(language);
    if (localReason) missing.push(localReason);
    let image: LanguageReadiness['docker'] = { missing: 'no Docker Engine API' };
    if (docker) {
      const found = await findLanguageImage(docker.docker, language).catch(() => undefined);
      image = found ? { image: found } : { missing: `run \`xrepotest images build --lang ${language}\`` };
    }
    let languageServer: LanguageReadiness['languageServer'];
    try {
      const spec = resolveServer(language);
      languageServer = { command: [spec.command, ...spec.args].join(' ') };
    } catch (e) {
      languageServer = { missing: (e as Error).message.split('\n').slice(-1)[0] };
    }
    languages.push({ language, local: localReason, docker: image, languageServer });
  }
  return { localIsolation, exposes: { local: localExposure(local.isolated), docker: dockerExposure() }, engine, languages, missing };
}

/** The report as lines for a terminal or an output channel. */
export function formatEnvironment(r: EnvironmentReport): string {
  const lines = [
    `local executor: ${r.localIsolation}`,
    '  what a generated test sees of the host:',
    ...r.exposes.local.map((l) => `    ${l}`),
    `container engine: ${'description' in r.engine ? r.engine.description : `none (${r.engine.missing})`}`,
    '  what a generated test sees (docker executor):',
    ...r.exposes.docker.map((l) => `    ${l}`),
  ];
  for (const l of r.languages) {
    const docker = 'image' in l.docker ? l.docker.image : `no image (${l.docker.missing})`;
    const lsp = 'command' in l.languageServer ? 'language server ok' : `no language server (${l.languageServer.missing})`;
    lines.push(`  ${l.language.padEnd(5)}  local ${l.local ? 'missing' : 'ok'}; docker ${docker}; ${lsp}`);
  }
  if (r.missing.length) lines.push('to install:', ...r.missing.map((m) => `  - ${m}`));
  else lines.push('nothing missing');
  return lines.join('\n');
}
