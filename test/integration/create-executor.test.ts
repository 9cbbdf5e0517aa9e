import { strict as assert } from 'node:assert';
import { createExecutor } from '../../src/engine/execute/create-executor';
import { LocalExecutor } from '../../src/engine/execute/local';

// The local executor probes its toolchains when it starts (go env …): a process, so not the pure tier.
describe('executors: one registry, capabilities instead of classes (starting one)', () => {
  it('starts a local executor by its kind, with host toolchains and a host fetch confined by its bubblewrap', async () => {
    const e = await createExecutor('local');
    assert.ok(e instanceof LocalExecutor);
    assert.equal(e.kind, 'local');
    assert.equal(e.capabilities.hostToolchains, true);
    const local = e as LocalExecutor;
    assert.deepEqual(e.capabilities.hostFetch, { bubblewrap: local.bubblewrap, hostView: local.confinement?.hostView });
    assert.equal(e.capabilities.buildEnvironmentImage, undefined, 'the local executor runs no images');
    const unconfined = new LocalExecutor({ isolation: 'none' });
    assert.deepEqual(unconfined.capabilities.hostFetch, { bubblewrap: null, hostView: undefined });
  });
});
