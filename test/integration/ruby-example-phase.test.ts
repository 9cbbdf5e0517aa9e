import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkRepository, formatRepositoryCheck } from '../../src/engine/doctor-repo';
import { evaluateTest, type Evaluation } from '../../src/engine/execute/evaluate';
import { LocalExecutor } from '../../src/engine/execute/local';
import { extractRepository } from '../../src/engine/extract/extract';
import { codeViews, tamperingRulesFor } from '../../src/engine/score/tampering';
import type { TaskRecord } from '../../src/engine/tasks/record';
import { treeDigest } from '../helpers/evaluate';
import { hasTool, skipBecause } from '../helpers/skip';
import { COUNTER } from '../helpers/ruby-counter';

/**
 * Ruby (issue 12, item 5): Cov counts the example phase only (no `def` header, no hook of the
 * project's), the warm-up decides `bundle exec` from a trusted `bundle check` and a probe of the spec
 * helper, and a bundle the tests cannot run without is an environment verdict, not the test's fault.
 */

/** A spec helper whose after hook runs Counter.reset! after every example, as real suites restore state. */
const HELPER = `require 'counter'
RSpec.configure do |c|
  c.after { Counter.reset! }
end
`;

function project(files: Record<string, string>): string {
  const dir = path.join(fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-rbphase-'))), 'counter');
  const all: Record<string, string> = { 'Gemfile': "source 'https://rubygems.org'\n", 'lib/counter.rb': COUNTER, 'spec/spec_helper.rb': HELPER, ...files };
  for (const [rel, text] of Object.entries(all)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

async function taskOf(dir: string, name: string): Promise<TaskRecord> {
  const { tasks } = await extractRepository(dir, {
    languages: ['ruby'],
    filters: { minLines: 1, requireOutput: false },
    repository: { name: 'counter', url: dir, commit: null, path: dir },
  });
  const task = tasks.find((t) => t.function_name === name);
  if (!task) throw new Error(`no task ${name}: ${tasks.map((t) => t.function_name).join(', ')}`);
  return task;
}

function why(e: Evaluation): string {
  return `\n${e.phases.map((p) => `$ ${p.argv.join(' ')} -> ${p.exitCode}\n${p.output.slice(-1500)}`).join('\n')}`;
}

// Its own warm-environment root: these tests read the warm-up's own output, which a kept answer for
// the same project (languages/ruby/warm-answer.ts, from an earlier run on this machine) would skip.
const cacheRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-rbphase-cache-'));
after(() => fs.rmSync(cacheRoot, { recursive: true, force: true }));
const executor = new LocalExecutor({ cacheRoot });

function needRuby(ctx: Mocha.Context): void {
  if (!hasTool('ruby') || !hasTool('rspec')) skipBecause(ctx, 'ruby or rspec is not installed here (Debian: ruby, ruby-rspec)');
}

async function evaluate(dir: string, focal: string, spec: string): Promise<Evaluation> {
  return evaluateTest(await taskOf(dir, focal), 'ruby', spec, { executor, repoDir: dir });
}

describe('ruby: Cov counts the example phase only', function () {
  this.timeout(300_000);

  it('a spec that never calls the method scores Cov 0, though the spec helper\'s after hook runs it', async function () {
    needRuby(this);
    const dir = project({});
    try {
      const e = await evaluate(dir, 'reset!', `require 'spec_helper'\nRSpec.describe Counter do\n  it 'doubles' do\n    expect(Counter.new.twice(2)).to eq(4)\n  end\nend\n`);
      assert.equal(e.score.passed, true, 'passed' + why(e));
      assert.deepEqual(e.score.coverage.executable, [3, 4], 'the body; the def line is left out');
      assert.deepEqual(e.score.coverage.covered, [], 'the hook of the spec helper ran both lines: not the test\'s');
      assert.equal(e.score.coverageRatio, 0);
    } finally {
      fs.rmSync(path.dirname(dir), { recursive: true, force: true });
    }
  });

  it("the test's own before hook and let! count; a one-line method keeps its line", async function () {
    needRuby(this);
    const dir = project({});
    try {
      const spec = `require 'spec_helper'\nRSpec.describe Counter do\n  let!(:start) { Counter.bump(0) }\n  before { Counter.bump(1) }\n  it 'is one' do\n    expect(Counter.new.one).to eq(1)\n  end\nend\n`;
      const bump = await evaluate(dir, 'bump', spec);
      assert.equal(bump.score.passed, true, 'passed' + why(bump));
      assert.deepEqual(bump.score.coverage.covered, [8, 9]);
      assert.deepEqual(bump.score.coverage.executable, [8, 9]);
      const one = await evaluate(dir, 'one', spec);
      assert.deepEqual(one.score.coverage.executable, [17]);
      assert.deepEqual(one.score.coverage.covered, [17]);
    } finally {
      fs.rmSync(path.dirname(dir), { recursive: true, force: true });
    }
  });

  it('describe-level code (run while the file loads) does not count; the example body does', async function () {
    needRuby(this);
    const dir = project({});
    try {
      const atLoad = await evaluate(dir, 'twice', `require 'spec_helper'\nRSpec.describe Counter do\n  VALUE = Counter.new.twice(3)\n  it 'is six' do\n    expect(VALUE).to eq(6)\n  end\nend\n`);
      assert.equal(atLoad.score.passed, true, 'passed' + why(atLoad));
      assert.deepEqual(atLoad.score.coverage.covered, []);
      const inExample = await evaluate(dir, 'twice', `require 'spec_helper'\nRSpec.describe Counter do\n  it 'is six' do\n    expect(Counter.new.twice(3)).to eq(6)\n  end\nend\n`);
      assert.deepEqual(inExample.score.coverage.covered, [13, 14]);
      assert.deepEqual(inExample.score.coverage.executable, [13, 14]);
    } finally {
      fs.rmSync(path.dirname(dir), { recursive: true, force: true });
    }
  });
});

describe('ruby: bundle exec and the environment verdict', function () {
  this.timeout(300_000);

  const SPEC = `require 'spec_helper'\nRSpec.describe Counter do\n  it 'doubles' do\n    expect(Counter.new.twice(2)).to eq(4)\n  end\nend\n`;
  const runner = (e: Evaluation): string[] => e.phases.find((p) => p.phase === 'test')?.argv ?? [];

  it('a spec helper needing a gem that is not installed: environment (dependencies-unresolvable), the gem named', async function () {
    needRuby(this);
    const dir = project({ 'spec/spec_helper.rb': `require 'xrt_no_such_gem'\n${HELPER}` });
    try {
      const e = await evaluate(dir, 'twice', SPEC);
      assert.equal(e.score.failure?.category, 'environment', why(e));
      assert.equal(e.environment?.cause, 'dependencies-unresolvable');
      assert.match(e.environment!.reason, /xrt_no_such_gem/);
      assert.equal(e.phases.some((p) => p.phase === 'test'), false, 'the test never ran');
    } finally {
      fs.rmSync(path.dirname(dir), { recursive: true, force: true });
    }
  });

  it('a Gemfile (with or without its lock) whose gems are installed: rspec runs through bundle exec, with the same coverage', async function () {
    needRuby(this);
    const dir = project({ 'Gemfile': "source 'https://rubygems.org'\ngem 'rspec-core'\ngem 'rspec-expectations'\n" });
    try {
      // The lock as this machine's bundler writes it for its installed gems (no network: it resolves locally).
      const lock = require('node:child_process').spawnSync('ruby', ['-e', 'load Gem.bin_path("bundler", "bundle")', 'lock', '--local'], { cwd: dir, encoding: 'utf8', env: { ...process.env, HOME: dir } });
      if (lock.status !== 0) skipBecause(this, `bundler cannot lock the installed rspec here: ${lock.stderr || lock.stdout}`);
      const e = await evaluate(dir, 'twice', SPEC);
      assert.equal(e.score.passed, true, 'passed' + why(e));
      assert.deepEqual(runner(e).slice(0, 5), ['ruby', '-e', 'load Gem.bin_path("bundler", "bundle")', 'exec', 'rspec']);
      assert.ok(e.placement?.notes.some((n) => /bundle exec/.test(n)));
      assert.deepEqual(e.score.coverage.covered, [13, 14]);
      // A Gemfile alone whose gems are installed (what an environment image's `bundle install` leaves): bundle exec too.
      fs.rmSync(path.join(dir, 'Gemfile.lock'));
      const unlocked = await evaluate(dir, 'twice', SPEC);
      assert.equal(unlocked.score.passed, true, 'passed' + why(unlocked));
      assert.equal(runner(unlocked)[3], 'exec');
      assert.equal(fs.existsSync(path.join(dir, 'Gemfile.lock')), false, 'the lock bundle check wrote stayed in the copy');
    } finally {
      fs.rmSync(path.dirname(dir), { recursive: true, force: true });
    }
  });

  it('a Gemfile.lock whose bundle is not installed, but the spec helper loads without it: plain rspec, scored', async function () {
    needRuby(this);
    const lock = 'GEM\n  remote: https://rubygems.org/\n  specs:\n    xrt-missing (9.9.9)\n\nPLATFORMS\n  ruby\n\nDEPENDENCIES\n  xrt-missing (= 9.9.9)\n\nBUNDLED WITH\n   2.3.7\n';
    const dir = project({ 'Gemfile': "source 'https://rubygems.org'\ngem 'xrt-missing', '9.9.9'\n", 'Gemfile.lock': lock });
    try {
      const e = await evaluate(dir, 'twice', SPEC);
      assert.equal(e.score.passed, true, 'passed' + why(e));
      assert.equal(runner(e)[0], 'rspec');
      assert.match(e.phases[0].output, /XRT_BUNDLE_NOT_INSTALLED/);
    } finally {
      fs.rmSync(path.dirname(dir), { recursive: true, force: true });
    }
  });

  it('a Gemfile.lock whose bundle is not installed and a spec helper that needs it: environment, saying so', async function () {
    needRuby(this);
    const lock = 'GEM\n  remote: https://rubygems.org/\n  specs:\n    xrt-missing (9.9.9)\n\nPLATFORMS\n  ruby\n\nDEPENDENCIES\n  xrt-missing (= 9.9.9)\n\nBUNDLED WITH\n   2.3.7\n';
    const dir = project({ 'Gemfile': "source 'https://rubygems.org'\ngem 'xrt-missing', '9.9.9'\n", 'Gemfile.lock': lock, 'spec/spec_helper.rb': `require 'xrt-missing'\n${HELPER}` });
    try {
      const e = await evaluate(dir, 'twice', SPEC);
      assert.equal(e.environment?.cause, 'dependencies-unresolvable', why(e));
      assert.match(e.environment!.reason, /bundle is not installed here/);
      assert.match(e.environment!.reason, /xrt-missing/);
    } finally {
      fs.rmSync(path.dirname(dir), { recursive: true, force: true });
    }
  });

  it('a hostile Gemfile runs in the sandbox only: it cannot write the checkout or reach the network', async function () {
    needRuby(this);
    if (!executor.isolated) skipBecause(this, 'bubblewrap is not installed: the local executor cannot isolate (apt-get install bubblewrap)');
    const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-rbgemfile-')));
    const hostile = `File.write(${JSON.stringify(path.join(outside, 'pwned'))}, 'x') rescue nil
require 'socket'
begin
  TCPSocket.new('deb.debian.org', 80)
  warn 'XRT_GEMFILE_REACHED_THE_NETWORK'
rescue StandardError
end
Dir.glob(File.join(${JSON.stringify(outside)}, '..', 'xrt-rbphase-*', 'counter', 'lib', '*.rb')).each { |f| File.write(f, 'raise') rescue nil }
source 'https://rubygems.org'
gem 'rspec-core'
`;
    const lock = 'GEM\n  remote: https://rubygems.org/\n  specs:\n    rspec-core (0.0.1)\n\nPLATFORMS\n  ruby\n\nDEPENDENCIES\n  rspec-core\n\nBUNDLED WITH\n   2.3.7\n';
    const dir = project({ 'Gemfile': hostile, 'Gemfile.lock': lock });
    try {
      const before = treeDigest(dir);
      const e = await evaluate(dir, 'twice', SPEC);
      assert.equal(fs.existsSync(path.join(outside, 'pwned')), false, 'nothing written outside the sandbox');
      assert.equal(treeDigest(dir), before, 'the checkout is unchanged');
      assert.doesNotMatch(e.phases[0].output, /XRT_GEMFILE_REACHED_THE_NETWORK/, 'no network in the warm-up');
      assert.equal(e.score.passed, true, 'the test still runs (plain rspec: the pinned rspec-core 0.0.1 is not installed)' + why(e));
    } finally {
      fs.rmSync(path.dirname(dir), { recursive: true, force: true });
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe('ruby: a spec cannot forge coverage through the counting windows', function () {
  this.timeout(300_000);

  // Never calls reset!, but reaches the collector's locals through the wrapped example block's binding
  // and marks every line of counter.rb as run.
  const FORGE_BINDING = `require 'spec_helper'
RSpec.describe Counter do
  it 'forges' do
    blk = RSpec.current_example.instance_variable_get(:@example_block)
    hits = blk.binding.local_variable_get(:hits)
    hits.each { |file, lines| lines.map! { |n| n && 1 } if file.end_with?('counter.rb') }
    expect(1).to eq(1)
  end
end
`;
  // Clears Coverage's counters mid-example: it can only lose counts, and the sign names it.
  const CLEAR_COVERAGE = `require 'spec_helper'
RSpec.describe Counter do
  it 'clears' do
    Counter.reset!
    Coverage.result(stop: false, clear: true)
    expect(1).to eq(1)
  end
end
`;
  // Re-registers the spec helper's hook as one of its own by unwrapping RSpec's hook funnel.
  const UNWRAP_HOOKS = `require 'spec_helper'
RSpec::Core::Hooks::HookCollections.prepend(Module.new { def register(*a, &b) = super })
RSpec.describe Counter do
  it 'does nothing' do
    expect(1).to eq(1)
  end
end
`;

  for (const [name, code] of [['binding', FORGE_BINDING], ['hooks', UNWRAP_HOOKS]] as const) {
    it(`the sign ruby-coverage-windows finds the ${name} trick in the code`, async () => {
      const views = await codeViews('ruby', code);
      const sign = tamperingRulesFor('ruby').signs.find((s) => s.id === 'ruby-coverage-windows')!;
      assert.ok(sign.regex.test(views.code));
    });
  }

  it('honest specs (let, subject, instance_variable_get, ERB with the test\'s own binding, GC) do not look like the trick', async () => {
    const honest = `RSpec.describe Counter do\n  let(:binding_name) { 'x' }\n  subject { described_class.new }\n  it 'reads state' do\n    expect(subject.instance_variable_get(:@count)).to be_nil\n    expect(RSpec::Core::ExampleGroup).to be_a(Class)\n    expect("binding").to eq('binding')\n    expect(ERB.new('<%= 1 + 1 %>').result(binding)).to eq('2')\n    ObjectSpace.garbage_collect\n  end\nend\n`;
    const views = await codeViews('ruby', honest);
    const sign = tamperingRulesFor('ruby').signs.find((s) => s.id === 'ruby-coverage-windows')!;
    assert.equal(sign.regex.test(views.code), false);
  });

  it('the binding forgery runs (its report claims the lines), and is scored tampering with Cov 0', async function () {
    needRuby(this);
    const dir = project({});
    try {
      const e = await evaluateTest(await taskOf(dir, 'reset!'), 'ruby', FORGE_BINDING, { executor, repoDir: dir, keepSandbox: true });
      try {
        assert.equal(e.score.failure?.category, 'tampering', why(e));
        assert.equal(e.score.failure?.rule, 'ruby-coverage-windows');
        assert.equal(e.score.passed, false);
        assert.equal(e.score.coverageRatio, 0);
        // The attack is real: the report it left claims reset!'s body ran in an example.
        const xrt = path.join(e.sandboxDir!, '.xrt');
        const out = fs.readdirSync(xrt).find((n) => n.startsWith('out-'))!;
        const report = JSON.parse(fs.readFileSync(path.join(xrt, out, 'coverage.json'), 'utf8')) as Record<string, { lines: Array<number | null> }>;
        const counter = Object.entries(report).find(([f]) => f.endsWith('lib/counter.rb'))![1].lines;
        assert.deepEqual([counter[2], counter[3]], [1, 1]);
      } finally {
        if (e.sandboxDir) fs.rmSync(e.sandboxDir, { recursive: true, force: true });
      }
    } finally {
      fs.rmSync(path.dirname(dir), { recursive: true, force: true });
    }
  });

  it('clearing Coverage mid-example loses counts, never gains them, and is flagged', async function () {
    needRuby(this);
    const dir = project({});
    try {
      const e = await evaluate(dir, 'reset!', CLEAR_COVERAGE);
      assert.equal(e.score.failure?.category, 'tampering', why(e));
      assert.deepEqual(e.score.coverage.covered, [], 'the reset! call was cleared away with the counters');
    } finally {
      fs.rmSync(path.dirname(dir), { recursive: true, force: true });
    }
  });
});

describe('ruby: doctor --repo checks the bundle as a run does', function () {
  this.timeout(300_000);
  const LOCK = 'GEM\n  remote: https://rubygems.org/\n  specs:\n    xrt-missing (9.9.9)\n\nPLATFORMS\n  ruby\n\nDEPENDENCIES\n  xrt-missing (= 9.9.9)\n\nBUNDLED WITH\n   2.3.7\n';

  it('no Gemfile.lock: ok, plain rspec; a lock whose bundle the spec helper needs: dependencies-unresolvable', async function () {
    needRuby(this);
    const plain = project({});
    const locked = project({ 'Gemfile': "source 'https://rubygems.org'\ngem 'xrt-missing', '9.9.9'\n", 'Gemfile.lock': LOCK, 'spec/spec_helper.rb': `require 'xrt-missing'\n${HELPER}` });
    try {
      const ok = await checkRepository(plain, { executor, languages: ['ruby'] });
      assert.deepEqual(ok.problems, [], formatRepositoryCheck(ok));
      assert.match(ok.languages[0].notes?.join('\n') ?? '', /Gemfile\.lock: no; .*specs run with the plain `rspec`/);
      const bad = await checkRepository(locked, { executor, languages: ['ruby'] });
      assert.deepEqual(bad.problems.map((p) => p.cause), ['dependencies-unresolvable'], formatRepositoryCheck(bad));
      assert.match(bad.problems[0].reason, /bundle is not installed here.*xrt-missing/);
      assert.match(formatRepositoryCheck(bad), /\[dependencies-unresolvable\]/);
    } finally {
      fs.rmSync(path.dirname(plain), { recursive: true, force: true });
      fs.rmSync(path.dirname(locked), { recursive: true, force: true });
    }
  });
});
