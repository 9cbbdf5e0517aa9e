import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { extractRepository } from '../../src/engine/extract/extract';

const GO_FN = (name: string): string =>
  [`func ${name}(n int) int {`, ...Array.from({ length: 22 }, (_, i) => `\tn += ${i}`), '\treturn n', '}'].join('\n');

function write(root: string, rel: string, content: string | Buffer): void {
  const p = path.join(root, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, content);
}

describe('walking a repository', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-files-'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('skips vendor/build/target and hidden folders, binary, non-UTF-8 and large files, and counts each', async () => {
    write(root, 'main.go', `package main\n${GO_FN('Keep')}\n`);
    for (const dir of ['vendor/x', 'build', 'target', 'node_modules/y', '.hidden']) write(root, `${dir}/v.go`, `package v\n${GO_FN('Vendored')}\n`);
    write(root, 'blob.go', Buffer.from([0x70, 0x61, 0x00, 0x01, 0x02]));
    write(root, 'latin1.go', Buffer.concat([Buffer.from('package main\n// caf'), Buffer.from([0xe9]), Buffer.from('\n')]));
    write(root, 'big.go', `package main\n${'// filler\n'.repeat(200)}`);
    write(root, 'bom.go', `\uFEFFpackage main\n${GO_FN('WithBom')}\n`);
    const r = await extractRepository(root, { maxFileBytes: 1500, repository: { name: 'r', url: root, commit: null } });
    assert.deepEqual(r.tasks.map((t) => t.function_name), ['WithBom', 'Keep']);
    assert.equal(r.summary.files.excludedPath, 5);
    assert.equal(r.summary.files.binary, 1);
    assert.equal(r.summary.files.nonUtf8, 1);
    assert.equal(r.summary.files.tooLarge, 1);
    assert.equal(r.summary.files.parsed, 2);
    assert.ok(!r.tasks[0].file_content.startsWith('\uFEFF'), 'the BOM is not part of file_content');
  });

  it('reports a file whose parse runs past the deadline and goes on with the others', async () => {
    // Julia's grammar is superlinear: this file takes about 20 s to parse in full, far past 300 ms.
    const heavy = Array.from({ length: 4000 }, (_, i) => `x${i} = [(${i} + a) * b for a in 1:10, b in 1:${i}] .|> f`).join('\n');
    write(root, 'src/Heavy.jl', heavy);
    write(root, 'src/Light.jl', ['function light(x)', ...Array.from({ length: 21 }, (_, i) => `    x += ${i}`), '    x', 'end'].join('\n'));
    const r = await extractRepository(root, { parseDeadlineMs: 300, repository: { name: 'r', url: root, commit: null } });
    assert.deepEqual(r.summary.files.timedOut, ['src/Heavy.jl']);
    // Light.jl is parsed right after the cancelled parse: it must get a fresh tree of its own.
    assert.deepEqual(r.tasks.map((t) => [t.function_name, t.focal_code.split('\n').length]), [['light', 24]]);
  });

  it('stops when cancelled', async () => {
    write(root, 'a.go', `package main\n${GO_FN('A')}\n`);
    const controller = new AbortController();
    controller.abort(new Error('cancelled by test'));
    await assert.rejects(extractRepository(root, { signal: controller.signal, repository: { name: 'r', url: root, commit: null } }), /cancelled by test/);
  });

  it('pins the repository to HEAD when it is a git checkout', async function () {
    write(root, 'a.go', `package main\n${GO_FN('A')}\n`);
    const { execFileSync } = await import('node:child_process');
    const git = (...args: string[]): string =>
      execFileSync('git', ['-C', root, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { encoding: 'utf8' }).trim();
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'first');
    git('remote', 'add', 'origin', 'https://example.com/acme/a.git');
    const head = git('rev-parse', 'HEAD');
    const r = await extractRepository(root);
    assert.deepEqual(r.tasks[0].repository, { name: path.basename(root), url: 'https://example.com/acme/a.git', commit: head, path: root });
  });
});
