import { strict as assert } from 'node:assert';
import type Dockerode from 'dockerode';
import { createExecutor, EXECUTOR_KINDS, executorKindList, isExecutorKind, UnknownExecutorError } from '../../src/engine/execute/create-executor';
import { DockerExecutor } from '../../src/engine/execute/docker';
import { LocalExecutor } from '../../src/engine/execute/local';

describe('executors: one registry, capabilities instead of classes', () => {
  it('lists the registered kinds, and only those are kinds', () => {
    assert.deepEqual(Object.keys(EXECUTOR_KINDS).sort(), ['docker', 'local']);
    assert.equal(executorKindList(), 'docker or local');
    assert.ok(isExecutorKind('docker') && isExecutorKind('local'));
    for (const k of ['', 'Docker', 'podman', 'toString', '__proto__', 'constructor', undefined, 1]) assert.equal(isExecutorKind(k), false, String(k));
  });

  it('refuses an unknown kind naming the ones there are, without starting anything', async () => {
    for (const k of ['podman', 'toString', '__proto__']) {
      await assert.rejects(createExecutor(k), (e: unknown) => e instanceof UnknownExecutorError && /executor ".*": use docker or local/.test((e as Error).message));
    }
  });

  it('starts a local executor by its kind, with host toolchains and a host fetch confined by its bubblewrap', async () => {
    const e = await createExecutor('local');
    assert.ok(e instanceof LocalExecutor);
    assert.equal(e.kind, 'local');
    assert.equal(e.capabilities.hostToolchains, true);
    assert.deepEqual(e.capabilities.hostFetch, { bubblewrap: (e as LocalExecutor).bubblewrap });
    assert.equal(e.capabilities.buildEnvironmentImage, undefined, 'the local executor runs no images');
    const unconfined = new LocalExecutor({ isolation: 'none' });
    assert.deepEqual(unconfined.capabilities.hostFetch, { bubblewrap: null });
  });

  it('a docker executor runs images: no host toolchains, no host fetch, environment images built', () => {
    const e = new DockerExecutor({ docker: {} as Dockerode, endpoint: 'unix:///nowhere', engine: 'test' });
    assert.equal(e.kind, 'docker');
    assert.equal(e.capabilities.hostToolchains, false);
    assert.equal(e.capabilities.hostFetch, undefined);
    assert.equal(typeof e.capabilities.buildEnvironmentImage, 'function');
  });
});
