import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { secretValuesIn, workspaceSecrets } from '../../src/engine/tools/workspace-secrets';
import { redact, REDACTED } from '../../src/engine/util/redact';

/**
 * What a workspace's secret files hold, found the way a test in its sandbox copy would find them, and
 * redact() recognising a secret in the encodings a test can print it in (issue 31: MCP score_test
 * returned a .env's values in clear). test/integration/mcp-server.test.ts has the whole attack.
 */
describe('workspace secrets: the values of secret-looking files, and their encodings redacted', () => {
  let root = '';
  let outside = '';
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-ws-secrets-'));
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-ws-outside-'));
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });
  const write = (rel: string, text: string): void => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  };

  it('reads each kind of secret file: dotenv, npmrc, netrc, pgpass, git-credentials, YAML and JSON secrets, private keys', () => {
    const dotenv = secretValuesIn('# comment\nexport API_TOKEN="tok-1234567890"\nDATABASE_URL=postgres://u:pw-in-url-77@h/db # primary\nAPP_ENV=production\nCACHE_DIR=/var/cache/app-data\n', '.env');
    assert.deepEqual(dotenv, ['tok-1234567890', 'postgres://u:pw-in-url-77@h/db', 'pw-in-url-77'], 'values whatever their names; not production, nor a *_DIR path');
    assert.deepEqual(secretValuesIn('//registry.npmjs.org/:_authToken=npm-token-abcdef\n', '.npmrc'), ['npm-token-abcdef']);
    assert.ok(secretValuesIn('machine example.com login me password netrc-pass-123\n', '.netrc').includes('netrc-pass-123'));
    assert.ok(secretValuesIn('db.host:5432:app:me:pgpass-secret-9\n', '.pgpass').includes('pgpass-secret-9'));
    assert.ok(secretValuesIn('https://me:ghcred-0123456789@github.com\n', '.git-credentials').includes('ghcred-0123456789'));
    assert.deepEqual(secretValuesIn('db:\n  password: "yaml-pass-4567"\n', 'secrets.yml').filter((v) => v.length >= 8), ['yaml-pass-4567']);
    assert.ok(secretValuesIn('{\n  "client_secret": "json-secret-value",\n  "n": 1\n}\n', 'credentials.json').includes('json-secret-value'));
    const key = secretValuesIn('-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nAAAAC3NzaC1lZDI1NTE5AAAAIBxyz\n-----END OPENSSH PRIVATE KEY-----\n', 'id_ed25519');
    assert.deepEqual(key, ['b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ', 'AAAAC3NzaC1lZDI1NTE5AAAAIBxyz']);
  });

  it('walks what a sandbox copies: nested files and links inside the workspace, not .git or node_modules, nor links out', () => {
    write('.env', 'A_SECRET=root-env-value-1\n');
    write('services/api/.env.production', 'B=nested-env-value-2\n');
    write('node_modules/pkg/.env', 'C=not-copied-value-3\n');
    write('.git/.env', 'D=not-copied-value-4\n');
    write('config/real-secrets', 'E=linked-inside-value-5\n');
    fs.symlinkSync(path.join(root, 'config/real-secrets'), path.join(root, 'config/.env.local'));
    fs.writeFileSync(path.join(outside, 'host.env'), 'F=host-file-value-6\n');
    fs.symlinkSync(path.join(outside, 'host.env'), path.join(root, 'host.env'));
    write('README.md', 'G=not-a-secret-file-7\n');
    write('big.env', `H=${'x'.repeat(300 * 1024)}\n`);
    const found = workspaceSecrets(root);
    assert.deepEqual(found.values.sort(), ['linked-inside-value-5', 'nested-env-value-2', 'root-env-value-1']);
    assert.equal(found.incomplete, false);
    assert.equal(workspaceSecrets(root, { maxEntries: 2, maxFileBytes: 1024 }).incomplete, true, 'a walk past the limit says so');
  });

  it('redacts a secret plain, reversed, URL- and JSON-escaped, in hex and in base64 at every alignment, wrapped or not', () => {
    const secret = 'pg://u:Zq<7&vN3xW9>tLm2@h';
    const bytes = Buffer.from(secret);
    for (let pad = 0; pad < 3; pad++) {
      const data = Buffer.concat([Buffer.from('NAME='.slice(0, 3 + pad)), bytes, Buffer.from('\n')]);
      const encodings = [
        data.toString('base64'),
        data.toString('base64url'),
        data.toString('base64').replace(/(.{8})/g, '$1\n'),
        data.toString('hex'),
        data.toString('hex').toUpperCase().replace(/(.{10})/g, '$1\r\n'),
      ];
      for (const text of encodings) {
        const out = redact(`printed: ${text}`, [secret]);
        assert.ok(out.includes(REDACTED), `${text} → ${out}`);
        const rest = out.split(REDACTED).map((part) => part.replace(/\r?\n/g, ''));
        for (const part of rest) {
          const decoded = [0, 1, 2, 3].map((k) => Buffer.from(part.slice(k), /^[0-9A-Fa-f]+$/.test(part.replace('printed: ', '')) ? 'hex' : 'base64').toString('latin1')).join(' ');
          assert.ok(!decoded.includes(secret.slice(2, -2)), `what is left of ${text} still holds the secret: ${out}`);
        }
      }
    }
    for (const text of [secret, [...secret].reverse().join(''), encodeURIComponent(secret), JSON.stringify(secret), JSON.stringify(secret).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026')])
      assert.equal(redact(`x ${text} y`, [secret]).replace(/"/g, ''), `x ${REDACTED} y`, text);
    assert.equal(redact('an ordinary line with 4f50 and T1BF in it', [secret]), 'an ordinary line with 4f50 and T1BF in it');
  });
});
