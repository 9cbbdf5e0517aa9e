import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { evaluateTest, type Evaluation } from '../../src/engine/execute/evaluate';
import { LocalExecutor } from '../../src/engine/execute/local';
import { forgetWarmOutcomes } from '../../src/engine/execute/warm-environment';
import { fixtureTask, generatedTest } from '../helpers/evaluate';
import { fixture } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';

/**
 * Ruby's warm-up answer (which runner; does the project load) is kept per key with the local executor
 * (languages/ruby/warm-answer.ts): a later slot of the same repository, Ruby and gems runs no warm-up
 * and scores as the first did; a changed repository runs it again; a project that cannot load is the
 * key's environment verdict for every slot, with the same reason.
 */
describe('ruby: the warm-up answer kept per key (local executor)', function () {
  this.timeout(300_000);
  let cacheRoot: string;
  let work: string;

  before(function () {
    if (!hasTool('ruby') || !hasTool('rspec')) skipBecause(this, 'ruby and rspec are not installed (apt-get install ruby ruby-rspec)');
    cacheRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-ruby-warm-'));
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-ruby-warm-repos-'));
  });
  after(() => {
    for (const d of [cacheRoot, work]) if (d) fs.rmSync(d, { recursive: true, force: true });
  });

  const warmUps = (e: Evaluation): number => e.phases.filter((p) => p.phase === 'warm-up').length;
  const scoreOf = (e: Evaluation): unknown => {
    const { compiled, passed, coverage, failure } = e.score;
    return { compiled, passed, coverage, failure };
  };
  function copyOfFixture(name: string, change?: (dir: string) => void): string {
    const dir = path.join(work, name);
    fs.cpSync(fixture('bookshelf-rb'), dir, { recursive: true });
    change?.(dir);
    return dir;
  }

  it('runs the warm-up once per key; a later slot (and a later process) scores the same without it; a changed repository runs it again', async () => {
    const task = await fixtureTask('ruby');
    const repo = copyOfFixture('same');
    const executor = new LocalExecutor({ cacheRoot });
    const first = await evaluateTest(task, 'ruby', generatedTest('ruby', 'pass'), { executor, repoDir: repo });
    const second = await evaluateTest(task, 'ruby', generatedTest('ruby', 'pass'), { executor, repoDir: repo });
    assert.equal(first.score.passed, true, first.score.reason ?? '');
    assert.equal(warmUps(first), 1, 'the first slot of the key runs the warm-up');
    assert.equal(warmUps(second), 0, 'the second slot of the key runs none');
    assert.deepEqual(scoreOf(second), scoreOf(first));
    const failing = await evaluateTest(task, 'ruby', generatedTest('ruby', 'fail'), { executor, repoDir: repo });
    assert.equal(warmUps(failing), 0);
    assert.equal(failing.score.passed, false, 'a failing test still fails with the replayed answer');

    // Another process: this one's memory forgotten, the entry on disk answers.
    forgetWarmOutcomes();
    const later = await evaluateTest(task, 'ruby', generatedTest('ruby', 'pass'), { executor: new LocalExecutor({ cacheRoot }), repoDir: repo });
    assert.equal(warmUps(later), 0, 'a ready entry on disk needs no warm-up');
    assert.deepEqual(scoreOf(later), scoreOf(first));

    const changed = copyOfFixture('changed', (d) => fs.appendFileSync(path.join(d, 'Gemfile'), '\n# changed\n'));
    const again = await evaluateTest(task, 'ruby', generatedTest('ruby', 'pass'), { executor, repoDir: changed });
    assert.equal(warmUps(again), 1, 'a changed repository is another key');
    assert.deepEqual(scoreOf(again), scoreOf(first));
  });

  it('a project that cannot load is the key\'s environment verdict for every slot, with the same reason', async () => {
    const task = await fixtureTask('ruby');
    const repo = copyOfFixture('broken', (d) => {
      const helper = path.join(d, 'spec', 'spec_helper.rb');
      fs.writeFileSync(helper, `require 'xrt_gem_that_is_not_installed'\n${fs.readFileSync(helper, 'utf8')}`);
    });
    const executor = new LocalExecutor({ cacheRoot });
    const first = await evaluateTest(task, 'ruby', generatedTest('ruby', 'pass'), { executor, repoDir: repo });
    const second = await evaluateTest(task, 'ruby', generatedTest('ruby', 'pass'), { executor, repoDir: repo });
    assert.equal(first.environment?.cause, 'dependencies-unresolvable', JSON.stringify(first.environment));
    assert.equal(warmUps(first), 1);
    assert.equal(warmUps(second), 0, 'the verdict is kept: no second warm-up');
    assert.deepEqual(second.environment, first.environment);
    assert.equal(second.score.passed, false);
  });

  it("names the gem Bundler cannot find (Bundler::GemNotFound), not RSpec's \"An error occurred while loading spec_helper\"", async () => {
    const task = await fixtureTask('ruby');
    const repo = copyOfFixture('gem-not-found', (d) => {
      // A locked bundle whose gem is not installed, loaded through bundler/setup as many projects do.
      fs.writeFileSync(path.join(d, 'Gemfile'), "source 'https://rubygems.org'\ngem 'rspec'\ngem 'simplecov-cobertura'\n");
      fs.writeFileSync(path.join(d, 'Gemfile.lock'), 'GEM\n  remote: https://rubygems.org/\n  specs:\n    rspec (3.12.0)\n    simplecov-cobertura (2.1.0)\n\nPLATFORMS\n  ruby\n\nDEPENDENCIES\n  rspec\n  simplecov-cobertura\n\nBUNDLED WITH\n   2.3.7\n');
      const helper = path.join(d, 'spec', 'spec_helper.rb');
      fs.writeFileSync(helper, `require 'bundler/setup'\n${fs.readFileSync(helper, 'utf8')}`);
    });
    const e = await evaluateTest(task, 'ruby', generatedTest('ruby', 'pass'), { executor: new LocalExecutor({ cacheRoot }), repoDir: repo });
    assert.equal(e.environment?.cause, 'dependencies-unresolvable', JSON.stringify(e.environment));
    assert.match(e.environment!.reason, /simplecov-cobertura/);
    assert.match(e.environment!.reason, /`bundle install` in /);
  });
});
