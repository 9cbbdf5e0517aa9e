import { strict as assert } from 'node:assert';
import type Dockerode from 'dockerode';
import { createExecutor, EXECUTOR_KINDS, executorKindList, isExecutorKind, UnknownExecutorError } from '../../src/engine/execute/create-executor';
import { DockerExecutor } from '../../src/engine/execute/docker';
import { environmentImages } from '../../src/engine/execute/environment-images';
import type { Executor, ExecutorCapabilities } from '../../src/engine/execute/types';

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

  it('a docker executor runs images: no host toolchains, no host fetch, environment images built', () => {
    const e = new DockerExecutor({ docker: {} as Dockerode, endpoint: 'unix:///nowhere', engine: 'test' });
    assert.equal(e.kind, 'docker');
    assert.equal(e.capabilities.hostToolchains, false);
    assert.equal(e.capabilities.hostFetch, undefined);
    assert.equal(typeof e.capabilities.buildEnvironmentImage, 'function');
  });

  it('environment images come from the capability: built once per repository and language, said once; none without it', async () => {
    const built: string[] = [];
    const lines: string[] = [];
    const fake = (capabilities: ExecutorCapabilities): Executor => ({
      kind: 'fake',
      capabilities,
      info: () => Promise.reject(new Error('not asked')),
      open: () => Promise.reject(new Error('not asked')),
    });
    const images = fake({ hostToolchains: false, buildEnvironmentImage: async (repoDir, language) => (built.push(`${language} ${repoDir}`), `env-${language}-${built.length}`) });
    const imageFor = environmentImages(images, undefined, (l) => lines.push(l));
    assert.equal(await imageFor('/r/a', 'go'), 'env-go-1');
    assert.equal(await imageFor('/r/a', 'go'), 'env-go-1', 'reused');
    assert.equal(await imageFor('/r/a', 'rust'), 'env-rust-2');
    assert.deepEqual(built, ['go /r/a', 'rust /r/a']);
    assert.equal(lines.length, 2);
    assert.match(lines[0], /preparing the go environment image for a/);
    assert.equal(await environmentImages(images, 'explicit:1', () => assert.fail('nothing built'))('/r/a', 'go'), 'explicit:1', 'an explicit image wins');
    const host = fake({ hostToolchains: true });
    assert.equal(await environmentImages(host, undefined, () => assert.fail('nothing built'))('/r/a', 'go'), undefined, 'no images without the capability');
  });
});
