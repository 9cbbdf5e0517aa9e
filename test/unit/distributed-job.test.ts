import * as assert from 'node:assert';
import { openQueueWarning, parseQueueUrl, QueueUrlError } from '../../src/engine/distributed/queue-url';
import { sourceOf } from '../../src/engine/distributed/sources';
import { parseRateLimit } from '../../src/engine/distributed/generate-queue';
import { checkJobData, checkJobResult, endpointProblem, JOB_FORMAT, jobIdOf, type JobExperiment } from '../../src/engine/distributed/task-job';
import type { LoadedTask } from '../../src/engine/tasks/load';
import type { TaskRecord } from '../../src/engine/tasks/record';

const COMMIT = 'a'.repeat(40);
const record: TaskRecord = {
  task_id: 3,
  id: 'abc123',
  function_name: 'Status',
  file_path: 'inventory-go/item.go',
  focal_code: 'func Status() {}',
  file_content: 'package inventory\nfunc Status() {}\n',
  language: 'go',
  function_component: { name: 'Status', signature: 'func Status()', start_line: 2, end_line: 2 },
  metadata: { class_name: '', class_signature: '' },
};
const task: LoadedTask = { task: record, language: 'go', file: 'tasks.jsonl', line: 1 };
const experiment: JobExperiment = {
  provider: 'baseline',
  model: 'baseline',
  mode: 'standard',
  temperature: 0,
  maxTokens: 4096,
  topP: 1,
  k: 5,
  samples: 1,
  repairRounds: 1,
  mutation: false,
  executor: 'local',
};
const job = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  format: JOB_FORMAT,
  run: 'run-1',
  task: record,
  source: { kind: 'git', url: 'https://example.org/inventory-go.git', commit: COMMIT },
  experiment,
  known: { generations: [], results: [] },
  ...over,
});

describe('distributed queue: the URL', () => {
  it('reads host, port, database, user and password, and never displays the password', () => {
    const a = parseQueueUrl('redis://bench:s3cr%40t@queue.example.org:6380/2', {});
    assert.deepStrictEqual([a.host, a.port, a.db, a.username, a.password, a.tls], ['queue.example.org', 6380, 2, 'bench', 's3cr@t', false]);
    assert.doesNotMatch(a.display, /s3cr/);
    assert.equal(parseQueueUrl('rediss://h', {}).tls, true);
    assert.equal(parseQueueUrl('redis://h', {}).port, 6379);
  });

  it('takes the password from XREPOTEST_REDIS_PASSWORD when the URL has none', () => {
    assert.equal(parseQueueUrl('redis://h:1', { XREPOTEST_REDIS_PASSWORD: 'pw' }).password, 'pw');
    assert.equal(parseQueueUrl('redis://:url@h:1', { XREPOTEST_REDIS_PASSWORD: 'pw' }).password, 'url');
  });

  it('refuses what is not a Redis URL, saying the form to use', () => {
    assert.throws(() => parseQueueUrl('localhost:6379', {}), (e: Error) => e instanceof QueueUrlError && /redis:\/\//.test(e.message));
    assert.throws(() => parseQueueUrl('http://h:1', {}), /redis:\/\/ or rediss:\/\//);
    assert.throws(() => parseQueueUrl('redis://h:1/x', {}), /database is a number/);
  });

  it('warns about a queue without a password beyond this machine only', () => {
    assert.match(openQueueWarning(parseQueueUrl('redis://10.0.0.5:6379', {}))!, /no password/);
    assert.equal(openQueueWarning(parseQueueUrl('redis://127.0.0.1:6379', {})), null);
    assert.equal(openQueueWarning(parseQueueUrl('redis://:pw@10.0.0.5:6379', {})), null);
  });
});

describe('distributed queue: a job from Redis is checked before anything runs', () => {
  it('accepts a well-formed job', () => {
    const c = checkJobData(job());
    assert.ok('job' in c, 'problem' in c ? c.problem : '');
    assert.equal(c.task.language, 'go');
  });

  const refusals: Array<[string, Record<string, unknown>, RegExp]> = [
    ['another format', job({ format: JOB_FORMAT + 1 }), /format/],
    ['a run id with a path in it', job({ run: '../x' }), /no run/],
    ['a file_path leaving the repository', job({ task: { ...record, file_path: '../../etc/passwd' } }), /file_path/],
    ['an unknown language', job({ task: { ...record, language: 'cobol' } }), /unknown language/],
    ['an option as URL', job({ source: { kind: 'git', url: '--upload-pack=touch /tmp/x', commit: COMMIT } }), /no usable URL/],
    ['a branch name instead of a commit', job({ source: { kind: 'git', url: 'https://e.org/r.git', commit: 'main' } }), /40 hex/],
    ['a source folder leaving the checkout', job({ source: { kind: 'git', url: 'https://e.org/r.git', commit: COMMIT, subdir: 'a/../../etc' } }), /plain relative path/],
    ['an absolute source folder', job({ source: { kind: 'git', url: 'https://e.org/r.git', commit: COMMIT, subdir: '/etc' } }), /plain relative path/],
    ['an image not pinned by digest', job({ source: { kind: 'image', image: 'dungxg502/xrepotest-go:latest', repoDir: 'inventory-go' } }), /pinned by digest/],
    ['an image folder that is not the task\'s repository', job({ source: { kind: 'image', image: `r/x@sha256:${'c'.repeat(64)}`, repoDir: '..' } }), /repository folder/],
    ['another source kind', job({ source: { kind: 'path', path: '/etc' } }), /unknown source kind/],
    ['absurd samples', job({ experiment: { ...experiment, samples: 1e9 } }), /more samples/],
    ['no executor', job({ experiment: { ...experiment, executor: 'ssh' } }), /executor/],
    ['a rate limit that is not calls per period', job({ experiment: { ...experiment, rateLimit: { max: 0, durationMs: 1000 } } }), /rate limit/],
    ['known records that are not lists', job({ known: { generations: {}, results: [] } }), /not lists/],
    ['absurd improvement rounds', job({ experiment: { ...experiment, improveRounds: 1e6 } }), /improveRounds is not a count/],
    ['reruns that are not a count', job({ experiment: { ...experiment, reruns: -1 } }), /reruns is not a count/],
  ];
  for (const [what, data, reason] of refusals) {
    it(`refuses ${what}`, () => {
      const c = checkJobData(data);
      assert.ok('problem' in c, `accepted ${what}`);
      assert.match(c.problem, reason);
    });
  }
});

describe('distributed queue: a worker\'s answer', () => {
  const generation = { id: 'abc123', task_id: 3, language: 'go', sample: 0, round: 0, mode: 'standard', provider: 'baseline', model: 'baseline', test_code: 'x' };
  const result = { id: 'abc123', task_id: 3, checks: [], coverage_stats: [], xrt: { language: 'go', sample: 0, round: 1, test_hash: 'h' } };
  const answer = (over: Record<string, unknown> = {}) => ({ format: JOB_FORMAT, worker: 'h:1', generations: [generation], results: [result], ms: 5, ...over });

  it('is taken when every record is of the task and the experiment, within its samples and rounds', () => {
    assert.ok('result' in checkJobResult(answer(), task, experiment));
  });

  it('is refused when a record is of another task, sample, round or experiment', () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ results: [{ ...result, id: 'other' }] }, /another task/],
      [{ results: [{ ...result, xrt: { ...result.xrt, sample: 1 } }] }, /outside/],
      [{ results: [{ ...result, xrt: { ...result.xrt, round: 2 } }] }, /outside/],
      [{ generations: [{ ...generation, model: 'other' }] }, /another experiment/],
      [{ generations: 'x' }, /no record lists/],
      [{ generations: [{ ...generation, improve: 1 }] }, /improvement rounds/],
    ];
    for (const [over, reason] of cases) {
      const c = checkJobResult(answer(over), task, experiment);
      assert.ok('problem' in c, JSON.stringify(over));
      assert.match(c.problem, reason);
    }
  });
});

describe('distributed queue: an answer to a run with improvement rounds or reruns', () => {
  const generation = { id: 'abc123', task_id: 3, language: 'go', sample: 0, round: 0, mode: 'standard', provider: 'baseline', model: 'baseline', test_code: 'x' };
  const passing = { id: 'abc123', task_id: 3, checks: [{ compilation: true, tests: true, coverage: true, invocation: true }], coverage_stats: [], xrt: { language: 'go', sample: 0, round: 0, test_hash: 'h' } };
  const answer = (generations: unknown[], results: unknown[]) => ({ format: JOB_FORMAT, worker: 'h:1', generations, results, ms: 5 });
  const improving = { ...experiment, improveRounds: 2, reruns: 1 };

  it('takes the rounds\' replies and a passing result with its suite and reruns', () => {
    const done = { ...passing, xrt: { ...passing.xrt, suite: { tests: 2 }, reruns: { runs: 2, passed: 2 } } };
    assert.ok('result' in checkJobResult(answer([generation, { ...generation, improve: 1 }, { ...generation, improve: 2 }], [done]), task, improving));
  });

  it('refuses a reply past the run\'s rounds, and a passing result an older worker scored without the rounds or the reruns', () => {
    const cases: Array<[ReturnType<typeof answer>, RegExp]> = [
      [answer([{ ...generation, improve: 3 }], []), /outside the run's improvement rounds/],
      [answer([{ ...generation, improve: 0.5 }], []), /outside the run's improvement rounds/],
      [answer([generation], [{ ...passing, xrt: { ...passing.xrt, reruns: { runs: 2, passed: 2 } } }]), /without the run's improvement rounds/],
      [answer([generation], [{ ...passing, xrt: { ...passing.xrt, suite: { tests: 1 } } }]), /without the run's reruns/],
    ];
    for (const [a, reason] of cases) {
      const c = checkJobResult(a, task, improving);
      assert.ok('problem' in c, JSON.stringify(a));
      assert.match(c.problem, reason);
    }
  });
});

describe('distributed queue: job ids and sources', () => {
  it('gives a task the same job id in the same run and experiment, another in another run or experiment', () => {
    const id = jobIdOf('run-1', task, experiment);
    assert.match(id, /^[0-9a-f]{40}$/);
    assert.equal(jobIdOf('run-1', task, experiment), id);
    assert.notEqual(jobIdOf('run-2', task, experiment), id);
    assert.notEqual(jobIdOf('run-1', task, { ...experiment, samples: 2 }), id);
  });

  it('finds a fetchable URL and a full commit in the sources file, the manifest or the record, in that order', () => {
    const withRepo: LoadedTask = { ...task, task: { ...record, repository: { name: 'inventory-go', url: 'https://r.example/inv.git', commit: COMMIT } } };
    assert.deepStrictEqual(sourceOf(withRepo, null, null), { kind: 'git', url: 'https://r.example/inv.git', commit: COMMIT });
    const sources = { 'inventory-go': { url: 'file:///srv/inv.git', commit: 'b'.repeat(40) } };
    assert.deepStrictEqual(sourceOf(withRepo, sources, null), { kind: 'git', url: 'file:///srv/inv.git', commit: 'b'.repeat(40) });
    // A repository folder inside a bigger checkout keeps its place there.
    const nested: LoadedTask = { ...task, task: { ...record, repository: { name: 'inventory-go', url: 'https://r.example/mono.git', commit: COMMIT, subdir: 'test/fixtures/inventory-go' } } };
    assert.deepStrictEqual(sourceOf(nested, null, null), { kind: 'git', url: 'https://r.example/mono.git', commit: COMMIT, subdir: 'test/fixtures/inventory-go' });
    assert.ok('job' in checkJobData(job({ source: sourceOf(nested, null, null) })));
  });

  it('takes a published image, pinned by digest, as the source of the release\'s tasks (reproduce --queue)', () => {
    const image = `127.0.0.1:5000/dungxg502/xrepotest-go@sha256:${'d'.repeat(64)}`;
    const s = sourceOf(task, null, null, { go: image });
    assert.deepStrictEqual(s, { kind: 'image', image, repoDir: 'inventory-go' });
    assert.ok('job' in checkJobData(job({ source: s })));
  });

  it('says how to give a source when none is fetchable (a bare path, no commit, an option)', () => {
    for (const repository of [
      { name: 'inventory-go', url: 'test/fixtures/inventory-go', commit: COMMIT },
      { name: 'inventory-go', url: 'https://r.example/inv.git', commit: null },
      { name: 'inventory-go', url: '--upload-pack=x', commit: COMMIT },
    ]) {
      const s = sourceOf({ ...task, task: { ...record, repository } }, null, null);
      assert.ok('problem' in s, JSON.stringify(repository));
      assert.match(s.problem, /--sources/);
    }
  });
});

describe('distributed queue: the provider\'s pace and servers', () => {
  it('reads calls per period', () => {
    assert.deepStrictEqual(parseRateLimit('50/min'), { max: 50, durationMs: 60_000 });
    assert.deepStrictEqual(parseRateLimit('2/s'), { max: 2, durationMs: 1_000 });
    assert.deepStrictEqual(parseRateLimit('3/10s'), { max: 3, durationMs: 10_000 });
    assert.deepStrictEqual(parseRateLimit('1000 / hour'), { max: 1000, durationMs: 3_600_000 });
    for (const bad of ['50', '0/min', '5/fortnight', '-1/s', 'x/s']) assert.throws(() => parseRateLimit(bad), /calls per period/, bad);
  });

  it('keeps a task\'s job id when only the pace changes (a resumed run may change --rate-limit)', () => {
    assert.equal(jobIdOf('r', task, { ...experiment, rateLimit: { max: 5, durationMs: 1000 } }), jobIdOf('r', task, experiment));
  });

  it('sends a worker\'s keys only to the servers it was started with', () => {
    assert.equal(endpointProblem({}, []), null, 'the providers\' own endpoints');
    assert.equal(endpointProblem({ baseUrl: 'http://10.0.0.2:8000/v1/' }, ['http://10.0.0.2:8000/v1']), null);
    assert.match(endpointProblem({ baseUrl: 'https://collector.example/v1' }, ['http://10.0.0.2:8000/v1'])!, /--base-url https:\/\/collector\.example\/v1/);
    assert.match(endpointProblem({ embedUrl: 'https://collector.example' }, [])!, /--embed-url/);
  });
});
