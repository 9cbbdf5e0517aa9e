import * as fs from 'node:fs';
import type Dockerode from 'dockerode';

/**
 * The container this process runs in, when it runs in one on the engine it starts test containers
 * on (a worker of deploy/compose.yaml, on the host's engine through its socket). Its test containers
 * carry that id: a worker container that is gone (killed, `compose down` past its grace) cannot remove
 * them, and its host name and pid mean nothing outside it, but any run on the same engine can see that
 * the owner container is gone and remove what it left (reapStaleContainers).
 */

/** The 64-hex id in the source of the `/etc/hostname` bind mount the engine gives a container (Docker and Podman both do). */
export function containerIdFromMountinfo(mountinfo: string): string | null {
  for (const line of mountinfo.split('\n')) {
    const fields = line.split(' ');
    // mountinfo: id parent major:minor root mount-point …
    if (fields[4] !== '/etc/hostname') continue;
    const m = /\/([0-9a-f]{64})\//.exec(fields[3] ?? '');
    if (m) return m[1];
  }
  return null;
}

let own: Promise<string | null> | undefined;
let known: string | null = null;

/**
 * This process's container, when the engine knows it as a running container (an id of another engine
 * would make every run on this one take the owner for gone); null otherwise. Asked once per process.
 */
export function ownContainerOn(docker: Dockerode): Promise<string | null> {
  own ??= (async () => {
    let mountinfo: string;
    try {
      mountinfo = fs.readFileSync('/proc/self/mountinfo', 'utf8');
    } catch {
      return null;
    }
    const id = containerIdFromMountinfo(mountinfo);
    if (!id) return null;
    try {
      const info = await docker.getContainer(id).inspect();
      return info.State?.Running ? id : null;
    } catch {
      return null;
    }
  })().then((id) => (known = id));
  return own;
}

/** The id found by `ownContainerOn`, for the labels of containers started after it answered. */
export function ownContainerId(): string | null {
  return known;
}

/** A full container id: the only label value that is asked of the engine (it becomes part of a request path). */
export const CONTAINER_ID = /^[0-9a-f]{64}$/;

/** Whether the owner container is still running; on any doubt (the engine did not answer) it is taken to be. */
export async function ownerContainerRunning(docker: Dockerode, id: string): Promise<boolean> {
  if (!CONTAINER_ID.test(id)) throw new Error(`not a container id: ${JSON.stringify(id.slice(0, 80))}`);
  try {
    const info = await docker.getContainer(id).inspect();
    return info.State?.Running === true;
  } catch (e) {
    return (e as { statusCode?: number }).statusCode !== 404;
  }
}
