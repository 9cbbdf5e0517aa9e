import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import type Dockerode from 'dockerode';
import { connectEndpoint, type ConnectedEngine } from '../../src/engine/execute/docker-engine';
import { engineForTests } from './engine';
import { REPO_ROOT } from './paths';
import { skipBecause } from './skip';

export const REGISTRY_BIN = '/usr/bin/docker-registry';
const SERVICE_SCRIPT = path.join(REPO_ROOT, 'scripts', 'podman-service.sh');

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

function registryAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/v2/', timeout: 1000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
  });
}

/** Follows a build or push stream; failures come as events in a 200 answer. */
export function follow(docker: Dockerode, stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve, reject) => {
    let failure: string | undefined;
    docker.modem.followProgress(
      stream,
      (err: Error | null) => (err ? reject(err) : failure ? reject(new Error(failure)) : resolve()),
      (ev: { error?: string; errorDetail?: { message?: string } }) => {
        failure ??= ev.errorDetail?.message ?? ev.error;
      },
    );
  });
}

export interface LocalRegistry {
  /** `127.0.0.1:<port>`: the registry prefix of image names. */
  prefix: string;
  /** An engine that may pull from it over plain HTTP. */
  engine: ConnectedEngine;
  /** The engine's endpoint as DOCKER_HOST, for code that connects by itself. */
  dockerHost: string;
  stop(): void;
}

/**
 * `docker-registry` on loopback, under `dir`, and an engine that may use it: Docker trusts
 * 127.0.0.0/8 by itself; Podman's compat pull has no TLS switch, so a service of our own is started
 * with a registries.conf marking the registry insecure. Skips the test, saying why, when either is missing.
 */
export async function startLocalRegistry(ctx: Mocha.Context, dir: string): Promise<LocalRegistry> {
  if (!fs.existsSync(REGISTRY_BIN)) skipBecause(ctx, `${REGISTRY_BIN} is missing (apt-get install docker-registry)`);
  const shared = await engineForTests(ctx);
  const port = await freePort();
  fs.mkdirSync(dir, { recursive: true });
  const config = path.join(dir, 'registry.yml');
  fs.writeFileSync(config, ['version: 0.1', 'log:', '  level: warn', 'storage:', '  filesystem:', `    rootdirectory: ${path.join(dir, 'registry-data')}`, 'http:', `  addr: 127.0.0.1:${port}`, ''].join('\n'));
  const registry: ChildProcess = spawn(REGISTRY_BIN, ['serve', config], { stdio: 'ignore' });
  let serviceDir: string | undefined;
  const stop = (): void => {
    if (registry.pid) registry.kill('SIGTERM');
    if (serviceDir) spawnSync(SERVICE_SCRIPT, ['stop'], { env: { ...process.env, XRT_PODMAN_DIR: serviceDir }, stdio: 'ignore' });
  };
  let up = false;
  for (let i = 0; i < 100 && !up; i++) {
    up = await registryAnswers(port);
    if (!up) await new Promise((r) => setTimeout(r, 100));
  }
  if (!up) {
    stop();
    skipBecause(ctx, `docker-registry did not answer on 127.0.0.1:${port}`);
  }
  if (!shared.engine.startsWith('podman')) return { prefix: `127.0.0.1:${port}`, engine: shared, dockerHost: shared.endpoint, stop };

  fs.writeFileSync(path.join(dir, 'registries.conf'), `[[registry]]\nlocation = "127.0.0.1:${port}"\ninsecure = true\n`);
  serviceDir = path.join(dir, 'podman');
  const r = spawnSync(SERVICE_SCRIPT, ['start'], {
    env: { ...process.env, XRT_PODMAN_DIR: serviceDir, CONTAINERS_REGISTRIES_CONF: path.join(dir, 'registries.conf') },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (r.status !== 0) {
    stop();
    skipBecause(ctx, `a Podman service with the test's registries.conf did not start: ${r.stderr}`);
  }
  const dockerHost = `unix://${r.stdout.trim()}`;
  return { prefix: `127.0.0.1:${port}`, engine: await connectEndpoint(dockerHost), dockerHost, stop };
}

/** Builds `reference` from a Dockerfile and context files, pushes it, and removes the local copy (so a pull must fetch it). */
export async function pushImage(docker: Dockerode, context: string, reference: string): Promise<void> {
  await follow(docker, await docker.buildImage({ context, src: fs.readdirSync(context) }, { t: reference }));
  // tlsVerify is Podman's push switch for a plain-HTTP registry; Docker ignores it.
  await follow(docker, (await docker.getImage(reference).push({ tlsVerify: false } as Dockerode.ImagePushOptions)) as NodeJS.ReadableStream);
  await docker.getImage(reference).remove();
}
