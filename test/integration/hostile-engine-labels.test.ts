import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import { CONTAINER_LABEL, ownerLabels, reapStaleContainers } from '../../src/engine/execute/docker';
import type { ConnectedEngine } from '../../src/engine/execute/docker-engine';
import { baseImageForTests, engineForTests } from '../helpers/engine';

/**
 * Container labels are input: any process with the engine's socket may write them (another user's
 * run, a tool, a compromised worker). The reaper that every run starts with reads
 * `xrepotest.owner-container` and asks the engine about it; a value that is not a container id must
 * never become part of a request path (`../../info` would ask another endpoint, whose answer reads as
 * "not running") and so must never get a live run's container removed.
 */
describe('hostile container labels (the reaper, real engine)', function () {
  this.timeout(120_000);
  let engine: ConnectedEngine;
  let image: string;

  before(async function () {
    engine = await engineForTests(this);
    image = await baseImageForTests(this);
  });

  for (const value of ['../../info', '../../containers/json?all=1#', 'abc', `${'a'.repeat(64)}/../../version`]) {
    it(`keeps a live run's container whose owner-container label is ${JSON.stringify(value)}: the host and pid rule decides`, async () => {
      // Owned by this process, alive, on this host: only a forged owner-container could get it removed.
      const labels = { ...ownerLabels(randomUUID()), [CONTAINER_LABEL.ownerHost]: os.hostname(), [CONTAINER_LABEL.ownerPid]: String(process.pid), [CONTAINER_LABEL.ownerContainer]: value };
      const c = await engine.docker.createContainer({ Image: image, Cmd: ['sleep', 'infinity'], Labels: labels, HostConfig: { NetworkMode: 'none' } });
      try {
        const removed = await reapStaleContainers(engine.docker);
        assert.ok(!removed.includes(c.id), 'a live run\'s container was reaped on a forged label');
        await c.inspect();
      } finally {
        await c.remove({ force: true }).catch(() => undefined);
      }
    });
  }
});
