import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type Dockerode from 'dockerode';
import { CONTAINER_LABEL, type DockerExecutor } from '../../src/engine/execute/docker';
import type { ExecLimits, PhaseCommand, PhaseResult, Session } from '../../src/engine/execute/types';

/** Reused containers' tests (docker-pool, hostile-container-runner): small limits, a small output cap. */
export const POOL_LIMITS: ExecLimits = { memoryBytes: 256 * 1024 ** 2, cpus: 1, pids: 64, outputBytes: 64 * 1024 };

/** A test phase: untrusted, as the test user, the copy read-only to it but for `writable`. */
export function testPhase(script: string, cwd: string, timeoutMs = 20_000): PhaseCommand {
  return { phase: 'test', argv: ['sh', '-c', script], cwd, env: {}, timeoutMs, sandboxWritable: [path.join(cwd, '.xrt', 'tmp')] };
}

/** A trusted phase (compile, warm-up): as the container's own user. */
export function rootPhase(script: string, cwd: string): PhaseCommand {
  return { phase: 'compile', argv: ['sh', '-c', script], cwd, env: {}, timeoutMs: 20_000 };
}

export async function containersOfSession(docker: Dockerode, sessionId: string): Promise<Dockerode.ContainerInfo[]> {
  return docker.listContainers({ all: true, filters: JSON.stringify({ label: [`${CONTAINER_LABEL.session}=${sessionId}`] }) });
}

/** One slot the way evaluate.ts runs it: lease, sandbox in the lease's folder, phases, folder removed, lease closed. */
export async function poolSlot<T>(ex: DockerExecutor, image: string, body: (s: Session, dir: string) => Promise<T>): Promise<{ result: T; container: string; dir: string }> {
  const lease = await ex.lease({ language: 'ruby', limits: POOL_LIMITS, image });
  // Every slot of a reused container at one path (its caches hold absolute paths), as createSandbox makes it.
  assert.ok(lease.sandboxDir && path.dirname(lease.sandboxDir) === lease.sandboxParent, 'a reused container names the path of its slots');
  const dir = lease.sandboxDir;
  fs.mkdirSync(dir, { mode: 0o700 });
  fs.mkdirSync(path.join(dir, '.xrt', 'tmp'), { recursive: true });
  try {
    const s = await lease.open(dir);
    const result = await body(s, dir);
    return { result, container: (s as unknown as { id: string }).id, dir };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await lease.close();
  }
}

/** The phase's output, once it exited 0. */
export function okOutput(r: PhaseResult): string {
  assert.equal(r.exitCode, 0, r.output);
  return r.output.trim();
}
