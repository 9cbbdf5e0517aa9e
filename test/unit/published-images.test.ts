import { strict as assert } from 'node:assert';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type Dockerode from 'dockerode';
import { DockerExecutor } from '../../src/engine/execute/docker';
import { connectEndpoint, type ConnectedEngine } from '../../src/engine/execute/docker-engine';
import { evaluateTest } from '../../src/engine/execute/evaluate';
import { findLanguageImage } from '../../src/engine/execute/images';
import {
  PublishedImageError,
  lockedImage,
  missingTools,
  publishedCheckout,
  publishedReference,
  pullPublishedImage,
  readImagesLock,
} from '../../src/engine/execute/published-images';
import { engineForTests } from '../helpers/engine';
import { FIXTURE_OF, fixtureTask, generatedTest } from '../helpers/evaluate';
import { REPO_ROOT, fixture } from '../helpers/paths';
import { skipBecause } from '../helpers/skip';

const REGISTRY_BIN = '/usr/bin/docker-registry';
const SERVICE_SCRIPT = path.join(REPO_ROOT, 'scripts', 'podman-service.sh');

function freePort(): Promise<number> {
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
function follow(docker: Dockerode, stream: NodeJS.ReadableStream): Promise<void> {
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

describe('published XRepoTest images from a local registry', function () {
  this.timeout(900_000);
  const language = 'go' as const;
  const repoDir = FIXTURE_OF[language];
  let tmp: string;
  let registry: ChildProcess | undefined;
  let port: number;
  let engine: ConnectedEngine;
  /** The Podman service this suite started (with its own registries.conf), if the engine is Podman. */
  let serviceDir: string | undefined;
  let lockFile: string;
  let pulledDigest: string | undefined;

  before(async function () {
    if (!fs.existsSync(REGISTRY_BIN)) skipBecause(this, `${REGISTRY_BIN} is missing (apt-get install docker-registry)`);
    const shared = await engineForTests(this);
    const languageImage = await findLanguageImage(shared.docker, language);
    if (!languageImage) skipBecause(this, `no ${language} language image here (xrepotest images build --lang ${language})`);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-published-'));
    lockFile = path.join(tmp, 'xrepotest-images.lock.json');
    port = await freePort();

    fs.writeFileSync(
      path.join(tmp, 'registry.yml'),
      [
        'version: 0.1',
        'log:',
        '  level: warn',
        'storage:',
        '  filesystem:',
        `    rootdirectory: ${path.join(tmp, 'registry-data')}`,
        'http:',
        `  addr: 127.0.0.1:${port}`,
        '',
      ].join('\n'),
    );
    registry = spawn(REGISTRY_BIN, ['serve', path.join(tmp, 'registry.yml')], { stdio: 'ignore' });
    let up = false;
    for (let i = 0; i < 100 && !up; i++) {
      up = await registryAnswers(port);
      if (!up) await new Promise((r) => setTimeout(r, 100));
    }
    if (!up) skipBecause(this, `docker-registry did not answer on 127.0.0.1:${port}`);

    if (shared.engine.startsWith('podman')) {
      // Podman's compat pull has no TLS switch: a plain-HTTP registry must be marked insecure in the
      // registries.conf the service reads at start, so this suite starts a service with its own.
      fs.writeFileSync(path.join(tmp, 'registries.conf'), `[[registry]]\nlocation = "127.0.0.1:${port}"\ninsecure = true\n`);
      serviceDir = path.join(tmp, 'podman');
      const r = spawnSync(SERVICE_SCRIPT, ['start'], {
        env: { ...process.env, XRT_PODMAN_DIR: serviceDir, CONTAINERS_REGISTRIES_CONF: path.join(tmp, 'registries.conf') },
        encoding: 'utf8',
        timeout: 60_000,
      });
      if (r.status !== 0) skipBecause(this, `a Podman service with the test's registries.conf did not start: ${r.stderr}`);
      engine = await connectEndpoint(`unix://${r.stdout.trim()}`);
    } else {
      engine = shared; // Docker treats registries on 127.0.0.0/8 as insecure by itself
    }

    // An image shaped like a published one: the language image plus a repository under /app/repo_data.
    const context = path.join(tmp, 'context');
    fs.cpSync(fixture(repoDir), path.join(context, 'repo', repoDir), { recursive: true });
    fs.writeFileSync(path.join(context, 'Dockerfile'), `FROM ${languageImage}\nCOPY repo/${repoDir} /app/repo_data/${language}/${repoDir}\n`);
    const reference = publishedReference(language, { registry: `127.0.0.1:${port}` });
    const docker = engine.docker;
    await follow(docker, await docker.buildImage({ context, src: ['Dockerfile', 'repo'] }, { t: reference }));
    // tlsVerify is Podman's push switch for a plain-HTTP registry; Docker ignores it.
    await follow(docker, (await docker.getImage(reference).push({ tlsVerify: false } as Dockerode.ImagePushOptions)) as NodeJS.ReadableStream);
    await docker.getImage(reference).remove();
  });

  after(async function () {
    if (engine && pulledDigest) await engine.docker.getImage(pulledDigest).remove({ force: true }).catch(() => undefined);
    if (registry?.pid) registry.kill('SIGTERM');
    if (serviceDir) spawnSync(SERVICE_SCRIPT, ['stop'], { env: { ...process.env, XRT_PODMAN_DIR: serviceDir }, stdio: 'ignore' });
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('pulls the image with progress, and records its digest in the lock file', async function () {
    const progress: string[] = [];
    const pulled = await pullPublishedImage(engine.docker, language, { registry: `127.0.0.1:${port}`, lockFile, onProgress: (l) => progress.push(l) });
    pulledDigest = pulled.digest;
    assert.equal(pulled.reference, `127.0.0.1:${port}/dungxg502/xrepotest-go:latest`);
    assert.match(pulled.digest, new RegExp(`^127\\.0\\.0\\.1:${port}/dungxg502/xrepotest-go@sha256:[0-9a-f]{64}$`));
    assert.ok(progress.some((l) => /pull|download|exists|complete|copying/i.test(l) && !l.startsWith('pulling ')), `no progress from the engine: ${progress.join(' | ')}`);
    assert.deepEqual(readImagesLock(lockFile).images.go, pulled);
    assert.equal(lockedImage(lockFile, language), pulled.digest);
    assert.equal(lockedImage(lockFile, 'rust'), null);
    // The digest names the image that was pulled.
    const byDigest = await engine.docker.getImage(pulled.digest).inspect();
    const byTag = await engine.docker.getImage(pulled.reference).inspect();
    assert.equal(byDigest.Id, byTag.Id);
  });

  it('copies a repository out of the image, unchanged and once, and scores a passing test inside the image', async function () {
    if (!pulledDigest) skipBecause(this, 'the pull failed');
    const docker = engine.docker;
    const imageBefore = (await docker.getImage(pulledDigest).inspect()).Id;
    const cache = path.join(tmp, 'checkouts');
    const checkout = await publishedCheckout(docker, pulledDigest, language, repoDir, cache);
    for (const f of ['go.mod', 'inventory.go', 'item.go']) {
      assert.equal(fs.readFileSync(path.join(checkout, f), 'utf8'), fs.readFileSync(path.join(fixture(repoDir), f), 'utf8'), f);
    }
    const mtime = fs.statSync(checkout).mtimeMs;
    assert.equal(await publishedCheckout(docker, pulledDigest, language, repoDir, cache), checkout);
    assert.equal(fs.statSync(checkout).mtimeMs, mtime, 'the second call reuses the copy');
    assert.equal((await docker.getImage(pulledDigest).inspect()).Id, imageBefore, 'the image is unchanged');

    assert.deepEqual(await missingTools(docker, pulledDigest, language), []);

    const task = await fixtureTask(language);
    assert.equal(task.file_path.split('/')[0], repoDir);
    const executor = await DockerExecutor.create({ engine });
    const result = await evaluateTest(task, language, generatedTest(language, 'pass'), { executor, repoDir: checkout, image: pulledDigest });
    const logs = result.phases.map((p) => `$ ${p.argv.join(' ')} -> ${p.exitCode}\n${p.output.slice(-800)}`).join('\n');
    assert.equal(result.error, undefined, result.error);
    assert.ok(result.score.passed, `${result.score.reason}\n${logs}`);
    assert.ok(result.score.coverageRatio > 0, `coverage ${result.score.coverageRatio}\n${logs}`);
  });

  it('names the tools an image lacks for our phases instead of scoring zeros', async function () {
    if (!pulledDigest) skipBecause(this, 'the pull failed');
    const gaps = await missingTools(engine.docker, pulledDigest, 'php');
    assert.ok(gaps.some((g) => /^php\b/.test(g)), gaps.join(', '));
    assert.ok(gaps.some((g) => /^pcov\b/.test(g)), gaps.join(', '));
  });

  it('a copy of a folder the image does not have is a clear error', async function () {
    if (!pulledDigest) skipBecause(this, 'the pull failed');
    await assert.rejects(publishedCheckout(engine.docker, pulledDigest, language, 'no-such-repo', path.join(tmp, 'checkouts')), (e: Error) => {
      assert.ok(e instanceof PublishedImageError);
      assert.match(e.message, /has no \/app\/repo_data\/go\/no-such-repo/);
      return true;
    });
  });

  it('a missing image and an unreachable registry are clear errors, and record nothing', async function () {
    const before = fs.existsSync(lockFile) ? fs.readFileSync(lockFile, 'utf8') : null;
    await assert.rejects(pullPublishedImage(engine.docker, 'rust', { registry: `127.0.0.1:${port}`, lockFile }), (e: Error) => {
      assert.ok(e instanceof PublishedImageError);
      assert.match(e.message, /xrepotest-rust:latest does not exist/);
      return true;
    });
    const closed = await freePort(); // nothing listens there
    await assert.rejects(pullPublishedImage(engine.docker, 'go', { registry: `127.0.0.1:${closed}`, lockFile }), (e: Error) => {
      assert.ok(e instanceof PublishedImageError);
      assert.match(e.message, /registry of .* cannot be reached/);
      return true;
    });
    assert.equal(fs.existsSync(lockFile) ? fs.readFileSync(lockFile, 'utf8') : null, before);
  });
});
