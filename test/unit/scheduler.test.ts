import * as assert from 'node:assert/strict';
import { InProcessPool } from '../../src/engine/schedule/in-process-pool';

/** A step whose units finish only when the test says: what runs at once is then counted, not timed. */
function gatedStep(): { step: (slot: number) => Promise<void>; running: Set<number>; maxRunning: () => number; started: number[]; finish(slot: number, error?: Error): void } {
  const gates = new Map<number, { resolve(): void; reject(e: Error): void }>();
  const running = new Set<number>();
  const started: number[] = [];
  let max = 0;
  return {
    running,
    started,
    maxRunning: () => max,
    step: (slot) =>
      new Promise<void>((resolve, reject) => {
        started.push(slot);
        running.add(slot);
        max = Math.max(max, running.size);
        gates.set(slot, {
          resolve: () => (running.delete(slot), resolve()),
          reject: (e) => (running.delete(slot), reject(e)),
        });
      }),
    finish(slot, error) {
      const g = gates.get(slot);
      assert.ok(g, `slot ${slot} started`);
      if (error) g.reject(error);
      else g.resolve();
    },
  };
}

/** Lets started units reach their gates (promise callbacks only, no timers). */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('scheduler: the in-process pool', () => {
  it('runs every slot once, never more than `concurrency` at a time, in list order', async () => {
    const g = gatedStep();
    const finished: number[] = [];
    const run = new InProcessPool().run([0, 1, 2, 3, 4, 5, 6], g.step, { concurrency: 3, onResult: (s) => finished.push(s) });
    await settle();
    assert.deepEqual([...g.running].sort(), [0, 1, 2]);
    g.finish(1);
    await settle();
    assert.deepEqual([...g.running].sort(), [0, 2, 3]);
    for (const s of [0, 2, 3, 4, 5, 6]) {
      g.finish(s);
      await settle();
    }
    assert.deepEqual(await run, { done: 7, interrupted: false });
    assert.equal(g.maxRunning(), 3);
    assert.deepEqual(g.started, [0, 1, 2, 3, 4, 5, 6]);
    assert.deepEqual(finished, [1, 0, 2, 3, 4, 5, 6]);
  });

  it('starts no unit once cancelled, and says the run was interrupted', async () => {
    const g = gatedStep();
    const controller = new AbortController();
    const finished: number[] = [];
    const run = new InProcessPool().run([0, 1, 2, 3, 4], g.step, { concurrency: 2, signal: controller.signal, onResult: (s) => finished.push(s) });
    await settle();
    controller.abort();
    g.finish(0);
    // A unit stopped by the cancellation fails with it: not an error of the run, just its end.
    g.finish(1, new Error('aborted'));
    assert.deepEqual(await run, { done: 1, interrupted: true });
    assert.deepEqual(g.started, [0, 1]);
    assert.deepEqual(finished, [0]);
  });

  it('fails with a unit\'s error when not cancelled, starting nothing after it and awaiting what runs', async () => {
    const g = gatedStep();
    const run = new InProcessPool().run([0, 1, 2, 3], g.step, { concurrency: 2 });
    let settled = false;
    void run.then(
      () => (settled = true),
      () => (settled = true),
    );
    await settle();
    g.finish(0, new Error('boom'));
    await settle();
    assert.deepEqual(g.started, [0, 1]);
    assert.equal(settled, false, 'the run waits for the unit still running');
    g.finish(1);
    await assert.rejects(run, /boom/);
    assert.deepEqual(g.started, [0, 1]);
  });

  it('runs at least one at a time, and nothing for no slots', async () => {
    const g = gatedStep();
    const run = new InProcessPool().run([0, 1], g.step, { concurrency: 0 });
    await settle();
    assert.deepEqual([...g.running], [0]);
    g.finish(0);
    await settle();
    g.finish(1);
    assert.deepEqual(await run, { done: 2, interrupted: false });
    assert.deepEqual(await new InProcessPool().run([], g.step, { concurrency: 4 }), { done: 0, interrupted: false });
  });
});
