import * as assert from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT } from '../helpers/paths';
import { skipBecause } from '../helpers/skip';

/*
 * Issue 16: the deployment files, checked offline. The Kubernetes manifests against the Kubernetes
 * JSON schemas that PyPI's kubernetes-validate ships (strict: an unknown field fails), installed by
 * scripts/setup.sh into .tools/kubernetes-validate; compose.yaml read with the PyYAML that comes
 * with it, for what docs/distributed.md promises: a password required, persistence on, no secret in
 * the file, workers sharing the sandbox path with the engine.
 */

const KV = path.join(REPO_ROOT, '.tools', 'kubernetes-validate');
const K8S = path.join(REPO_ROOT, 'deploy', 'k8s');

function python(args: string[], input?: string): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync('python3', args, { env: { ...process.env, PYTHONPATH: KV }, encoding: 'utf8', input });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface ComposeService {
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  deploy?: { replicas?: number };
}

describe('deployment files (deploy/): checked offline', () => {
  before(function () {
    if (python(['-m', 'kubernetes_validate', '--version']).code !== 0) skipBecause(this, 'kubernetes-validate is not in .tools/kubernetes-validate (scripts/setup.sh installs it)');
  });

  it('every Kubernetes manifest validates strictly against the schemas: Redis, the worker Deployment, the coordinator Job', () => {
    const files = fs.readdirSync(K8S).filter((f) => f.endsWith('.yaml')).map((f) => path.join(K8S, f));
    assert.ok(files.length >= 3, files.join(', '));
    const r = python(['-m', 'kubernetes_validate', '--strict', ...files]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    for (const kind of ['statefulset/xrepotest-redis', 'service/xrepotest-redis', 'deployment/xrepotest-worker', 'job/xrepotest-bench']) {
      assert.match(r.stdout + r.stderr, new RegExp(`passed for resource ${kind}`), kind);
    }
  });

  it('the validator does fail a manifest with a misspelled field (the check above can fail)', () => {
    const bad = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-k8s-')), 'worker.yaml');
    fs.writeFileSync(bad, fs.readFileSync(path.join(K8S, 'worker.yaml'), 'utf8').replace('terminationGracePeriodSeconds', 'terminationGracePeriodSecond'));
    const r = python(['-m', 'kubernetes_validate', '--strict', bad]);
    assert.notEqual(r.code, 0);
    assert.match(r.stdout + r.stderr, /terminationGracePeriodSecond/);
  });

  it('the worker Deployment asks for resources, gets the Redis password and the run key from Secrets, and shares the sandbox path with its engine', () => {
    const r = python(['-c', 'import sys, json, yaml; print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))', path.join(K8S, 'worker.yaml')]);
    assert.equal(r.code, 0, r.stderr);
    const [deployment] = JSON.parse(r.stdout) as Array<{ spec: { replicas: number; template: { spec: { containers: Array<{ name: string; args?: string[]; env?: Array<{ name: string; value?: string; valueFrom?: unknown }>; resources: { requests: Record<string, string> }; volumeMounts: Array<{ name: string; mountPath: string }> }> } } } }>;
    assert.ok(deployment.spec.replicas >= 1);
    const containers = deployment.spec.template.spec.containers;
    const worker = containers.find((c) => c.name === 'worker')!;
    assert.deepStrictEqual(worker.args?.slice(0, 1), ['worker']);
    assert.ok(worker.resources.requests.cpu && worker.resources.requests.memory);
    const password = worker.env?.find((e) => e.name === 'XREPOTEST_REDIS_PASSWORD');
    assert.ok(password?.valueFrom && !password.value, 'the password comes from a Secret, not the manifest');
    const runKey = worker.env?.find((e) => e.name === 'XREPOTEST_RUN_KEY');
    assert.ok(runKey?.valueFrom && !runKey.value, 'the run key comes from a Secret, not the manifest');
    const scratch = (c: (typeof containers)[number]) => c.volumeMounts.find((m) => m.name === 'scratch')?.mountPath;
    assert.equal(scratch(worker), '/var/lib/xrepotest/tmp');
    assert.equal(scratch(containers.find((c) => c.name === 'engine')!), '/var/lib/xrepotest/tmp', 'the same path in the engine');
  });

  it('compose.yaml: Redis requires a password and keeps an append-only file; workers run `worker` with the docker executor and require the run key; no secret in the file', () => {
    const file = path.join(REPO_ROOT, 'deploy', 'compose.yaml');
    const text = fs.readFileSync(file, 'utf8');
    const r = python(['-c', 'import sys, json, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))', file]);
    assert.equal(r.code, 0, r.stderr);
    const compose = JSON.parse(r.stdout) as { services: Record<string, ComposeService> };
    const redis = compose.services.redis.command!;
    assert.equal(redis[redis.indexOf('--requirepass') + 1], '${XREPOTEST_REDIS_PASSWORD:?set XREPOTEST_REDIS_PASSWORD}', 'compose refuses to start without a password');
    assert.equal(redis[redis.indexOf('--appendonly') + 1], 'yes');
    const worker = compose.services.worker;
    assert.deepStrictEqual([worker.command![0], worker.command![worker.command!.indexOf('--executor') + 1]], ['worker', 'docker']);
    assert.ok(worker.volumes!.includes('/var/lib/xrepotest/tmp:/var/lib/xrepotest/tmp'), 'the sandbox folder at the same path as on the host');
    for (const [name, value] of Object.entries(worker.environment ?? {})) assert.match(value, /^\$\{[A-Z_]+(:[-?][^}]*)?\}$/, `${name} comes from the environment`);
    assert.match(worker.environment?.XREPOTEST_RUN_KEY ?? '', /^\$\{XREPOTEST_RUN_KEY:\?/, 'compose refuses to start a worker without the run key');
    assert.doesNotMatch(text, /sk-[A-Za-z0-9]{8,}/, 'no key in the file');
  });
});
