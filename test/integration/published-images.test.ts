import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DockerExecutor } from '../../src/engine/execute/docker';
import type { ConnectedEngine } from '../../src/engine/execute/docker-engine';
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
import { fixture } from '../helpers/paths';
import { freePort, pushImage, startLocalRegistry, type LocalRegistry } from '../helpers/registry';
import { skipBecause } from '../helpers/skip';

describe('published XRepoTest images from a local registry', function () {
  this.timeout(900_000);
  const language = 'go' as const;
  const repoDir = FIXTURE_OF[language];
  let tmp: string;
  let port: string;
  let engine: ConnectedEngine;
  let registry: LocalRegistry | undefined;
  let lockFile: string;
  let pulledDigest: string | undefined;

  before(async function () {
    const shared = await engineForTests(this);
    const languageImage = await findLanguageImage(shared.docker, language);
    if (!languageImage) skipBecause(this, `no ${language} language image here (xrepotest images build --lang ${language})`);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-published-'));
    lockFile = path.join(tmp, 'xrepotest-images.lock.json');
    registry = await startLocalRegistry(this, path.join(tmp, 'registry'));
    engine = registry.engine;
    port = registry.prefix.split(':')[1];

    // An image shaped like a published one: the language image plus a repository under /app/repo_data.
    const context = path.join(tmp, 'context');
    fs.cpSync(fixture(repoDir), path.join(context, 'repo', repoDir), { recursive: true });
    fs.writeFileSync(path.join(context, 'Dockerfile'), `FROM ${languageImage}\nCOPY repo/${repoDir} /app/repo_data/${language}/${repoDir}\n`);
    await pushImage(engine.docker, context, publishedReference(language, { registry: registry.prefix }));
  });

  after(async function () {
    // By id: the test's own image (FROM the language image plus a fixture), with every tag it got here
    // (a digest reference alone does not untag it in Podman, and each run's registry port adds a tag).
    if (engine && pulledDigest) {
      const id = await engine.docker.getImage(pulledDigest).inspect().then((i) => i.Id, () => undefined);
      if (id) await engine.docker.getImage(id).remove({ force: true }).catch(() => undefined);
    }
    registry?.stop();
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
    const result = await evaluateTest(task, language, generatedTest(language, 'pass'), { executor, repoDir: checkout, image: pulledDigest }).finally(() => executor.close());
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
