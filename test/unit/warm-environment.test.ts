import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { familyOf, forgetWarmOutcomes, warmEntry, warmKey, type KeyParts } from '../../src/engine/execute/warm-environment';

/** The warm environment's key (execute/warm-environment.ts): content, place, toolchain and scope — nothing else. */
describe('warm environment keys', () => {
  let dir: string;
  const copy = (name: string): string => {
    const d = path.join(dir, name);
    fs.mkdirSync(path.join(d, 'pkg'), { recursive: true });
    fs.mkdirSync(path.join(d, '.xrt'), { recursive: true });
    fs.writeFileSync(path.join(d, 'go.mod'), 'module example.com/m\n');
    fs.writeFileSync(path.join(d, 'pkg', 'a.go'), 'package pkg\n\nfunc A() int { return 1 }\n');
    return d;
  };
  const parts = (d: string, over: Partial<KeyParts> = {}): KeyParts => ({ copyDir: d, skip: new Set(['.xrt']), projectRoot: d, toolchain: 'go1.26 linux/amd64 {"CGO_ENABLED":"0"}', scope: './pkg', ...over });

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-warm-key-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is the same for two copies of the same commit, wherever they are, whatever our scratch holds', () => {
    const a = copy('a');
    const b = copy('b');
    fs.writeFileSync(path.join(b, '.xrt', 'scratch'), 'ours');
    assert.equal(warmKey(parts(a)), warmKey(parts(b)));
    assert.match(warmKey(parts(a)), /^[0-9a-f]{24}$/);
  });

  it('changes when a source file changes, is added, or becomes a link', () => {
    const a = copy('a');
    const base = warmKey(parts(a));
    fs.writeFileSync(path.join(a, 'pkg', 'a.go'), 'package pkg\n\nfunc A() int { return 2 }\n');
    const edited = warmKey(parts(a));
    assert.notEqual(edited, base);
    fs.writeFileSync(path.join(a, 'pkg', 'b.go'), 'package pkg\n');
    const added = warmKey(parts(a));
    assert.notEqual(added, edited);
    fs.rmSync(path.join(a, 'pkg', 'b.go'));
    fs.symlinkSync('a.go', path.join(a, 'pkg', 'b.go'));
    assert.notEqual(warmKey(parts(a)), added);
  });

  it('changes with the toolchain version, the flags, the scope and the project folder', () => {
    const a = copy('a');
    const base = warmKey(parts(a));
    assert.notEqual(warmKey(parts(a, { toolchain: 'go1.27 linux/amd64 {"CGO_ENABLED":"0"}' })), base);
    assert.notEqual(warmKey(parts(a, { toolchain: 'go1.26 linux/amd64 {"CGO_ENABLED":"1"}' })), base);
    assert.notEqual(warmKey(parts(a, { scope: './other' })), base);
    assert.notEqual(warmKey(parts(a, { projectRoot: path.join(a, 'pkg') })), base);
  });

  it('builds an entry once per key; a failure is the verdict of every later call in the process', async () => {
    forgetWarmOutcomes();
    let builds = 0;
    const spec = (key: string, ok: boolean) => ({
      root: dir,
      key,
      content: 'cache',
      family: familyOf('t'),
      prime: false,
      build: async (content: string) => {
        builds++;
        fs.writeFileSync(path.join(content, 'f'), 'warm');
        return ok ? { ok: true as const, meta: { n: builds } } : { ok: false as const, problem: { cause: 'project-does-not-build' as const, reason: 'no' } };
      },
    });
    const [x, y] = await Promise.all([warmEntry(spec('a'.repeat(24), true)), warmEntry(spec('a'.repeat(24), true))]);
    assert.equal(builds, 1);
    assert.ok(x.ok && y.ok);
    assert.deepEqual([x.built, y.built].sort(), [false, true]);
    assert.equal(fs.readFileSync(path.join(dir, 'a'.repeat(24), 'cache', 'f'), 'utf8'), 'warm');
    // Another process (its memo empty) finds the entry ready on disk.
    forgetWarmOutcomes();
    const z = await warmEntry(spec('a'.repeat(24), true));
    assert.ok(z.ok && !z.built);
    assert.deepEqual(z.entry.meta, { n: 1 });
    assert.equal(builds, 1);

    const f1 = await warmEntry(spec('b'.repeat(24), false));
    const f2 = await warmEntry(spec('b'.repeat(24), true));
    assert.ok(!f1.ok && !f2.ok, 'the failure stands for the key');
    assert.equal(builds, 2);
    assert.equal(fs.existsSync(path.join(dir, 'b'.repeat(24))), false, 'a failed entry is not kept on disk');
    forgetWarmOutcomes();
  });

  it('keeps what an unfinished warm-up built: the next try, in this process or another, continues it instead of starting again', async () => {
    forgetWarmOutcomes();
    const key = 'c'.repeat(24);
    const seen: Array<{ resumed: boolean; files: string[] }> = [];
    // A build that gets one step further each try; the first two are cut short by a limit.
    const spec = {
      root: dir,
      key,
      content: 'target',
      family: familyOf('t'),
      prime: false,
      build: async (content: string, resumed: boolean) => {
        const files = fs.readdirSync(content).sort();
        seen.push({ resumed, files });
        fs.writeFileSync(path.join(content, `step${files.length + 1}`), 'built');
        if (files.length < 2) return { ok: false as const, problem: { cause: 'build-unfinished', reason: 'cut short' }, unfinished: true };
        return { ok: true as const, meta: null };
      },
    };
    const first = await warmEntry(spec);
    assert.ok(!first.ok && first.problem.cause === 'build-unfinished');
    assert.ok(fs.existsSync(path.join(dir, key, 'target', 'step1')), 'what it built is kept on disk');
    assert.ok(!fs.existsSync(path.join(dir, key, 'ready.json')), 'but it is not a ready entry');
    // Not remembered as the key's verdict: the same process tries again, from what was built.
    const second = await warmEntry(spec);
    assert.ok(!second.ok);
    forgetWarmOutcomes(); // another process
    const third = await warmEntry(spec);
    assert.ok(third.ok && third.built);
    assert.deepEqual(seen, [
      { resumed: false, files: [] },
      { resumed: true, files: ['step1'] },
      { resumed: true, files: ['step1', 'step2'] },
    ]);
    assert.ok(!fs.existsSync(path.join(dir, key, 'partial.json')), 'a finished entry is no longer partial');
    forgetWarmOutcomes();
  });

  it('starts from nothing after a warm-up the project refused (only an unfinished one is continued)', async () => {
    forgetWarmOutcomes();
    const key = 'd'.repeat(24);
    const seen: string[][] = [];
    const spec = (ok: boolean) => ({
      root: dir,
      key,
      content: 'target',
      family: familyOf('t'),
      prime: false,
      build: async (content: string) => {
        seen.push(fs.readdirSync(content));
        fs.writeFileSync(path.join(content, 'half'), 'x');
        return ok ? { ok: true as const, meta: null } : { ok: false as const, problem: { cause: 'project-does-not-build', reason: 'no' } };
      },
    });
    assert.ok(!(await warmEntry(spec(false))).ok);
    forgetWarmOutcomes();
    assert.ok((await warmEntry(spec(true))).ok);
    assert.deepEqual(seen, [[], []]);
    forgetWarmOutcomes();
  });
});
