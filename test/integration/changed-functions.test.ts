import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { materializeCommit } from '../../src/engine/execute/base-checkout';
import { changedFunctions } from '../../src/server/changes';
import { fixture } from '../helpers/paths';
import { makeLazyFetching, markerText, plantHostileGitConfig, testGit } from '../helpers/hostile-git';
import { hasTool, skipBecause } from '../helpers/skip';

const git = testGit;

const FILTERS = { minLines: 20, maxLines: 50 };

/**
 * The editor's "Generate scored tests for my changes" (src/server/changes.ts) on a repository built
 * here: the functions a test can call whose lines changed, and nothing read through a link, from a
 * vendored folder or from a huge file (the repository is anyone's).
 */
describe('changed functions for the editor (tests for my changes)', function () {
  this.timeout(120_000);
  let root: string;
  let repo: string;
  let outside: string;

  beforeEach(function () {
    if (!hasTool('git', ['--version'])) skipBecause(this, 'git is not installed');
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-changes-'));
    repo = path.join(root, 'inventory-go');
    outside = path.join(root, 'outside');
    fs.cpSync(fixture('inventory-go'), repo, { recursive: true });
    fs.mkdirSync(outside);
    git(repo, 'init', '-q');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'base');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('names exactly the functions whose lines changed since the ref, committed or not, and a new file\'s functions', async () => {
    assert.deepEqual((await changedFunctions(repo, 'HEAD', FILTERS)).functions, []);
    const file = path.join(repo, 'item.go');
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const at = lines.findIndex((l) => l.includes('return "expired"'));
    lines.splice(at, 0, '\t\t// checked');
    fs.writeFileSync(file, lines.join('\n'));
    fs.writeFileSync(path.join(repo, 'extra.go'), 'package inventory\n\n// Twice doubles n.\nfunc Twice(n int) int {\n\treturn 2 * n\n}\n');
    const r = await changedFunctions(repo, 'HEAD', FILTERS);
    assert.deepEqual(r.functions.map((f) => `${f.relPath}:${f.name}`), ['extra.go:Twice', 'item.go:Status']);
    assert.equal(r.commit, git(repo, 'rev-parse', 'HEAD').trim());
    const status = r.functions.find((f) => f.name === 'Status')!;
    assert.equal(status.startLine, 7);
    assert.equal(status.uri, `file://${path.join(repo, 'item.go')}`);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'edit');
    assert.deepEqual((await changedFunctions(repo, 'HEAD~1', FILTERS)).functions.map((f) => f.name), ['Twice', 'Status']);
    assert.deepEqual((await changedFunctions(repo, 'HEAD', FILTERS)).functions, []);
  });

  it('reads nothing through a link, in a vendored or hidden folder, or past the size limit, and says why', async () => {
    const secret = path.join(outside, 'secret.go');
    fs.writeFileSync(secret, 'package x\n\nfunc Secret() int {\n\treturn 42\n}\n');
    fs.symlinkSync(secret, path.join(repo, 'linked.go'));
    fs.mkdirSync(path.join(outside, 'pkg'));
    fs.writeFileSync(path.join(outside, 'pkg', 'deep.go'), 'package pkg\n\nfunc Deep() int {\n\treturn 1\n}\n');
    fs.symlinkSync(path.join(outside, 'pkg'), path.join(repo, 'pkg'));
    fs.mkdirSync(path.join(repo, 'vendor'));
    fs.writeFileSync(path.join(repo, 'vendor', 'v.go'), 'package vendor\n\nfunc V() int {\n\treturn 1\n}\n');
    fs.writeFileSync(path.join(repo, 'huge.go'), `package inventory\n\nfunc Huge() int {\n\treturn 1\n}\n${'// x\n'.repeat(600_000)}`);
    const r = await changedFunctions(repo, 'HEAD', FILTERS);
    assert.deepEqual(r.functions, [], JSON.stringify(r.functions));
    const why = Object.fromEntries(r.skipped.map((s) => [s.relPath, s.why]));
    assert.match(why['linked.go'] ?? '', /link/);
    assert.match(why['huge.go'] ?? '', /larger than/);
    assert.match(why['vendor/v.go'] ?? '', /leaves out/);
    // git lists a linked folder as one entry (the link itself), never the files behind it.
    assert.equal(why['pkg/deep.go'], undefined);
  });

  it('refuses a ref that is an option or names no commit, before git runs anything with it', async () => {
    await assert.rejects(changedFunctions(repo, '--output=/tmp/x', FILTERS), /not a git ref/);
    await assert.rejects(changedFunctions(repo, 'no-such-branch', FILTERS), /names no commit here/);
  });

  it("attack: the repository's own git configuration and attributes start no program on the host, and the changed functions are still right", async () => {
    const marker = path.join(outside, 'ran');
    plantHostileGitConfig(repo, marker);
    const file = path.join(repo, 'item.go');
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines.splice(lines.findIndex((l) => l.includes('return "expired"')), 0, '\t\t// checked');
    fs.writeFileSync(file, lines.join('\n'));
    for (const f of fs.readdirSync(repo)) if (f.endsWith('.go')) fs.utimesSync(path.join(repo, f), new Date(), new Date(Date.now() + 5000));
    const r = await changedFunctions(repo, 'HEAD', FILTERS).catch((e: Error) => e);
    assert.equal(markerText(marker), '', 'a program named by the repository ran on the host');
    assert.ok(!(r instanceof Error), String(r));
    assert.deepEqual(r.functions.map((f) => `${f.relPath}:${f.name}`), ['item.go:Status']);
  });

  it("attack: a partial clone's missing object is never fetched through the repository's ssh command (tests for my changes, and the regression check's base)", async () => {
    const marker = path.join(outside, 'ran');
    const base = git(repo, 'rev-parse', 'HEAD').trim();
    const blob = git(repo, 'rev-parse', 'HEAD:item.go').trim();
    fs.appendFileSync(path.join(repo, 'item.go'), '\n// later\n');
    git(repo, 'commit', '-q', '-a', '-m', 'edit');
    plantHostileGitConfig(repo, marker);
    makeLazyFetching(repo, blob);
    await assert.rejects(changedFunctions(repo, 'HEAD~1', FILTERS), (e: Error) => e.message.length > 0);
    const at = materializeCommit(repo, base);
    at.remove();
    assert.match(at.skipped.find((s) => s.path === 'item.go')?.reason ?? '', /not in the repository's objects/, JSON.stringify(at.skipped));
    assert.equal(markerText(marker), '', 'the repository\'s ssh command ran on the host');
  });
});
