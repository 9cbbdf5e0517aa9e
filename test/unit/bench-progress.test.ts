import * as assert from 'node:assert/strict';
import type { BenchProgress, BenchTask } from '../../src/engine/bench/bench';
import type { LoadedTask } from '../../src/engine/tasks/load';
import { BenchActivity } from '../../src/server/bench';
import type { BenchActivityParams, BenchProgressParams, BenchRunningTask } from '../../src/shared/bench-protocol';
import { formatBenchNotification, formatRunningTask, honestEtaMs } from '../../src/shared/bench-progress';

const running = (over: Partial<BenchRunningTask> = {}): BenchRunningTask => ({
  function: 'Find',
  repository: 'chi',
  language: 'go',
  phase: 'test',
  phaseElapsedMs: 42_000,
  taskElapsedMs: 50_000,
  limitMs: 300_000,
  ...over,
});

const progressParams = (over: Partial<BenchProgressParams> = {}): BenchProgressParams => ({
  runDir: '/r',
  tasksDone: 1,
  tasksTotal: 2,
  results: 1,
  resumed: 0,
  csr: 100,
  tpr: 100,
  coverage: 50,
  elapsedMs: 4000,
  etaMs: 4000,
  pid: 1,
  ...over,
});

const activityParams = (over: Partial<BenchActivityParams> = {}): BenchActivityParams => ({
  runDir: '/r',
  running: [running()],
  tasksDone: 1,
  tasksTotal: 2,
  elapsedMs: 54_000,
  etaMs: 54_000,
  pid: 1,
  ...over,
});

describe('benchmark progress: the estimate and the notification\'s words', () => {
  it('estimates nothing before a task has finished, and nothing is left when all are done', () => {
    assert.equal(honestEtaMs({ tasksDone: 0, tasksTotal: 2, elapsedMs: 30_000, runningElapsedMs: [30_000] }), null);
    assert.equal(honestEtaMs({ tasksDone: 2, tasksTotal: 2, elapsedMs: 30_000, runningElapsedMs: [] }), 0);
  });

  it('grows while a task runs longer than the estimate (the issue saw "ETA 4s" frozen for 313 s)', () => {
    // The first task took 4 s: 4 s is the estimate right then.
    assert.equal(honestEtaMs({ tasksDone: 1, tasksTotal: 2, elapsedMs: 4000, runningElapsedMs: [0] }), 4000);
    // 313 s later the second still runs: the estimate is no longer 4 s.
    const later = honestEtaMs({ tasksDone: 1, tasksTotal: 2, elapsedMs: 317_000, runningElapsedMs: [313_000] });
    assert.ok(later !== null && later >= 313_000, String(later));
    // A task that has run past the rate's estimate keeps the estimate at least that long.
    assert.equal(honestEtaMs({ tasksDone: 3, tasksTotal: 4, elapsedMs: 30_000, runningElapsedMs: [25_000, 2000] }), 25_000);
  });

  it('names a running task, its phase and its time against the phase\'s limit', () => {
    assert.equal(formatRunningTask(running()), 'Find in chi: running the test · 42 s of 300 s');
    assert.equal(formatRunningTask(running({ phase: 'generating', phaseElapsedMs: 3200, limitMs: null })), 'Find in chi: generating the test · 3 s');
    assert.equal(formatRunningTask(running({ phase: 'warm-up', function: 'Parse', repository: 'yaml' })), 'Parse in yaml: building the project · 42 s of 300 s');
    assert.equal(formatRunningTask(running({ phase: 'mutation', limitMs: null })), 'Find in chi: mutation testing · 42 s');
  });

  it('says "estimating" before the first task ends, then the time left, and names at most two running tasks', () => {
    assert.equal(formatBenchNotification(undefined, undefined), 'loading tasks…');
    assert.equal(
      formatBenchNotification(undefined, activityParams({ tasksDone: 0, etaMs: null, running: [running({ phase: 'context', phaseElapsedMs: 0, limitMs: null })] })),
      'Find in chi: gathering context · 0 s — 0/2 tasks done · estimating the time left',
    );
    assert.equal(formatBenchNotification(progressParams(), activityParams()), 'Find in chi: running the test · 42 s of 300 s — 1/2 tasks done · 1 of 1 tests pass · about 54s left');
    const three = activityParams({ tasksTotal: 5, running: [running(), running({ function: 'Sum', repository: 'calc', phase: 'compile', phaseElapsedMs: 1000 }), running({ function: 'Max' })] });
    assert.equal(
      formatBenchNotification(progressParams({ tasksTotal: 5, results: 2, tpr: 50 }), three),
      'Find in chi: running the test · 42 s of 300 s; Sum in calc: building the test · 1 s of 300 s; 1 more running — 1/5 tasks done · 1 of 2 tests pass · about 54s left',
    );
  });

  it('shows no estimate once every task is done, and the results kept from before', () => {
    assert.equal(formatBenchNotification(progressParams({ tasksDone: 2, resumed: 1, results: 2, tpr: 50, etaMs: 0 }), activityParams({ running: [] })), '2/2 tasks done (1 results from before) · 1 of 2 tests pass');
  });
});

describe('benchmark progress: the server\'s running tasks', () => {
  const task = (name: string): BenchTask => ({
    task: { language: 'go', task: { id: `go:${name}`, task_id: name, function_name: name, file_path: 'inventory-go/item.go', repo_url: 'https://github.com/acme/inventory-go' } } as unknown as LoadedTask,
    checkout: '/c',
  });
  const counts = (tasksDone: number): BenchProgress => ({ tasksDone, tasksTotal: 2, results: tasksDone, passed: 0, compiled: 0, coverageSum: 0, environment: 0, startedAt: 1000, resumed: 0, failed: 0, workers: {} });

  it('keeps each running task\'s phase and times, the limit of its phase, and drops it when done', () => {
    const activity = new BenchActivity('/r', 60_000);
    assert.equal(activity.snapshot(1000), undefined, 'nothing before the engine has said how many tasks');
    activity.progress(counts(0));
    activity.phase(task('Find'), 'generating', 1000);
    activity.phase(task('Find'), 'test', 5000);
    activity.phase(task('Sum'), 'warm-up', 6000);
    const s = activity.snapshot(11_000)!;
    assert.deepEqual(
      s.running.map((r) => [r.function, r.repository, r.phase, r.phaseElapsedMs, r.taskElapsedMs, r.limitMs]),
      [
        ['Find', 'inventory-go', 'test', 6000, 10_000, 60_000],
        // A build is limited by its progress, not by a clock: no limit to read against.
        ['Sum', 'inventory-go', 'warm-up', 5000, 5000, null],
      ],
    );
    assert.equal(s.etaMs, null, 'no estimate before a task has finished');
    activity.phase(task('Find'), null, 12_000);
    activity.progress(counts(1));
    const t = activity.snapshot(300_000)!;
    assert.deepEqual(t.running.map((r) => r.function), ['Sum']);
    assert.ok(t.etaMs !== null && t.etaMs >= 294_000, `the estimate grows with the running task: ${t.etaMs}`);
  });
});
