import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { testHash } from '../../src/engine/execute/evaluate';
import type { Executor } from '../../src/engine/execute/types';
import { fencedTest, repairPrompt } from '../../src/engine/generate/generate';
import { PAPER_PARAMS, type CompletionRequest, type GenerationRecord, type Prompt, type Provider } from '../../src/engine/generate/types';
import { extractTest } from '../../src/engine/prompt/extract-test';
import type { ResultRecord } from '../../src/engine/store/results';
import { runTaskStep, type TaskStepServices } from '../../src/engine/task/run-task-step';
import { ResumableStore, RunFolderLogs, type SlotLabels } from '../../src/engine/task/slot-store';
import type { LoadedTask } from '../../src/engine/tasks/load';
import type { TaskRecord } from '../../src/engine/tasks/record';

const TASK: LoadedTask = {
  task: { task_id: 3, id: 'go:abc', function_name: 'Status', file_path: 'inv/item.go', focal_code: '', file_content: '', language: 'go' } as unknown as TaskRecord,
  language: 'go',
  file: 'tasks.jsonl',
  line: 1,
};
const LABELS: SlotLabels = { provider: 'stub', model: 'm', mode: 'standard' };
const PROMPT: Prompt = { system: 'sys', user: 'write a test', mode: 'standard', language: 'go' };

/** A provider that answers from a list and records what it was asked. */
function stubProvider(replies: string[]): Provider & { asked: CompletionRequest[] } {
  const asked: CompletionRequest[] = [];
  return {
    id: 'stub',
    asked,
    async complete(request) {
      asked.push({ ...request, messages: request.messages.map((m) => ({ ...m })) });
      const text = replies.shift();
      if (text === undefined) throw new Error('the provider was asked more often than the test expects');
      return { text, usage: { inputTokens: 1, outputTokens: 1 }, costUsd: 0, cached: false };
    },
  } as Provider & { asked: CompletionRequest[] };
}

/** An executor the step must not use: every result these tests need is in the store. */
const NO_EXECUTOR = new Proxy({}, { get: () => () => assert.fail('the step ran a test although its result was stored') }) as unknown as Executor;

function generation(sample: number, round: number, testCode: string, raw = fencedTest('go', testCode)): GenerationRecord {
  return { id: 'go:abc', task_id: 3, language: 'go', sample, round, mode: 'standard', provider: 'stub', model: 'm', test_code: testCode, raw_response: raw, request_hash: 'h', usage: { inputTokens: 1, outputTokens: 1 }, cost_usd: 0, cached: false };
}

function result(sample: number, round: number, testCode: string, outcome: { passed: boolean; feedback?: string; category?: string }): ResultRecord {
  return {
    ...TASK.task,
    test: [testCode],
    logs: [''],
    checks: [{ compilation: true, tests: outcome.passed, coverage: false, invocation: true }],
    coverage_stats: [{ covered_lines: 0, total_lines: 0, coverage: 0, covered_line_numbers: [], executable_line_numbers: [] }],
    xrt: { sample, round, mode: 'standard', provider: 'stub', model: 'm', baseline: false, test_hash: testHash(testCode), language: 'go', failure_category: outcome.category ?? null, feedback: outcome.feedback ?? null },
  } as unknown as ResultRecord;
}

describe('task step: one sample with its repair rounds, keyed by content', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-step-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  function storeWith(gens: GenerationRecord[], results: ResultRecord[]): { store: ResumableStore; logs: RunFolderLogs } {
    fs.writeFileSync(path.join(dir, 'generations.jsonl'), gens.map((g) => JSON.stringify(g) + '\n').join(''));
    fs.writeFileSync(path.join(dir, 'results.jsonl'), results.map((r) => JSON.stringify(r) + '\n').join(''));
    const logs = new RunFolderLogs(dir);
    return { store: new ResumableStore(logs, [TASK], LABELS), logs };
  }

  const services = (provider: Provider, store?: ResumableStore): TaskStepServices => ({
    provider,
    params: { model: 'm', ...PAPER_PARAMS },
    labels: LABELS,
    prompt: async () => PROMPT,
    evaluation: { executor: NO_EXECUTOR, checkout: dir },
    store,
  });

  it('resumes a finished slot from the store without asking the model or running the test', async () => {
    const { store, logs } = storeWith([generation(0, 0, 'T0')], [result(0, 0, 'T0', { passed: true })]);
    const provider = stubProvider([]);
    const slots = await runTaskStep(TASK, services(provider, store), { samples: 1, repairRounds: 2, mutation: false });
    logs.close();
    assert.equal(store.resumed, 1);
    assert.equal(provider.asked.length, 0);
    assert.equal(slots.length, 1, 'a passing test needs no repair');
    assert.equal(slots[0].result?.checks[0].tests, true);
    assert.equal(slots[0].evaluation, undefined);
  });

  it('asks for a repair from what was stored (the reply, the failed test, its log) and appends the new generation', async () => {
    const repaired = extractTest(fencedTest('go', 'T1'), 'go');
    const { store, logs } = storeWith([generation(0, 0, 'T0', 'reply zero')], [result(0, 0, 'T0', { passed: false, feedback: 'FB' }), result(0, 1, repaired, { passed: true })]);
    const provider = stubProvider([fencedTest('go', 'T1')]);
    const slots = await runTaskStep(TASK, services(provider, store), { samples: 1, repairRounds: 3, mutation: false });
    logs.close();
    assert.equal(provider.asked.length, 1);
    assert.equal(provider.asked[0].round, 1);
    assert.deepEqual(provider.asked[0].messages, [
      { role: 'user', content: 'write a test' },
      { role: 'assistant', content: 'reply zero' },
      { role: 'user', content: repairPrompt('go', 'T0', 'FB') },
    ]);
    assert.deepEqual(slots.map((s) => [s.generation.round, s.result?.checks[0].tests]), [[0, false], [1, true]]);
    const appended = fs.readFileSync(path.join(dir, 'generations.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as GenerationRecord);
    assert.deepEqual(appended.map((g) => [g.round, g.test_code]), [[0, 'T0'], [1, repaired]]);
  });

  it('never asks the model to repair an environment failure', async () => {
    const { store, logs } = storeWith([generation(0, 0, 'T0')], [result(0, 0, 'T0', { passed: false, feedback: 'no go', category: 'environment' })]);
    const provider = stubProvider([]);
    const slots = await runTaskStep(TASK, services(provider, store), { samples: 1, repairRounds: 1, mutation: false });
    logs.close();
    assert.equal(slots.length, 1);
    assert.equal(provider.asked.length, 0);
  });

  it('generates only, without a checkout: one round per sample, the samples asked for', async () => {
    const provider = stubProvider([fencedTest('go', 'A'), fencedTest('go', 'B')]);
    const slots = await runTaskStep(TASK, { ...services(provider), evaluation: undefined }, { samples: [4, 7], repairRounds: 2, mutation: false });
    assert.deepEqual(slots.map((s) => [s.generation.sample, s.generation.round, s.result]), [[4, 0, undefined], [7, 0, undefined]]);
    assert.deepEqual(provider.asked.map((r) => r.sample), [4, 7]);
  });

  it('continues a scored test (the editor\'s repair): the test as the reply, its log, the next round', async () => {
    const provider = stubProvider([fencedTest('go', 'fixed')]);
    const seen: number[] = [];
    const slots = await runTaskStep(TASK, { ...services(provider), evaluation: undefined }, {
      samples: 1,
      repairRounds: 1,
      mutation: false,
      continueFrom: { sample: 2, round: 1, testCode: 'broken', feedback: 'it failed' },
      onGenerated: (g) => seen.push(g.round),
    });
    assert.deepEqual(provider.asked[0].messages, [
      { role: 'user', content: 'write a test' },
      { role: 'assistant', content: fencedTest('go', 'broken') },
      { role: 'user', content: repairPrompt('go', 'broken', 'it failed') },
    ]);
    assert.deepEqual(slots.map((s) => [s.generation.sample, s.generation.round]), [[2, 2]]);
    assert.deepEqual(seen, [2]);
  });

  it('stops when cancelled, before asking the model', async () => {
    const provider = stubProvider([fencedTest('go', 'A')]);
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(runTaskStep(TASK, services(provider), { samples: 1, repairRounds: 0, mutation: false, signal: controller.signal }));
    assert.equal(provider.asked.length, 0);
  });
});
