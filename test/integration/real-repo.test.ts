import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PINNED, realRepository, removeRealRepository, type RealRepo } from '../helpers/real-repo';
import { skipBecause } from '../helpers/skip';

// The fidelity suites stand on this helper: it must give the pinned project, writable, or refuse.
describe('real-repo (pinned public projects for the fidelity suites)', function () {
  this.timeout(180_000);
  const made: RealRepo[] = [];
  after(() => made.forEach(removeRealRepository));

  it('unpacks a Debian upstream tarball to its root, writable', async function () {
    const got = await realRepository(PINNED.rubyHashie);
    made.push(got);
    if ('unavailable' in got) skipBecause(this, got.unavailable);
    assert.ok(fs.existsSync(path.join(got.dir, 'lib', 'hashie.rb')));
    fs.writeFileSync(path.join(got.dir, 'lib', 'probe.rb'), '# writable\n');
  });

  it('gives a writable copy of a Go module from the proxy', async function () {
    const got = await realRepository(PINNED.goUuid);
    made.push(got);
    if ('unavailable' in got) skipBecause(this, got.unavailable);
    assert.match(fs.readFileSync(path.join(got.dir, 'go.mod'), 'utf8'), /module github\.com\/google\/uuid/);
    fs.writeFileSync(path.join(got.dir, 'probe_test.go'), 'package uuid\n');
  });

  it('refuses a tarball whose SHA-256 differs from the pin', async function () {
    const wrong = { ...PINNED.crateItoa, version: '1.0.10' };
    let err: unknown;
    try {
      const got = await realRepository(wrong);
      made.push(got);
      if ('unavailable' in got) skipBecause(this, got.unavailable);
    } catch (e) {
      err = e;
    }
    assert.match(String(err), /SHA-256 differs/);
  });
});
