import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LocalExecutor } from '../../src/engine/execute/local';
import { extractRepository } from '../../src/engine/extract/extract';
import { baselineTest } from '../../src/engine/generate/baseline';
import { fencedTest } from '../../src/engine/generate/generate';
import { ReplayProvider } from '../../src/engine/generate/providers/replay';
import { PAPER_PARAMS } from '../../src/engine/generate/types';
import { runTaskStep } from '../../src/engine/task/run-task-step';
import type { LoadedTask } from '../../src/engine/tasks/load';
import { fixture } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';

/**
 * An improvement round's reply is a model's, and may be steered: it is kept when it "adds coverage",
 * so the cheapest forgery is a test that fails for real and then writes its own coverage profile
 * claiming every line, prints a pass and exits 0. It must be dropped (the scoring sees the tampering),
 * the suite must stay the first test, and nothing it claimed may reach the suite's coverage.
 */
const FORGED_COVERAGE = `package inventory

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestRestockZero(t *testing.T) {
	inv := &Inventory{}
	if _, err := inv.Restock("x", 0); err == nil {
		t.Errorf("want an error")
	}
	t.Errorf("fails for real")
}

func TestMain(m *testing.M) {
	m.Run()
	for _, a := range os.Args {
		if p, ok := strings.CutPrefix(a, "-test.coverprofile="); ok {
			os.WriteFile(p, []byte("mode: count\\nexample.com/inventory/inventory.go:1.1,400.1 100 7\\n"), 0o644)
		}
	}
	fmt.Println("--- PASS: TestRestockZero (0.00s)")
	fmt.Println("PASS")
	os.Exit(0)
}
`;

describe('hostile improvement rounds (a steered reply)', function () {
  this.timeout(300_000);
  let dir: string;
  before(function () {
    if (!hasTool('go', ['version'])) skipBecause(this, 'go is not installed');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-hostile-improve-'));
  });
  after(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

  it('a reply that forges its coverage profile and its pass is dropped; the suite keeps only the first test and its own lines', async () => {
    const repo = fixture('inventory-go');
    const { tasks } = await extractRepository(repo, { repository: { name: 'inventory-go', url: repo, commit: null, path: repo } });
    const record = tasks.find((t) => t.function_name === 'Restock')!;
    const task: LoadedTask = { task: record, language: 'go', file: 'tasks.jsonl', line: 1 };
    const line = (improve: number, test: string): string => JSON.stringify({ task_id: record.task_id, language: 'go', sample: 0, round: 0, ...(improve ? { improve } : {}), raw_response: fencedTest('go', test) });
    const replies = path.join(dir, 'replies.jsonl');
    fs.writeFileSync(replies, [line(0, await baselineTest(record, 'go')), line(1, FORGED_COVERAGE)].join('\n') + '\n');
    const provider = new ReplayProvider(replies);
    const [slot] = await runTaskStep(
      task,
      {
        provider,
        params: { model: 'replay', ...PAPER_PARAMS },
        labels: { provider: 'replay', model: 'replay', mode: 'standard' },
        prompt: async () => ({ system: 'system', user: 'Generate unit tests for this function.', mode: 'standard', language: 'go' }),
        evaluation: { executor: new LocalExecutor(), checkout: repo },
      },
      { samples: 1, repairRounds: 0, mutation: false, improveRounds: 1 },
    );
    const r = slot.result!;
    assert.equal(r.checks[0].tests, true, r.xrt.reason ?? '');
    const suite = r.xrt.suite!;
    assert.equal(suite.tests, 1, 'nothing was kept');
    assert.equal(suite.rounds[0].kept, false);
    assert.equal(suite.rounds[0].verdict, 'does-not-pass', suite.rounds[0].reason);
    assert.match(suite.rounds[0].reason, /tampered with the harness/);
    assert.deepEqual(suite.rounds[0].added_lines, []);
    assert.deepEqual(suite.coverage.covered_line_numbers, r.coverage_stats[0].covered_line_numbers, 'the suite covers what the first test covers, nothing forged');
    assert.ok(suite.coverage.covered_lines < suite.coverage.total_lines);
  });
});
