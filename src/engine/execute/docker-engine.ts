import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import Dockerode from 'dockerode';
import { ENGINE_TIMEOUT_NAMES, engineConnectOptions, type EngineConnectOptions } from './engine-connection';

export { configureEngineConnection, DEFAULT_ENGINE_TIMEOUT_MS, type EngineConnectOptions } from './engine-connection';

export interface ConnectedEngine {
  docker: Dockerode;
  /** Where it answered, e.g. `unix:///var/run/docker.sock`. */
  endpoint: string;
  /** e.g. `podman 4.3.1 (API 1.41)` or `docker 27.3.1 (API 1.47)`. */
  engine: string;
}

interface Candidate {
  endpoint: string;
  options: Dockerode.DockerOptions;
}

/** Silence after which a wait is said (then again every this long), so a slow engine is never a silent stall. */
const WAIT_NOTICE_MS = 2000;

/** Why an endpoint gave no engine: nothing there, there but too slow, or there and answering wrongly. */
interface NoEngine {
  kind: 'absent' | 'slow' | 'error';
  why: string;
}

/**
 * The socket `scripts/podman-service.sh` serves (same rule as the script: XRT_PODMAN_DIR, else
 * $XDG_RUNTIME_DIR, else /tmp, in a folder named after the uid).
 */
export function projectPodmanSocket(): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  const state = process.env.XRT_PODMAN_DIR ?? path.join(process.env.XDG_RUNTIME_DIR || '/tmp', `xrepotest-podman-${uid}`);
  return path.join(state, 'podman.sock');
}

function fromDockerHost(host: string): Candidate | undefined {
  if (host.startsWith('unix://')) return { endpoint: host, options: { socketPath: host.slice('unix://'.length) } };
  if (host.startsWith('tcp://') || host.startsWith('http://') || host.startsWith('https://')) {
    const url = new URL(host.replace(/^tcp:/, 'http:'));
    const tls = host.startsWith('https://') || process.env.DOCKER_TLS_VERIFY === '1';
    const options: Dockerode.DockerOptions = {
      host: url.hostname,
      port: url.port || (tls ? 2376 : 2375),
      protocol: tls ? 'https' : 'http',
    };
    const certDir = process.env.DOCKER_CERT_PATH;
    if (tls && certDir) {
      options.ca = fs.readFileSync(path.join(certDir, 'ca.pem'));
      options.cert = fs.readFileSync(path.join(certDir, 'cert.pem'));
      options.key = fs.readFileSync(path.join(certDir, 'key.pem'));
    }
    return { endpoint: host, options };
  }
  return undefined;
}

/** In order of preference: what the user asked for, Docker's socket, then Podman's usual ones. */
export function engineCandidates(): Candidate[] {
  const list: Candidate[] = [];
  const dockerHost = process.env.DOCKER_HOST;
  if (dockerHost) {
    const c = fromDockerHost(dockerHost);
    if (c) list.push(c);
  }
  const sockets = ['/var/run/docker.sock'];
  if (process.env.XDG_RUNTIME_DIR) sockets.push(path.join(process.env.XDG_RUNTIME_DIR, 'podman', 'podman.sock'));
  sockets.push('/run/podman/podman.sock', projectPodmanSocket());
  for (const s of sockets) {
    if (!list.some((c) => c.options.socketPath === s)) list.push({ endpoint: `unix://${s}`, options: { socketPath: s } });
  }
  return list;
}

/** `podman 4.3.1 (API 1.41)` from the Engine API's version document. */
export function describeEngine(v: Dockerode.DockerVersion): string {
  const components = (v as { Components?: Array<{ Name: string; Version: string }> }).Components ?? [];
  const podman = components.find((c) => /podman/i.test(c.Name));
  const name = podman ? 'podman' : 'docker';
  const version = podman?.Version ?? v.Version;
  return `${name} ${version} (API ${v.ApiVersion})`;
}

/** An error of connecting that means nothing is there (no socket, nothing listening, no route). */
function absentBecause(e: NodeJS.ErrnoException): string | undefined {
  switch (e.code) {
    case 'ENOENT':
      return 'no such socket';
    case 'ECONNREFUSED':
      return 'connection refused (nothing listens there)';
    case 'ENOTSOCK':
      return 'not a socket';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ENOTFOUND':
      return `unreachable (${e.code})`;
    default:
      return undefined;
  }
}

/**
 * Does the endpoint accept a connection? Told apart from answering: an engine that accepts and then
 * says nothing in time is slow (or stuck), not absent. A TCP endpoint that neither accepts nor refuses
 * within the limit is unreachable: absent too.
 */
function accepts(c: Candidate, ms: number): Promise<NoEngine | null> {
  return new Promise((resolve) => {
    const socket = c.options.socketPath ? net.connect(c.options.socketPath) : net.connect(Number(c.options.port), String(c.options.host));
    const done = (r: NoEngine | null): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => done({ kind: 'absent', why: `no connection within ${Math.round(ms / 1000)} s (unreachable)` }), ms);
    socket.once('connect', () => done(null));
    socket.once('error', (e: NodeJS.ErrnoException) => {
      const absent = absentBecause(e);
      done(absent ? { kind: 'absent', why: absent } : { kind: 'error', why: e.message });
    });
  });
}

/**
 * `what` within the limit, saying every few seconds that the endpoint accepted and has not answered
 * yet. At the limit the request is aborted: a request left pending on a stuck engine would keep the
 * process alive until the engine answered, if ever.
 */
async function answered<T>(ask: (signal: AbortSignal) => Promise<T>, endpoint: string, what: string, limitMs: number, onWait: ((m: string) => void) | undefined): Promise<T | NoEngine> {
  const started = Date.now();
  const abort = new AbortController();
  const notices = onWait
    ? setInterval(() => {
        const waited = Math.round((Date.now() - started) / 1000);
        onWait(`the Docker Engine API at ${endpoint} accepted the connection but has not answered its ${what} after ${waited} s: waiting up to ${Math.round(limitMs / 1000)} s (${ENGINE_TIMEOUT_NAMES})`);
      }, WAIT_NOTICE_MS)
    : undefined;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<NoEngine>((resolve) => {
    timer = setTimeout(() => {
      abort.abort();
      resolve({ kind: 'slow', why: `accepts connections but did not answer its ${what} within ${Math.round(limitMs / 1000)} s: the engine runs but is slow or stuck (Podman under load can take several seconds; wait longer with ${ENGINE_TIMEOUT_NAMES})` });
    }, limitMs);
  });
  const asked = ask(abort.signal);
  asked.catch(() => undefined); // rejected by the abort after the limit won the race
  try {
    return await Promise.race([asked, late]);
  } catch (e) {
    return { kind: 'error', why: `answered its ${what} with an error: ${(e as Error).message.split('\n')[0]}` };
  } finally {
    clearTimeout(timer);
    if (notices) clearInterval(notices);
  }
}

/** dockerode's ping and version take an abort signal (docker-modem's `abortSignal`); its types leave the options out. */
interface Abortable {
  ping(opts: { abortSignal: AbortSignal }): Promise<unknown>;
  version(opts: { abortSignal: AbortSignal }): Promise<Dockerode.DockerVersion>;
}

const isNoEngine = (r: unknown): r is NoEngine => typeof r === 'object' && r !== null && 'kind' in r && 'why' in r;

async function tryCandidate(c: Candidate, options: EngineConnectOptions): Promise<ConnectedEngine | NoEngine> {
  const { timeoutMs: limitMs, onWait } = engineConnectOptions(options);
  if (c.options.socketPath && !fs.existsSync(c.options.socketPath)) return { kind: 'absent', why: 'no such socket' };
  const refused = await accepts(c, limitMs);
  if (refused) return refused;
  const docker = new Dockerode({ ...c.options, timeout: undefined });
  const client = docker as unknown as Abortable;
  const ping = await answered((abortSignal) => client.ping({ abortSignal }), c.endpoint, 'ping', limitMs, onWait);
  if (isNoEngine(ping)) return ping;
  const version = await answered((abortSignal) => client.version({ abortSignal }), c.endpoint, 'version', limitMs, onWait);
  if (isNoEngine(version)) return version;
  return { docker, endpoint: c.endpoint, engine: describeEngine(version) };
}

/** One endpoint (`unix:///path` or `tcp://host:port`), or an error saying why it does not answer. */
export async function connectEndpoint(endpoint: string, options: EngineConnectOptions = {}): Promise<ConnectedEngine> {
  const c = fromDockerHost(endpoint);
  if (!c) throw new Error(`not an engine address: ${endpoint} (expected unix:// or tcp://)`);
  const r = await tryCandidate(c, options);
  if (isNoEngine(r)) throw new EngineUnavailableError(r.kind === 'slow' ? `the Docker Engine API at ${endpoint} ${r.why}` : `no Docker Engine API at ${endpoint}: ${r.why}`, r.kind === 'slow');
  return r;
}

/** No engine to use; `slow` when one accepted connections but did not answer in time (not absent). */
export class EngineUnavailableError extends Error {
  constructor(
    message: string,
    readonly slow: boolean,
  ) {
    super(message);
  }
}

/**
 * The first Docker Engine API that answers. Fails listing every place tried and why, with how to
 * start an engine, because "connect ENOENT" alone does not tell a user what to do.
 */
export async function connectEngine(options: EngineConnectOptions = {}): Promise<ConnectedEngine> {
  const tried: string[] = [];
  const slow: string[] = [];
  for (const c of engineCandidates()) {
    const r = await tryCandidate(c, options);
    if (!isNoEngine(r)) return r;
    tried.push(`  ${c.endpoint}: ${r.why}`);
    if (r.kind === 'slow') slow.push(c.endpoint);
  }
  // A slow engine is not an absent one: starting another would not help, waiting longer would.
  const headline = slow.length
    ? `xrepotest: a Docker Engine API runs at ${slow.join(', ')} but did not answer in time (slow or stuck, not absent). Tried:`
    : 'xrepotest: no Docker Engine API answered. Tried:';
  throw new EngineUnavailableError(
    [
      headline,
      ...tried,
      'Start one of:',
      '  Docker: start Docker Desktop, or `sudo systemctl start docker` (or set DOCKER_HOST)',
      `  Podman: \`podman system service --time=0 unix://${projectPodmanSocket()} &\`,`,
      '          or `scripts/podman-service.sh start` in the xrepotest repository (it also sets runc and rlimits)',
    ].join('\n'),
    slow.length > 0,
  );
}
