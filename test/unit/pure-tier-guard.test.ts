import { strict as assert } from 'node:assert';
import * as childProcess from 'node:child_process';
import { describeCommand, destination, GUARD_MARK, PROCESS_STARTERS, refusedConnection, testFileInStack } from '../helpers/pure-tier-rules';
import { skipBecause } from '../helpers/skip';

describe('the pure tier guard (test/helpers/pure-tier-guard.ts)', () => {
  it('reads where each form of socket.connect goes', () => {
    assert.deepEqual(destination([[{ port: 80, host: 'example.com' }, () => undefined]]), { host: 'example.com' });
    assert.deepEqual(destination([{ port: 8080 }]), { host: 'localhost' });
    assert.deepEqual(destination([443, 'registry.npmjs.org']), { host: 'registry.npmjs.org' });
    assert.deepEqual(destination(['3000']), { host: 'localhost' });
    assert.deepEqual(destination(['/run/podman/podman.sock']), { path: '/run/podman/podman.sock' });
    assert.deepEqual(destination([[{ path: '/var/run/docker.sock' }]]), { path: '/var/run/docker.sock' });
  });

  it('allows loopback and sockets of this process; refuses other hosts and foreign sockets', () => {
    const own = new Set(['/tmp/own.sock']);
    for (const host of ['localhost', '127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) assert.equal(refusedConnection({ host }, own), undefined, host);
    assert.match(refusedConnection({ host: 'huggingface.co' }, own) ?? '', /connect to huggingface\.co over the network/);
    assert.match(refusedConnection({ host: '10.0.0.1' }, own) ?? '', /over the network/);
    assert.equal(refusedConnection({ path: '/tmp/own.sock' }, own), undefined);
    assert.match(refusedConnection({ path: '/run/podman/podman.sock' }, own) ?? '', /no server of this process listens on/);
  });

  it('names the command and the test file in its message', () => {
    assert.equal(describeCommand(['cargo', ['--version']]), 'cargo --version');
    assert.equal(describeCommand(['git -C x rev-parse']), 'git -C x rev-parse');
    assert.equal(testFileInStack('Error\n    at f (/w/test/helpers/skip.ts:3:9)\n    at g (/w/test/unit/cli.test.ts:10:2)'), 'test/unit/cli.test');
    assert.equal(testFileInStack('Error\n    at g (/w/out/test/integration/x.test.js:1:1)'), 'test/integration/x.test');
  });

  it('is installed in the unit tier: every way to start a process is replaced', function () {
    const installed = PROCESS_STARTERS.filter((name) => (childProcess[name] as unknown as Record<symbol, unknown>)[GUARD_MARK] === true);
    if (installed.length === 0) skipBecause(this, 'the guard is loaded by .mocharc.unit.json (npm run test:unit), not by this run');
    assert.deepEqual(installed, [...PROCESS_STARTERS]);
  });
});
