import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildProgram } from '../../src/cli/main';
import { forTerminal } from '../../src/engine/util/terminal';
import { providerFor } from '../../src/server/generation';
import { DEFAULT_ENGINE_SETTINGS } from '../../src/shared/protocol';
import { REPO_ROOT } from '../helpers/paths';
import { request, serversAndDirs, TASK } from '../helpers/hostile-providers';

describe('hostile providers', function () {
  this.timeout(60_000);
  const { serve, tmp } = serversAndDirs();

  describe('terminal output', () => {
    const ESCAPES = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/;

    it('forTerminal removes escape sequences and control characters, keeping text, newlines and tabs', () => {
      const hostile = 'a\u001b]0;pwned\u0007b\u001b[2J\u001b[31mc\u001b[0m\u009b31md\u001b]8;;http://evil\u001b\\e\u001b]8;;\u001b\\\rf\bg\u202eh\u0000i\n\tj ü 名';
      const out = forTerminal(hostile);
      assert.ok(!ESCAPES.test(out), JSON.stringify(out));
      assert.equal(out, 'abcdefghi\n\tj ü 名');
    });

    it('the CLI prints a provider error (with escapes in it and in the model name) without control characters', async () => {
      const s = await serve(() => ({ status: 400, body: JSON.stringify({ error: { message: 'bad \u001b]0;owned\u0007\u001b[2J\u009b1m request', type: 'invalid_request_error' } }) }));
      const { code, stderr } = await cli(['generate', tasksFile(tmp()), '--provider', 'openai-compatible', '--model', 'evil\u001b[31mmodel', '--base-url', s.url, '--no-cache', '--no-progress', '--out', path.join(tmp(), 'g.jsonl')]);
      assert.equal(code, 0, stderr);
      assert.match(stderr, /HTTP 400/);
      assert.match(stderr, /evilmodel/);
      assert.match(stderr, /bad .*request/);
      assert.ok(!ESCAPES.test(stderr.replace(/\n/g, '')), JSON.stringify(stderr));
    });
  });

  describe('request timeout and retries are options', () => {
    it('CLI: --request-timeout and --retries abandon a server that never answers, retried the given number of times', async () => {
      const s = await serve(() => ({ hang: true }));
      const out = path.join(tmp(), 'g.jsonl');
      const { code, stderr } = await cli(['generate', tasksFile(tmp()), '--provider', 'openai-compatible', '--model', 'm', '--base-url', s.url, '--no-cache', '--no-progress', '--request-timeout', '1', '--retries', '1', '--out', out]);
      assert.equal(code, 0, stderr);
      assert.match(stderr, /timed out/);
      assert.match(stderr, /gave up after 2 attempts/);
      // On a loaded machine an attempt can time out before its request arrives; none arrives beyond them.
      assert.ok(s.arrivals >= 1 && s.arrivals <= 2, `${s.arrivals} requests`);
      const record = JSON.parse(fs.readFileSync(out, 'utf8').trim()) as { error?: string; test_code: string };
      assert.match(record.error ?? '', /timed out/);
      const bad = await cli(['generate', tasksFile(tmp()), '--provider', 'openai-compatible', '--model', 'm', '--base-url', s.url, '--request-timeout', '0', '--out', out]);
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /--request-timeout/);
      const huge = await cli(['generate', tasksFile(tmp()), '--provider', 'openai-compatible', '--model', 'm', '--base-url', s.url, '--request-timeout', '9999999', '--out', out]);
      assert.notEqual(huge.code, 0, 'a timeout past what a timer can hold is refused, not turned into an instant one');
      assert.match(huge.stderr, /at most 86400/);
      for (const name of ['generate', 'bench', 'reproduce']) {
        const options = buildProgram().commands.find((c) => c.name() === name)!.options.map((o) => o.long);
        assert.ok(options.includes('--request-timeout') && options.includes('--retries'), `${name}: ${options.join(' ')}`);
      }
    });

    it('editor settings: xrepotest.requests.timeoutSeconds / retries reach the provider', async () => {
      const s = await serve(() => ({ hang: true }));
      const p = providerFor({ ...DEFAULT_ENGINE_SETTINGS, provider: 'openai-compatible', model: 'm', baseUrl: s.url, requestTimeoutSeconds: 0.5, requestRetries: 1 }, undefined);
      await assert.rejects(p.complete(request()), (e: Error) => /timed out/.test(e.message) && /gave up after 2 attempts/.test(e.message));
      assert.ok(s.arrivals >= 1 && s.arrivals <= 2, `${s.arrivals} requests`);
      const once = providerFor({ ...DEFAULT_ENGINE_SETTINGS, provider: 'openai-compatible', model: 'm', baseUrl: s.url, requestTimeoutSeconds: 0.5, requestRetries: 0 }, undefined);
      await assert.rejects(once.complete(request()), (e: Error) => /timed out/.test(e.message) && !/attempts/.test(e.message));
      const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { contributes: { configuration: { properties: Record<string, { default: unknown }> } } };
      const props = pkg.contributes.configuration.properties;
      assert.equal(props['xrepotest.requests.timeoutSeconds']?.default, DEFAULT_ENGINE_SETTINGS.requestTimeoutSeconds);
      assert.equal(props['xrepotest.requests.retries']?.default, DEFAULT_ENGINE_SETTINGS.requestRetries);
    });
  });
});

function tasksFile(dir: string): string {
  const f = path.join(dir, 'tasks.jsonl');
  fs.writeFileSync(f, JSON.stringify(TASK) + '\n');
  return f;
}

const CLI_MAIN = path.join(__dirname, '..', '..', 'src', 'cli', 'main.js');

/** The compiled CLI in a child process (asynchronously: the fake servers live in this one); main.ts is a module, bin.ts its bundle's entry. */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['-e', 'void require(process.argv[1]).main(["node", "xrepotest", ...process.argv.slice(2)])', CLI_MAIN, ...args], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, NO_COLOR: '1' } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}
