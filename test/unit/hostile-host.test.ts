import { strict as assert } from 'node:assert';
import { planHostView, hostViewArgs, type HostFacts } from '../../src/engine/execute/host-view';

/** The plan itself, on a made-up machine: what is bound where, whatever is installed here. */
describe('the local executor’s view of the host', () => {
  const dirs = new Set(['/usr', '/etc', '/etc/ssh', '/etc/ssl/private', '/home', '/root', '/home/ann/.rustup', '/home/ann/.cargo/bin', '/home/ann/go/pkg/mod', '/opt/julia-1.11', '/var/lib/gems/3.1.0', '/home/ann', '/home/ann/bin', '/home/ann/.rbenv/versions/3.3.0', '/home/ann/.rbenv/versions/3.3.0/bin', '/home/ann/.config/composer/vendor', '/home/ann/.config/composer/vendor/bin', '/srv/src']);
  const files = new Set(['/etc/shadow', '/etc/gshadow', '/home/ann/.cargo/credentials.toml']);
  const links: Record<string, string> = { '/bin': 'usr/bin', '/lib': 'usr/lib', '/lib64': 'usr/lib64', '/usr/local/bin/julia': '/opt/julia-1.11/bin/julia' };
  const facts: HostFacts = {
    homes: ['/home', '/root', '/home/ann'],
    toolchainDirs: ['/home/ann/.rustup', '/home/ann/.cargo/bin', '/home/ann/go/pkg/mod', '/usr/local/go', '/var/lib/gems/3.1.0'],
    executables: [
      { found: '/home/ann/.cargo/bin/cargo', real: '/home/ann/.cargo/bin/rustup' },
      { found: '/usr/local/bin/julia', real: '/opt/julia-1.11/bin/julia' },
      { found: '/home/ann/bin/mytool', real: '/home/ann/bin/mytool' },
      { found: '/home/ann/.rbenv/versions/3.3.0/bin/ruby', real: '/home/ann/.rbenv/versions/3.3.0/bin/ruby' },
      { found: '/home/ann/.config/composer/vendor/bin/phpunit', real: '/home/ann/.config/composer/vendor/phpunit/phpunit/phpunit' },
    ],
    kind: (p) => (p in links ? 'link' : dirs.has(p) ? 'dir' : files.has(p) ? 'file' : null),
    readlink: (p) => links[p],
  };
  const view = planHostView(facts);
  const args = hostViewArgs(view);
  const binds = (flag: string): string[] => args.flatMap((a, i) => (a === flag ? [args[i + 1]] : []));

  it('never binds the root, a home folder or anything holding one', () => {
    for (const p of binds('--ro-bind')) {
      if (p === '/dev/null') continue;
      assert.ok(!['/', '/root', '/home', '/home/ann', '/srv'].includes(p), p);
    }
  });

  it('hides the home folders under an empty tmpfs before binding the toolchain folders inside them', () => {
    const tmpfs = args.findIndex((a, i) => a === '--tmpfs' && args[i + 1] === '/home');
    assert.ok(binds('--tmpfs').includes('/root') && binds('--tmpfs').includes('/home'));
    assert.ok(!binds('--tmpfs').includes('/home/ann'), 'a home inside /home is covered by it');
    const rustup = args.indexOf('/home/ann/.rustup');
    assert.ok(tmpfs >= 0 && rustup > tmpfs, 'the tmpfs comes first, or it would hide the toolchain');
    assert.ok(binds('--ro-bind').includes('/home/ann/.cargo/bin'));
    assert.ok(!binds('--ro-bind').includes('/home/ann/.cargo'), "cargo's home (credentials) is not bound, only its bin");
  });

  it('binds the system folders read-only, keeps merged-/usr links as links, and empties the known secrets in /etc', () => {
    assert.ok(binds('--ro-bind').includes('/usr') && binds('--ro-bind').includes('/etc'));
    assert.ok(!args.includes('--bind'), 'nothing of the host is writable');
    const symlinks = args.flatMap((a, i) => (a === '--symlink' ? [`${args[i + 2]}->${args[i + 1]}`] : []));
    assert.deepEqual(symlinks.sort(), ['/bin->usr/bin', '/lib->usr/lib', '/lib64->usr/lib64']);
    const shadow = args.findIndex((a, i) => a === '--ro-bind' && args[i + 1] === '/dev/null' && args[i + 2] === '/etc/shadow');
    assert.ok(shadow > args.indexOf('/etc'), '/etc/shadow is covered after /etc is bound');
    assert.ok(binds('--tmpfs').includes('/etc/ssh') && binds('--tmpfs').includes('/etc/ssl/private'));
  });

  it('binds a toolchain outside the system folders by its install root, once, and skips what is covered', () => {
    assert.ok(binds('--ro-bind').includes('/opt/julia-1.11'), 'julia under /opt: its install root');
    assert.equal(binds('--ro-bind').filter((p) => p === '/home/ann/.cargo/bin').length, 1);
    assert.ok(!binds('--ro-bind').includes('/usr/local/go'), 'covered by /usr');
    assert.ok(binds('--ro-bind').includes('/home/ann/bin'), 'a tool in ~/bin: that folder only, not the home');
    assert.ok(binds('--ro-bind').includes('/home/ann/.rbenv/versions/3.3.0'), 'deeper in a home: the folder above bin');
    assert.ok(binds('--ro-bind').includes('/home/ann/.config/composer/vendor'), 'a Composer tool: its whole vendor folder');
    assert.ok(!binds('--ro-bind').includes('/home/ann/.config/composer/vendor/bin'), 'not again inside it');
    assert.ok(binds('--ro-bind').includes('/home/ann/go/pkg/mod') && binds('--ro-bind').includes('/var/lib/gems/3.1.0'));
  });
});
