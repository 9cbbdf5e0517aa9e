import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { evaluateTest } from '../../src/engine/execute/evaluate';
import { LocalExecutor } from '../../src/engine/execute/local';
import { runMutationTesting, toResultMutation, type MutationResult } from '../../src/engine/mutate/run';
import { FIXTURE_OF, TOOLS_OF, fixtureTask, treeDigest } from '../helpers/evaluate';
import { REPO_ROOT, fixture } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';
import { EXT, LANGUAGES, snippetTask } from '../helpers/mutation-fixtures';

describe('mutation testing', function () {
  this.timeout(120_000);

  describe('running mutants with the local executor', function () {
    this.timeout(900_000);
    const executor = new LocalExecutor();
    /** Few enough to keep the file's run time reasonable, spread over every operator kind. */
    const MAX = 15;

    for (const language of LANGUAGES) {
      it(`${language}: a strong test kills a larger share of mutants than a weak one, on the lines each covers`, async function () {
        const missing = TOOLS_OF[language].filter((t) => !hasTool(t, t === 'go' ? ['version'] : ['--version']));
        if (missing.length) skipBecause(this, `${missing.join(', ')} not installed here`, { tools: missing });
        const task = await fixtureTask(language);
        const repoDir = fixture(FIXTURE_OF[language]);
        const before = treeDigest(repoDir);
        const read = (name: string) => fs.readFileSync(path.join(REPO_ROOT, 'test', 'data', 'mutation', language, `${name}.${EXT[language]}`), 'utf8');
        const strong = await runMutationTesting(task, language, read('strong'), { executor, repoDir, maxMutants: MAX });
        const weak = await runMutationTesting(task, language, read('weak'), { executor, repoDir, maxMutants: MAX });
        const show = (r: MutationResult) => JSON.stringify({ ...r, perMutant: r.perMutant.map((m) => `${m.line} ${m.operator} ${m.original} -> ${m.replacement}: ${m.outcome}`) }, null, 1);
        for (const r of [strong, weak]) {
          assert.equal(r.error, undefined, show(r));
          assert.ok(r.mutants > 0 && r.mutants <= MAX, show(r));
          assert.equal(r.killed + r.survived + r.timedOut + r.unviable, r.mutants);
          assert.equal(r.viable, r.mutants - r.unviable);
          assert.ok(r.mutantTimeoutMs >= 10_000);
        }
        assert.ok(strong.score > weak.score, `strong ${strong.score} > weak ${weak.score}\n${show(strong)}\n${show(weak)}`);
        assert.ok(strong.killed + strong.timedOut > weak.killed + weak.timedOut, 'the strong test kills more mutants');

        // Only covered lines: the weak test's mutants all sit on lines its clean run covers.
        const covered = (await evaluateTest(task, language, read('weak'), { executor, repoDir })).score.coverage.covered;
        assert.ok(weak.perMutant.every((m) => covered.includes(m.line)), `weak mutants on ${weak.perMutant.map((m) => m.line)} within covered ${covered}`);
        assert.equal(treeDigest(repoDir), before, 'the fixture is unchanged');
      });
    }

    it('go: a mutant that loops forever times out and counts as killed; one that does not compile is unviable', async function () {
      if (!hasTool('go', ['version'])) skipBecause(this, 'go not installed here');
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-mutation-go-'));
      try {
        fs.writeFileSync(path.join(dir, 'go.mod'), 'module example.com/sum\n\ngo 1.21\n');
        fs.writeFileSync(
          path.join(dir, 'sum.go'),
          [
            'package sum',
            '',
            'var recorded int',
            '',
            'func record(v int) { recorded = v }',
            '',
            '// Sum adds 0..n-1 and records the total.',
            'func Sum(n int) int {',
            '\ttotal := 0',
            '\tfor i := 0; i < n; i++ {',
            '\t\ttotal += i',
            '\t}',
            '\tlast := total',
            '\trecord(last)',
            '\treturn total',
            '}',
            '',
          ].join('\n'),
        );
        // Shorter than extraction's 20-line minimum: the task is made as extraction would record it.
        const task = await snippetTask('go', fs.readFileSync(path.join(dir, 'sum.go'), 'utf8'), 'Sum', `${path.basename(dir)}/sum.go`);
        const test = 'package sum\n\nimport "testing"\n\nfunc TestSum(t *testing.T) {\n\tif got := Sum(4); got != 6 {\n\t\tt.Fatalf("Sum(4) = %d", got)\n\t}\n}\n';
        const r = await runMutationTesting(task, 'go', test, { executor, repoDir: dir, maxMutants: 1000, mutantTimeoutMs: 3_000 });
        assert.equal(r.error, undefined);
        const outcome = (original: string, replacement: string) => r.perMutant.find((m) => m.original === original && m.replacement === replacement)?.outcome;
        assert.equal(outcome('++', '--'), 'timeout', 'i-- never reaches n');
        assert.equal(outcome('record(last)', ''), 'unviable', 'last is then declared and not used');
        assert.equal(r.mutantTimeoutMs, 3_000);
        assert.ok(r.timedOut >= 1 && r.unviable >= 1);
        assert.equal(r.score, (r.killed + r.timedOut) / r.viable, 'timeouts count as killed; unviable mutants do not count');
        assert.deepEqual(toResultMutation(r), {
          mutants: r.mutants,
          viable: r.viable,
          killed: r.killed,
          survived: r.survived,
          timed_out: r.timedOut,
          unviable: r.unviable,
          score: r.score,
          // What improvement rounds read: the mutants detected (the timed-out one among them) and those that survived.
          detected: r.perMutant.filter((m) => m.outcome === 'killed' || m.outcome === 'timeout').map((m) => m.id),
          survivors: r.perMutant.filter((m) => m.outcome === 'survived').map((m) => ({ id: m.id, operator: m.operator, line: m.line, original: m.original, replacement: m.replacement })),
        });
        const stored = toResultMutation(r);
        assert.equal(stored.detected?.length, r.killed + r.timedOut);
        assert.ok(stored.detected?.includes(r.perMutant.find((m) => m.outcome === 'timeout')!.id), 'the timed-out mutant counts as detected');
        assert.equal(stored.survivors?.length, r.survived);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it("go: a test that checks the focal file's text instead of its behaviour kills no mutant (issue 31): the sentinels catch it", async function () {
      if (!hasTool('go', ['version'])) skipBecause(this, 'go not installed here');
      const task = await fixtureTask('go');
      const repoDir = fixture(FIXTURE_OF.go);
      // Calls Status once (so its lines are covered) and fails whenever item.go is not the original
      // text: every mutant "killed", MS 1.0, without testing anything Status does.
      const sum = createHash('sha256').update(task.file_content).digest('hex');
      const reader = `package inventory

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"testing"
)

func TestStatusText(t *testing.T) {
	_ = (Item{Quantity: 5}).Status(1)
	b, _ := os.ReadFile("${path.basename(task.file_path)}")
	h := sha256.Sum256(b)
	if hex.EncodeToString(h[:]) != "${sum}" {
		t.Fatal("changed")
	}
}
`;
      const honest = fs.readFileSync(path.join(REPO_ROOT, 'test', 'data', 'mutation', 'go', 'strong.go'), 'utf8');
      const r = await runMutationTesting(task, 'go', reader, { executor, repoDir, maxMutants: 8 });
      assert.equal(r.readsSource, true, JSON.stringify(r));
      assert.equal(r.score, 0, 'a test that reads the source detects nothing by behaviour');
      assert.equal(r.mutants, 0, 'no mutant is counted for it');
      assert.match(r.error ?? '', /differs from the original only in/);
      assert.equal(toResultMutation(r).reads_source, true);
      // An honest test is not flagged: every sentinel survives it.
      const fair = await runMutationTesting(task, 'go', honest, { executor, repoDir, maxMutants: 8 });
      assert.equal(fair.readsSource, undefined, JSON.stringify(fair));
      assert.equal(fair.error, undefined);
      assert.ok(fair.score > 0);
    });

    it('a test that fails on the original code runs no mutant and says why', async function () {
      if (!hasTool('ruby') || !hasTool('rspec')) skipBecause(this, 'ruby or rspec not installed here');
      const task = await fixtureTask('ruby');
      const failing = "RSpec.describe Bookshelf::Catalog do\n  it('fails') { expect(described_class.new([]).search('x')).to eq([1]) }\nend\n";
      const r = await runMutationTesting(task, 'ruby', failing, { executor, repoDir: fixture(FIXTURE_OF.ruby) });
      assert.match(r.error ?? '', /does not pass on the original code/);
      assert.equal(r.mutants, 0);
      assert.equal(r.score, 0);
    });
  });
});
