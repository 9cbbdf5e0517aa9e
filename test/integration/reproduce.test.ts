import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { main } from '../../src/cli/main';
import { newRunKey, RUN_KEY_ENV } from '../../src/engine/distributed/run-key';
import { findLanguageImage } from '../../src/engine/execute/images';
import { publishedReference } from '../../src/engine/execute/published-images';
import { extractRepository } from '../../src/engine/extract/extract';
import { generatedTest } from '../helpers/evaluate';
import { CLI, fixture } from '../helpers/paths';
import { pushImage, startLocalRegistry, type LocalRegistry } from '../helpers/registry';
import { hasRedis, startRedis } from '../helpers/redis';
import { skipBecause } from '../helpers/skip';

const REPO = 'inventory-go';

/** A passing test for PopN, as a model might have written it (Status's is test/data/generated/go/pass.go). */
const POPN_TEST = `package inventory

import "testing"

func TestPopN(t *testing.T) {
	var s Stack[int]
	for i := 1; i <= 3; i++ {
		s.Push(i)
	}
	got, err := s.PopN(2, true)
	if err != nil || len(got) != 2 || got[0] != 3 || got[1] != 2 {
		t.Fatalf("PopN(2) = %v, %v", got, err)
	}
	if _, err := s.PopN(5, true); err == nil {
		t.Fatal("strict PopN beyond the size must fail")
	}
	if _, err := s.PopN(-1, false); err != ErrNegativeCount {
		t.Fatalf("PopN(-1) error = %v", err)
	}
	rest, _ := s.PopN(5, false)
	if len(rest) != 1 || s.Len() != 0 {
		t.Fatalf("non-strict PopN drains: %v, len %d", rest, s.Len())
	}
}
`;

/** Runs the CLI in this process with DOCKER_HOST set, returning its exit code and what it wrote to stderr. */
async function cli(args: string[], dockerHost: string): Promise<{ code: number; stderr: string }> {
  const write = process.stderr.write.bind(process.stderr);
  const saved = process.env.DOCKER_HOST;
  let stderr = '';
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  }) as typeof process.stderr.write;
  process.env.DOCKER_HOST = dockerHost;
  process.exitCode = undefined;
  try {
    await main(['node', 'xrepotest', ...args]);
    return { code: Number(process.exitCode ?? 0), stderr };
  } finally {
    process.stderr.write = write;
    if (saved === undefined) delete process.env.DOCKER_HOST;
    else process.env.DOCKER_HOST = saved;
    process.exitCode = undefined;
  }
}

describe('reproduce: the standard setting over a published-format dataset in a pulled image', function () {
  this.timeout(900_000);
  let tmp: string;
  let registry: LocalRegistry | undefined;
  let datasetDir: string;
  let replay: string;

  before(async function () {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-reproduce-'));
    registry = await startLocalRegistry(this, path.join(tmp, 'registry'));
    const languageImage = await findLanguageImage(registry.engine.docker, 'go');
    if (!languageImage) skipBecause(this, 'no go language image here (xrepotest images build --lang go)');

    // Two tasks in the release's shape: file_path under the repo folder, no id or repository of ours.
    const { tasks } = await extractRepository(fixture(REPO), { repository: { name: REPO, url: fixture(REPO), commit: null, path: fixture(REPO) } });
    const chosen = ['Status', 'PopN'].map((name) => tasks.find((t) => t.function_name === name)!);
    assert.ok(chosen.every(Boolean), 'the fixture has Status and PopN');
    datasetDir = path.join(tmp, 'dataset');
    fs.mkdirSync(path.join(datasetDir, 'data', 'base'), { recursive: true });
    const records = chosen.map((t, i) => {
      const { id: _id, repository: _repo, ...published } = t;
      return { ...published, task_id: i };
    });
    assert.ok(records.every((r) => r.file_path.startsWith(`${REPO}/`)));
    fs.writeFileSync(path.join(datasetDir, 'data', 'base', 'go_functions.jsonl'), records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    replay = path.join(tmp, 'replay.jsonl');
    fs.writeFileSync(
      replay,
      [generatedTest('go', 'pass'), POPN_TEST].map((code, i) => JSON.stringify({ task_id: i, language: 'go', test_code: code })).join('\n') + '\n',
    );

    const context = path.join(tmp, 'context');
    fs.cpSync(fixture(REPO), path.join(context, 'repo', REPO), { recursive: true });
    fs.writeFileSync(path.join(context, 'Dockerfile'), `FROM ${languageImage}\nCOPY repo/${REPO} /app/repo_data/go/${REPO}\n`);
    await pushImage(registry.engine.docker, context, publishedReference('go', { registry: registry.prefix }));
  });

  after(async function () {
    if (registry && tmp) {
      const lock = path.join(tmp, 'images.lock.json');
      const digest = fs.existsSync(lock) ? (JSON.parse(fs.readFileSync(lock, 'utf8')).images?.go?.digest as string | undefined) : undefined;
      if (digest) await registry.engine.docker.getImage(digest).remove({ force: true }).catch(() => undefined);
    }
    registry?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('without --yes and without a terminal it refuses to start', async function () {
    if (process.stdin.isTTY) skipBecause(this, 'standard input is a terminal here');
    const r = await cli(['reproduce', '--provider', 'replay', '--replay', replay, '--dataset-dir', datasetDir, '--registry', registry!.prefix, '--images-lock', path.join(tmp, 'unused.lock.json'), '--run-dir', path.join(tmp, 'refused')], registry!.dockerHost);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /pass --yes/);
    assert.equal(fs.existsSync(path.join(tmp, 'refused')), false);
  });

  it('a dataset folder without the base files names the fetch command', async function () {
    const r = await cli(['reproduce', '--provider', 'replay', '--replay', replay, '--dataset-dir', path.join(tmp, 'empty'), '--lang', 'go,rust', '--yes'], registry!.dockerHost);
    assert.equal(r.code, 1);
    assert.ok(r.stderr.includes(`xrepotest dataset fetch --dir ${path.join(tmp, 'empty')} --lang go,rust --kinds base`), r.stderr);
  });

  it('pulls the image, says tasks, digest and estimate up front, and scores every task in the image', async function () {
    const runDir = path.join(tmp, 'run');
    const lock = path.join(tmp, 'images.lock.json');
    const args = ['reproduce', '--provider', 'replay', '--replay', replay, '--yes', '--registry', registry!.prefix, '--dataset-dir', datasetDir, '--run-dir', runDir, '--images-lock', lock, '--no-cache', '--no-progress'];
    const r = await cli(args, registry!.dockerHost);
    assert.equal(r.code, 0, r.stderr);

    const digest = JSON.parse(fs.readFileSync(lock, 'utf8')).images.go.digest as string;
    assert.match(digest, new RegExp(`^${registry!.prefix.replace(/\./g, '\\.')}/dungxg502/xrepotest-go@sha256:[0-9a-f]{64}$`));
    const upFront = r.stderr.slice(0, r.stderr.indexOf('bench:'));
    assert.match(upFront, /tasks: 2 \(go 2\)/);
    assert.ok(upFront.includes(`image go: ${digest}`), upFront);
    assert.match(upFront, /missing tools: none/);
    assert.match(upFront, /estimate: about .* input \+ 2000 output tokens/);

    const manifest = JSON.parse(fs.readFileSync(path.join(runDir, 'manifest.json'), 'utf8'));
    const checkout = path.resolve(runDir, manifest.repositories[REPO].checkout);
    assert.equal(fs.readFileSync(path.join(checkout, 'item.go'), 'utf8'), fs.readFileSync(path.join(fixture(REPO), 'item.go'), 'utf8'));

    const results = fs.readFileSync(path.join(runDir, 'results.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(results.map((x) => x.task_id).sort(), [0, 1]);
    for (const x of results) {
      assert.equal(x.xrt.error, null, x.xrt.error);
      assert.equal(x.xrt.mode, 'standard');
      assert.deepEqual(x.checks[0], { compilation: true, tests: true, coverage: true, invocation: true }, `${x.function_name}: ${x.xrt.reason}`);
      assert.ok(x.coverage_stats[0].coverage > 0, x.function_name);
    }
    assert.equal(JSON.parse(fs.readFileSync(path.join(runDir, 'summary.json'), 'utf8')).total_samples, 2);

    // Rerun: the lock pins the image, and every result is already there.
    const again = await cli(args, registry!.dockerHost);
    assert.equal(again.code, 0, again.stderr);
    assert.ok(again.stderr.includes(`image go: ${digest}`));
    assert.equal(fs.readFileSync(path.join(runDir, 'results.jsonl'), 'utf8').trim().split('\n').length, 2);
  });

  it('with --queue, a worker reads the code from the pinned image itself and scores every task as the one-machine run did', async function () {
    if (!hasRedis()) skipBecause(this, 'redis-server is not installed (scripts/setup.sh installs it)');
    const oneMachine = path.join(tmp, 'run');
    if (!fs.existsSync(path.join(oneMachine, 'summary.json'))) skipBecause(this, 'the one-machine run above did not finish');
    const redis = await startRedis();
    // The run key the coordinator and its worker share (the worker inherits it; the coordinator runs here).
    process.env[RUN_KEY_ENV] = newRunKey();
    const workerLog = path.join(tmp, 'worker.log');
    // The worker has its own replay file and cache; the coordinator's checkouts are never read by it.
    const worker = spawn(process.execPath, [CLI, 'worker', '--queue', redis.url, '--executor', 'docker', '--languages', 'go', '--replay', replay, '--no-cache', '--cache-dir', path.join(tmp, 'worker-cache')], {
      env: { ...process.env, DOCKER_HOST: registry!.dockerHost },
      stdio: ['ignore', fs.openSync(workerLog, 'a'), fs.openSync(workerLog, 'a')],
    });
    try {
      const runDir = path.join(tmp, 'run-queue');
      const r = await cli(['reproduce', '--provider', 'replay', '--replay', replay, '--yes', '--registry', registry!.prefix, '--dataset-dir', datasetDir, '--run-dir', runDir, '--images-lock', path.join(tmp, 'images.lock.json'), '--queue', redis.url, '--no-progress'], registry!.dockerHost);
      assert.equal(r.code, 0, `${r.stderr}\n--- worker:\n${fs.readFileSync(workerLog, 'utf8')}`);
      assert.equal(fs.readFileSync(path.join(runDir, 'summary.json'), 'utf8'), fs.readFileSync(path.join(oneMachine, 'summary.json'), 'utf8'));
      assert.equal((fs.readFileSync(workerLog, 'utf8').match(/task \S+ done in /g) ?? []).length, 2, 'the worker ran both tasks');
      assert.ok(fs.readdirSync(path.join(tmp, 'worker-cache', 'published')).length > 0, "the worker's own copy of the image's repository");
    } finally {
      worker.kill('SIGTERM');
      await new Promise((resolve) => (worker.exitCode !== null ? resolve(null) : worker.once('exit', resolve)));
      await redis.stop();
      delete process.env[RUN_KEY_ENV];
    }
  });

  it('images pull --published pins the same digest in its lock file, with progress', async function () {
    const lock = path.join(tmp, 'pull.lock.json');
    const r = await cli(['images', 'pull', '--published', '--lang', 'go', '--registry', registry!.prefix, '--lock', lock], registry!.dockerHost);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /\[go\] pulling 127\.0\.0\.1:\d+\/dungxg502\/xrepotest-go:latest/);
    const pulled = JSON.parse(fs.readFileSync(lock, 'utf8')).images.go.digest as string;
    assert.ok(r.stderr.includes(`is ${pulled}`), r.stderr);
    const reproduced = path.join(tmp, 'images.lock.json');
    if (fs.existsSync(reproduced)) assert.equal(pulled, JSON.parse(fs.readFileSync(reproduced, 'utf8')).images.go.digest);
  });
});
