import { strict as assert } from 'node:assert';
import { estimateRun, OUTPUT_TOKENS_PER_TASK } from '../../src/cli/reproduce-command';
import { extractRepository } from '../../src/engine/extract/extract';
import { fixture } from '../helpers/paths';

const REPO = 'inventory-go';

describe('reproduce: the up-front estimate', () => {
  it('prices a known model from the price table, says unknown for an unknown one, and scales with the tasks', async () => {

    const { tasks } = await extractRepository(fixture(REPO), { repository: { name: REPO, url: fixture(REPO), commit: null, path: fixture(REPO) } });
    const loaded = tasks.map((task, line) => ({ task, language: 'go' as const, file: 'x', line }));
    const one = estimateRun(loaded.slice(0, 1), 'claude-haiku-4-5', 1, false);
    const all = estimateRun(loaded, 'claude-haiku-4-5', 1, false);
    assert.ok(one.inputTokens > 0);
    assert.equal(all.outputTokens, loaded.length * OUTPUT_TOKENS_PER_TASK);
    assert.ok(all.inputTokens > one.inputTokens && all.seconds > one.seconds);
    assert.ok(one.costUsd! > 0 && one.worstCostUsd! > one.costUsd!);
    assert.equal(estimateRun(loaded, 'no-such-model', 1, false).costUsd, null);
    assert.ok(estimateRun(loaded, 'claude-haiku-4-5', 4, false).seconds < all.seconds, 'concurrency shortens the estimate');
  });
});
