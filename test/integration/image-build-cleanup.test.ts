import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type Dockerode from 'dockerode';
import { buildEnvImage, ImageBuildError } from '../../src/engine/execute/images';
import { engineForTests, languageImageForTests, stopTestEngine } from '../helpers/engine';

after(stopTestEngine);

/**
 * Every container the engine holds, build containers included, but the test containers of other
 * xrepotest processes (labelled with their owner: another run may share the engine and start some
 * meanwhile). Podman's Docker-compatible listing leaves out the build's (Buildah's "working
 * containers", mounted while they exist): its own API lists them as "external". Docker lists an
 * intermediate container like any other.
 */
async function allContainers(docker: Dockerode): Promise<string[]> {
  type Listed = { Id: string; Labels?: Record<string, string> | null };
  const libpod = await new Promise<unknown>((resolve) => {
    docker.modem.dial({ path: '/v4.0.0/libpod/containers/json?', method: 'GET', statusCodes: { 200: true }, options: { all: true, external: true } }, (err, data) => resolve(err ? null : data));
  });
  const listed: Listed[] = Array.isArray(libpod) ? libpod : await docker.listContainers({ all: true });
  const others = (c: Listed): boolean => {
    const owner = c.Labels?.['xrepotest.owner-pid'];
    return owner !== undefined && (owner !== String(process.pid) || c.Labels?.['xrepotest.owner-host'] !== os.hostname());
  };
  return listed.filter((c) => !others(c)).map((c) => c.Id);
}

describe('image builds leave nothing behind when they fail', function () {
  const made: string[] = [];
  after(() => {
    for (const d of made) fs.rmSync(d, { recursive: true, force: true });
  });

  it('an environment image whose dependency install fails leaves no build container (nor, on Podman, its mount)', async function () {
    const { docker } = await engineForTests(this);
    const goImage = await languageImageForTests(this, 'go');
    this.timeout(5 * 60_000);
    // A module no proxy can serve: `go mod download` fails in the build's RUN step, registry or not.
    const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-failing-env-'));
    made.push(repo);
    fs.writeFileSync(path.join(repo, 'go.mod'), 'module example.com/failing\n\ngo 1.21\n\nrequire xrepotest.invalid/none v1.0.0\n');
    fs.writeFileSync(path.join(repo, 'main.go'), 'package failing\n');
    const before = new Set(await allContainers(docker));
    await assert.rejects(buildEnvImage(docker, repo, 'go', { languageImage: goImage, force: true }), (e: unknown) => e instanceof ImageBuildError);
    const left = (await allContainers(docker)).filter((id) => !before.has(id));
    assert.deepEqual(left, [], `the failed build left containers behind: ${left.join(', ')}`);
  });
});
