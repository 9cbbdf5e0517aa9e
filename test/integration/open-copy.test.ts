import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openCopyOnHost } from '../../src/engine/execute/open-copy';

/** Every entry under `root` (links included, never followed) with its mode, or "link" for a link. */
function modes(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (p: string): void => {
    const st = fs.lstatSync(p);
    out[path.relative(root, p) || '.'] = st.isSymbolicLink() ? `link -> ${fs.readlinkSync(p)}` : (st.mode & 0o7777).toString(8);
    if (st.isDirectory() && !st.isSymbolicLink()) for (const n of fs.readdirSync(p)) visit(path.join(p, n));
  };
  visit(root);
  return out;
}

/**
 * A copy as the engine lays it out, with what a repository may bring: odd modes, executables, links
 * to a file and a folder outside it, a writable folder that is a link.
 */
function makeCopy(root: string, outside: string): string[] {
  const w = (rel: string, mode: number): void => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), rel);
    fs.chmodSync(path.join(root, rel), mode);
  };
  w('src/lib.php', 0o640);
  w('bin/run', 0o750);
  w('world-writable.txt', 0o666);
  w('setgid-tool', 0o2755);
  w('tests/SomeTest.php', 0o600);
  fs.chmodSync(path.join(root, 'tests'), 0o700);
  fs.mkdirSync(path.join(root, '.xrt/out-abc'), { recursive: true });
  fs.mkdirSync(path.join(root, '.xrt/home/.cache'), { recursive: true });
  w('.xrt/home/.cache/x', 0o600);
  w('.xrt/phpunit.sh', 0o644);
  fs.mkdirSync(path.join(root, '.phpunit.cache'), { mode: 0o700 });
  fs.symlinkSync(path.join(outside, 'secret'), path.join(root, 'to-outside-file'));
  fs.symlinkSync(outside, path.join(root, 'to-outside-dir'));
  fs.symlinkSync(outside, path.join(root, '.xrt/tmp'));
  return [path.join(root, '.xrt/home'), path.join(root, '.xrt/tmp'), path.join(root, '.xrt/out-abc'), path.join(root, '.phpunit.cache'), path.join(root, 'missing-folder')];
}

describe('opening a copy to the test user from the host (docker executor, open-copy.ts)', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-open-copy-'));
  });
  afterEach(() => {
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("sets exactly the modes the container's chmod commands set (OPEN_LINES), and nothing outside through a link", () => {
    const outsideA = path.join(tmp, 'outside-a');
    const outsideB = path.join(tmp, 'outside-b');
    for (const o of [outsideA, outsideB]) {
      fs.mkdirSync(o, { mode: 0o700 });
      fs.chmodSync(o, 0o700);
      fs.writeFileSync(path.join(o, 'secret'), 's', { mode: 0o600 });
    }
    const byChmod = path.join(tmp, 'by-chmod');
    const byHost = path.join(tmp, 'by-host');
    const writableA = makeCopy(byChmod, outsideA);
    const writableB = makeCopy(byHost, outsideB);
    // The container's way, with the real chmod (OPEN_LINES in docker.ts).
    execFileSync('sh', ['-c', 'd=$1; shift; chmod -R o+rX,o-w "$d"; chmod 0311 "$d/.xrt"; for w in "$@"; do [ -L "$w" ] || chmod -R a+rwX "$w" 2>/dev/null; done; exit 0', 'x', byChmod, ...writableA]);
    assert.equal(openCopyOnHost(byHost, writableB), true);
    const a = modes(byChmod);
    const b = Object.fromEntries(Object.entries(modes(byHost)).map(([k, v]) => [k, v.replace(outsideB, outsideA)]));
    assert.deepEqual(b, a);
    // Spot checks that make the comparison mean something.
    assert.equal(a['.xrt'], '311');
    assert.equal(a['world-writable.txt'], '664', 'no longer writable to others');
    assert.equal(a['bin/run'], '755');
    assert.equal(a['.xrt/out-abc'], '777');
    for (const o of [outsideA, outsideB]) {
      assert.equal(fs.statSync(o).mode & 0o777, 0o700, 'a folder a link points to keeps its mode');
      assert.equal(fs.statSync(path.join(o, 'secret')).mode & 0o777, 0o600, 'a file a link points to keeps its mode');
    }
  });
});
