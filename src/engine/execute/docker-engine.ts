import * as fs from 'node:fs';
import * as path from 'node:path';
import Dockerode from 'dockerode';

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

const PING_TIMEOUT_MS = 3000;

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

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}

/** `podman 4.3.1 (API 1.41)` from the Engine API's version document. */
export function describeEngine(v: Dockerode.DockerVersion): string {
  const components = (v as { Components?: Array<{ Name: string; Version: string }> }).Components ?? [];
  const podman = components.find((c) => /podman/i.test(c.Name));
  const name = podman ? 'podman' : 'docker';
  const version = podman?.Version ?? v.Version;
  return `${name} ${version} (API ${v.ApiVersion})`;
}

async function tryCandidate(c: Candidate): Promise<ConnectedEngine | string> {
  if (c.options.socketPath && !fs.existsSync(c.options.socketPath)) return 'no such socket';
  const docker = new Dockerode({ ...c.options, timeout: undefined });
  try {
    await withTimeout(docker.ping(), PING_TIMEOUT_MS, 'ping');
    const version = await withTimeout(docker.version(), PING_TIMEOUT_MS, 'version');
    return { docker, endpoint: c.endpoint, engine: describeEngine(version) };
  } catch (e) {
    return (e as Error).message.split('\n')[0];
  }
}

/** One endpoint (`unix:///path` or `tcp://host:port`), or an error saying why it does not answer. */
export async function connectEndpoint(endpoint: string): Promise<ConnectedEngine> {
  const c = fromDockerHost(endpoint);
  if (!c) throw new Error(`not an engine address: ${endpoint} (expected unix:// or tcp://)`);
  const r = await tryCandidate(c);
  if (typeof r === 'string') throw new Error(`no Docker Engine API at ${endpoint}: ${r}`);
  return r;
}

/**
 * The first Docker Engine API that answers. Fails listing every place tried and why, with how to
 * start an engine, because "connect ENOENT" alone does not tell a user what to do.
 */
export async function connectEngine(): Promise<ConnectedEngine> {
  const tried: string[] = [];
  for (const c of engineCandidates()) {
    const r = await tryCandidate(c);
    if (typeof r !== 'string') return r;
    tried.push(`  ${c.endpoint}: ${r}`);
  }
  throw new Error(
    [
      'xrepotest: no Docker Engine API answered. Tried:',
      ...tried,
      'Start one of:',
      '  Docker: start Docker Desktop, or `sudo systemctl start docker` (or set DOCKER_HOST)',
      `  Podman: \`podman system service --time=0 unix://${projectPodmanSocket()} &\`,`,
      '          or `scripts/podman-service.sh start` in the xrepotest repository (it also sets runc and rlimits)',
    ].join('\n'),
  );
}
