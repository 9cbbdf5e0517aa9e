import type { Evaluation } from './evaluate';

/**
 * Flaky detection (METRICS.md "flaky"): a passing test is run `reruns` more times, each in a fresh
 * sandbox of its own; when any run does not pass, the slot is **flaky**, which counts as not passing
 * (category 'flaky', the pass count kept). The first run's coverage and report stay the slot's. A
 * rerun the machine could not score (an environment verdict) says nothing about the test and is not
 * counted. A slot that did not pass the first time is not rerun: it already counts as not passing.
 */
export async function withReruns(first: Evaluation, reruns: number, again: () => Promise<Evaluation>, signal?: AbortSignal): Promise<Evaluation> {
  if (reruns <= 0 || !first.score.passed) return first;
  let runs = 1;
  let passed = 1;
  let failing: Evaluation | null = null;
  for (let i = 0; i < reruns; i++) {
    signal?.throwIfAborted();
    const e = await again();
    if (e.environment || e.score.failure?.category === 'environment') continue;
    runs++;
    if (e.score.passed) passed++;
    else failing ??= e;
  }
  const counted = { runs, passed };
  if (!failing) return { ...first, score: { ...first.score, reruns: counted } };
  const why = failing.score.reason ?? failing.score.failure?.category ?? 'it did not pass';
  return {
    ...first,
    score: {
      ...first.score,
      passed: false,
      reruns: counted,
      failure: { category: 'flaky', rule: 'reruns-disagree', evidence: `passed ${passed} of ${runs} runs; a failing run: ${why}`.slice(0, 2000) },
      reason: `flaky: the test passed ${passed} of ${runs} runs in fresh sandboxes (a failing run: ${why.slice(0, 300)})`,
    },
  };
}
