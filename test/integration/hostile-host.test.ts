import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { evaluateTest, type Evaluation } from '../../src/engine/execute/evaluate';
import { checkEnvironment, formatEnvironment } from '../../src/engine/environment';
import { localHostViewArgs } from '../../src/engine/execute/host-view';
import { FIXED_SANDBOX_PATH, LocalExecutor } from '../../src/engine/execute/local';
import type { LanguageId } from '../../src/engine/parse/grammars';
import { FIXTURE_OF, fixtureTask, treeDigest } from '../helpers/evaluate';
import { fixture } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';

/**
 * A generated test runs on the user's machine and what it prints goes back to the model in repair
 * rounds and into the stored results. Under the local executor it must see the toolchains, its own
 * copy, and nothing else of the host: not the home folder, not the original checkout, not the
 * system's secrets.
 */
describe('hostile generated tests look around the host (local executor)', function () {
  this.timeout(600_000);
  const secret = `xrt-secret-${process.pid}-${randomUUID()}`;
  const secretFile = path.join(os.homedir(), `.xrt-secret-${process.pid}`);
  let executor: LocalExecutor;

  before(function () {
    const local = new LocalExecutor();
    if (!local.isolated) skipBecause(this, 'bubblewrap is not installed: the local executor cannot isolate (apt-get install bubblewrap)');
    executor = local;
    fs.writeFileSync(secretFile, secret + '\n', { mode: 0o600 });
  });
  after(() => fs.rmSync(secretFile, { force: true }));

  async function attack(language: LanguageId, code: string): Promise<{ e: Evaluation; output: string }> {
    const repo = fixture(FIXTURE_OF[language]);
    const before = treeDigest(repo);
    const e = await evaluateTest(await fixtureTask(language), language, code, { executor, repoDir: repo, timeouts: { testMs: 60_000 } });
    assert.equal(treeDigest(repo), before, "the user's tree is unchanged");
    const output = e.phases.map((p) => p.output).join('\n');
    const test = e.phases.find((p) => p.phase === 'test');
    assert.ok(test, `the test phase ran:\n${output.slice(-2000)}`);
    return { e, output };
  }

  /**
   * A Go test reporting each path as VISIBLE (a file, with what it read), LISTED (a folder, with its
   * entries) or HIDDEN (absent, unreadable or empty); it always fails, so its output is kept.
   */
  function goProbe(paths: string[]): string {
    return [
      'package inventory',
      '',
      'import (',
      '\t"os"',
      '\t"strings"',
      '\t"testing"',
      ')',
      '',
      'func TestLooksAround(t *testing.T) {',
      `\tfor _, p := range []string{${paths.map((p) => JSON.stringify(p)).join(', ')}} {`,
      '\t\tif st, err := os.Stat(p); err == nil && st.IsDir() {',
      '\t\t\tif entries, err := os.ReadDir(p); err == nil && len(entries) > 0 {',
      '\t\t\t\tnames := []string{}',
      '\t\t\t\tfor _, e := range entries {',
      '\t\t\t\t\tnames = append(names, e.Name())',
      '\t\t\t\t}',
      '\t\t\t\tt.Logf("LISTED %s: %s", p, strings.Join(names, " "))',
      '\t\t\t\tcontinue',
      '\t\t\t}',
      '\t\t} else if data, err := os.ReadFile(p); err == nil && len(data) > 0 {',
      '\t\t\tt.Logf("VISIBLE %s: %s", p, data)',
      '\t\t\tcontinue',
      '\t\t}',
      '\t\tt.Logf("HIDDEN %s", p)',
      '\t}',
      '\tif data, err := os.ReadFile("go.mod"); err == nil && len(data) > 0 {',
      '\t\tt.Log("COPY-READABLE")',
      '\t}',
      '\tt.Fatal("looked around")',
      '}',
      '',
    ].join('\n');
  }

  function visible(output: string, word = 'VISIBLE'): string[] {
    return output.split('\n').filter((l) => l.includes(`${word} `));
  }

  it('reads a secret file in the home folder: it is not there, so neither the output nor the stored result has it', async function () {
    if (!hasTool('go', ['version'])) skipBecause(this, 'go is not installed');
    const { e, output } = await attack('go', goProbe([secretFile, os.homedir()]));
    assert.match(output, /COPY-READABLE/, `the probe ran in its copy:\n${output.slice(-2000)}`);
    assert.match(output, new RegExp(`HIDDEN ${secretFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.deepEqual(visible(output), []);
    // The home folder may show the toolchain folders bound inside it; never the user's files.
    for (const listed of visible(output, 'LISTED')) assert.equal(listed.includes(path.basename(secretFile)), false, listed);
    assert.equal(JSON.stringify(e).includes(secret), false, 'the secret is nowhere in the evaluation');
    assert.equal(e.score.passed, false);
  });

  it('lists and reads the original checkout and its parent: only the sandbox copy is there', async function () {
    if (!hasTool('go', ['version'])) skipBecause(this, 'go is not installed');
    const repo = fixture('inventory-go');
    const { output } = await attack('go', goProbe([repo, path.join(repo, 'go.mod'), path.dirname(repo), path.dirname(path.dirname(repo))]));
    assert.match(output, /COPY-READABLE/, `the probe ran in its copy:\n${output.slice(-2000)}`);
    assert.deepEqual([...visible(output), ...visible(output, 'LISTED')], []);
    assert.equal((output.match(/HIDDEN /g) ?? []).length, 4, output.slice(-2000));
  });

  it('lists the root folder: only the folders the view mounts are there, nothing else of the host', async function () {
    if (!hasTool('go', ['version'])) skipBecause(this, 'go is not installed');
    const fixedTop = path.dirname(FIXED_SANDBOX_PATH);
    const { output } = await attack('go', goProbe(['/', fixedTop]));
    const listed = /LISTED \/: ([^"\\]*)/.exec(output);
    assert.ok(listed, output.slice(-2000));
    const args = localHostViewArgs();
    const mounted = args.flatMap((a, i) => (['--ro-bind', '--tmpfs'].includes(a) ? [args[a === '--tmpfs' ? i + 1 : i + 2]] : a === '--symlink' ? [args[i + 2]] : []));
    // Go's phases see the sandbox at the executor's fixed path: its folder holds that copy and nothing else.
    const allowed = new Set([...mounted.map((p) => p.split('/')[1]), 'dev', 'proc', 'tmp', os.tmpdir().split('/')[1], fixedTop.split('/')[1]]);
    const extra = listed[1].trim().split(' ').filter((n) => !allowed.has(n));
    assert.deepEqual(extra, [], `the root shows only what is mounted: ${listed[1]}`);
    const inFixed = new RegExp(`LISTED ${fixedTop}: ([^"\\\\\n]*)`).exec(output);
    assert.equal(inFixed?.[1].trim() ?? '(not listed)', path.basename(FIXED_SANDBOX_PATH), output.slice(-2000));
  });

  it("reads the system's secrets (/etc/shadow, ssh keys): not readable", async function () {
    if (!hasTool('go', ['version'])) skipBecause(this, 'go is not installed');
    const targets = ['/etc/shadow', '/etc/gshadow', '/etc/ssh', '/etc/ssl/private'].filter((p) => fs.existsSync(p));
    const { output } = await attack('go', goProbe(targets));
    assert.match(output, /COPY-READABLE/, `the probe ran in its copy:\n${output.slice(-2000)}`);
    assert.deepEqual([...visible(output), ...visible(output, 'LISTED')], []);
    assert.equal((output.match(/HIDDEN /g) ?? []).length, targets.length, output.slice(-2000));
    // Whatever the probe printed, no line of the host's shadow file is in it.
    let shadow = '';
    try {
      shadow = fs.readFileSync('/etc/shadow', 'utf8');
    } catch {
      /* not readable by this user: nothing to compare */
    }
    for (const line of shadow.split('\n').filter((l) => l.trim())) assert.equal(output.includes(line), false, 'a line of /etc/shadow was printed');
  });

  it("PHP: reads the other languages' toolchains and caches (the Go module cache, cargo's registry, rustup): none is there", async function () {
    if (!hasTool('php') || !hasTool('phpunit', ['--version'])) skipBecause(this, 'php or phpunit is not installed');
    // Folders another language's commands are shown (host-view.ts): a PHP test has no use for them.
    const others = [
      hasTool('go', ['version']) ? spawnSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).stdout.trim() : '',
      path.join(process.env.CARGO_HOME ?? path.join(os.homedir(), '.cargo'), 'registry'),
      process.env.RUSTUP_HOME ?? path.join(os.homedir(), '.rustup'),
    ].filter((p) => p && fs.existsSync(p) && fs.readdirSync(p).length > 0);
    if (!others.length) skipBecause(this, 'no other toolchain folder on this machine (Go module cache, cargo registry, rustup)');
    const code = [
      '<?php',
      'declare(strict_types=1);',
      'namespace Textkit\\Tests;',
      "require_once __DIR__ . '/../vendor/autoload.php';",
      'use PHPUnit\\Framework\\TestCase;',
      'final class SluggerTest extends TestCase',
      '{',
      '    public function testLooksAround(): void',
      '    {',
      `        foreach ([${others.map((p) => JSON.stringify(p)).join(', ')}] as $p) {`,
      '            $entries = is_dir($p) ? @scandir($p) : false;',
      '            echo ($entries !== false && count($entries) > 2) ? "LISTED $p\\n" : "HIDDEN $p\\n";',
      '        }',
      "        $this->assertSame('looked', 'around');",
      '    }',
      '}',
      '',
    ].join('\n');
    const { e, output } = await attack('php', code);
    assert.equal((output.match(/HIDDEN /g) ?? []).length, others.length, output.slice(-2000));
    assert.deepEqual(visible(output, 'LISTED'), []);
    assert.equal(e.score.passed, false);
  });

  it('Ruby: reads the home secret and lists the checkout: neither is there', async function () {
    if (!hasTool('ruby') || !hasTool('rspec')) skipBecause(this, 'ruby or rspec is not installed');
    const repo = fixture('bookshelf-rb');
    const code = [
      "require 'rspec'",
      '',
      'RSpec.describe Bookshelf::Catalog do',
      "  it 'looks around' do",
      `    [${JSON.stringify(secretFile)}, ${JSON.stringify(path.join(repo, 'Gemfile'))}].each do |p|`,
      '      begin',
      '        puts "VISIBLE #{p}: #{File.read(p)}"',
      '      rescue SystemCallError => e',
      '        puts "HIDDEN #{p} (#{e.class})"',
      '      end',
      '    end',
      `    puts(Dir.exist?(${JSON.stringify(repo)}) ? "VISIBLE dir" : "HIDDEN dir")`,
      "    expect(Bookshelf::Catalog.new([]).search('x')).to eq(:looked_around)",
      '  end',
      'end',
      '',
    ].join('\n');
    const { e, output } = await attack('ruby', code);
    assert.equal((output.match(/HIDDEN /g) ?? []).length, 3, output.slice(-2000));
    assert.deepEqual(visible(output), []);
    assert.equal(JSON.stringify(e).includes(secret), false, 'the secret is nowhere in the evaluation');
    assert.equal(e.score.passed, false);
  });
});

describe('xrepotest doctor: what each executor exposes', function () {
  this.timeout(120_000);

  it('lists, for the local executor, the host folders a test reads and the ones shown empty, as bubblewrap gets them', async function () {
    if (!new LocalExecutor().isolated) skipBecause(this, 'bubblewrap is not installed');
    const report = await checkEnvironment();
    const text = formatEnvironment(report);
    assert.match(text, /What a generated test sees of this machine:\n {4}read-only: \/usr/);
    assert.match(text, /What a generated test sees \(docker executor\):\n {4}read-only: nothing of the host/);
    const args = localHostViewArgs();
    const readOnly = report.exposes.local.find((l) => l.startsWith('read-only: '))!;
    const named = readOnly.slice('read-only: '.length).replace(/ \(and the links .*\)$/, '').split(', ');
    const bound = args.flatMap((a, i) => (a === '--ro-bind' && args[i + 1] !== '/dev/null' ? [args[i + 1]] : []));
    assert.deepEqual(named, bound, 'doctor names exactly the folders bound read-only');
    const empty = report.exposes.local.find((l) => l.startsWith('shown empty: '))!;
    const home = os.homedir();
    assert.ok(empty.slice('shown empty: '.length).split(', ').some((d) => home === d || home.startsWith(d + '/')), `${empty} covers ${home}`);
  });
});
