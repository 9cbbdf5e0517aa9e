import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { phpAutoloaderSource } from '../../src/engine/languages/php/autoload';
import { fixture } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';

/**
 * The fixtures are real projects: their own tests pass with the real toolchains. Later stages run
 * generated tests against them, so a fixture that does not build would poison every later test.
 * Each runs in a throwaway copy, so no build product lands in the tree.
 */
function inCopy(name: string, run: (dir: string) => void): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `xrt-fx-${name}-`));
  try {
    fs.cpSync(fixture(name), dir, { recursive: true });
    run(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function sh(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): string {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 300_000 });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')} failed in ${cwd}:\n${out.slice(-3000)}`);
  return out;
}

describe('the fixture projects build and pass their own tests', function () {
  this.timeout(600_000);

  it('geometry-rs: cargo test', function () {
    if (!hasTool('cargo')) skipBecause(this, 'cargo is not installed', { tools: ['cargo'] });
    inCopy('geometry-rs', (dir) => {
      const out = sh('cargo', ['test', '--quiet'], dir, { CARGO_TARGET_DIR: path.join(dir, 'target') });
      assert.match(out, /test result: ok\. [1-9]\d* passed; 0 failed/);
    });
  });

  it('inventory-go: go vet and go test', function () {
    if (!hasTool('go', ['version'])) skipBecause(this, 'go is not installed', { tools: ['go'] });
    inCopy('inventory-go', (dir) => {
      sh('go', ['vet', './...'], dir);
      const out = sh('go', ['test', '-count=1', './...'], dir);
      assert.match(out, /^ok\s+example\.com\/inventory\s/m);
      assert.match(out, /^ok\s+example\.com\/inventory\/pricing\s/m);
    });
  });

  it('textkit-php: phpunit through an autoloader built from composer.json', function () {
    if (!hasTool('php') || !hasTool('phpunit')) skipBecause(this, 'php or phpunit is not installed (Debian: php-cli phpunit)', { tools: ['php', 'phpunit'] });
    inCopy('textkit-php', (dir) => {
      fs.mkdirSync(path.join(dir, 'vendor'));
      const composer = JSON.parse(fs.readFileSync(path.join(dir, 'composer.json'), 'utf8'));
      fs.writeFileSync(path.join(dir, 'vendor', 'autoload.php'), phpAutoloaderSource(composer));
      const out = sh('phpunit', ['--do-not-cache-result'], dir);
      assert.match(out, /OK \(\d+ tests?, \d+ assertions?\)/);
    });
  });

  it('bookshelf-rb: rspec', function () {
    if (!hasTool('rspec')) skipBecause(this, 'rspec is not installed (Debian: ruby-rspec)', { tools: ['rspec'] });
    inCopy('bookshelf-rb', (dir) => {
      const out = sh('rspec', [], dir);
      assert.match(out, /\d+ examples?, 0 failures/);
    });
  });

  it('MiniStats.jl: Pkg.test', function () {
    if (!hasTool('julia')) skipBecause(this, 'julia is not installed on this machine (no Debian or npm package); the Julia image or a julia binary runs this', { tools: ['julia'] });
    inCopy('MiniStats.jl', (dir) => {
      const out = sh('julia', ['--project=.', '-e', 'using Pkg; Pkg.test()'], dir);
      assert.match(out, /MiniStats tests passed|Testing MiniStats tests passed/);
    });
  });
});
