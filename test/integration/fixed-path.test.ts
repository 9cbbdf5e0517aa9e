import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FIXED_SANDBOX_PATH, LocalExecutor } from '../../src/engine/execute/local';
import { DEFAULT_LIMITS, type PhaseCommand } from '../../src/engine/execute/types';
import { hasTool, skipBecause } from '../helpers/skip';

/*
 * The local executor shows a sandbox at one fixed path to the commands that ask (Rust, Go: their
 * caches hold absolute paths). The copy must be the same there — same files, same writability per
 * phase, the warm environment's overlay and a trusted bind included — and every mention of the host
 * path in argv, env and cwd must name the fixed one.
 */
describe('local executor: the sandbox at its fixed path', function () {
  this.timeout(120_000);
  let dir: string;
  let executor: LocalExecutor;

  before(function () {
    if (!hasTool('bwrap')) skipBecause(this, 'bubblewrap is not installed: only it can show the sandbox at another path');
    executor = new LocalExecutor();
  });
  beforeEach(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-fixed-path-')));
    for (const d of ['src', 'w', '.xrt/target']) fs.mkdirSync(path.join(dir, d), { recursive: true });
    fs.writeFileSync(path.join(dir, 'src', 'lib.rs'), 'fn main() {}\n');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function run(cmd: Partial<PhaseCommand> & { argv: string[] }): Promise<{ exitCode: number | null; output: string }> {
    const session = await executor.open({ language: 'rust', sandboxDir: dir, limits: DEFAULT_LIMITS });
    try {
      return await session.run({ phase: 'compile', cwd: path.join(dir, 'src'), env: {}, timeoutMs: 30_000, fixedPath: true, ...cmd });
    } finally {
      await session.close();
    }
  }

  it('is offered where bubblewrap confines, and every mention of the host path names it', async () => {
    assert.equal(executor.capabilities.fixedSandboxPath, FIXED_SANDBOX_PATH);
    const r = await run({ argv: ['sh', '-c', 'pwd; echo "$X"; echo "$1"; cat "$1"', 'sh', path.join(dir, 'src', 'lib.rs')], env: { X: `${dir}/w:${dir}` } });
    assert.equal(r.exitCode, 0, r.output);
    assert.deepEqual(r.output.trim().split('\n'), [`${FIXED_SANDBOX_PATH}/src`, `${FIXED_SANDBOX_PATH}/w:${FIXED_SANDBOX_PATH}`, `${FIXED_SANDBOX_PATH}/src/lib.rs`, 'fn main() {}'].map(String));
  });

  it('the host path still reaches the same files (the engine\'s scripts name it)', async () => {
    const r = await run({ argv: ['sh', '-c', `echo made > ${FIXED_SANDBOX_PATH}/w/f; cat '${dir}/w/f'`] });
    assert.equal(r.exitCode, 0, r.output);
    assert.equal(r.output.trim(), 'made');
    assert.equal(fs.readFileSync(path.join(dir, 'w', 'f'), 'utf8'), 'made\n');
  });

  it('a test phase is read-only at the fixed path too, but for its writable folders', async () => {
    const r = await run({
      phase: 'test',
      sandboxWritable: [path.join(dir, 'w')],
      argv: ['sh', '-c', `echo x > ${FIXED_SANDBOX_PATH}/src/evil.rs; echo a=$?; echo y > ${FIXED_SANDBOX_PATH}/w/ok; echo b=$?`],
    });
    assert.match(r.output, /a=[1-9]/, 'the copy is read-only at the fixed path');
    assert.match(r.output, /b=0/, 'its writable folder is writable there');
    assert.equal(fs.existsSync(path.join(dir, 'src', 'evil.rs')), false);
    assert.equal(fs.readFileSync(path.join(dir, 'w', 'ok'), 'utf8'), 'y\n');
  });

  it('a trusted bind of a host folder over a folder of the copy appears at both paths, writable', async () => {
    const entry = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-fixed-path-entry-'));
    try {
      const r = await run({
        phase: 'warm-up',
        binds: [{ source: entry, dest: path.join(dir, '.xrt', 'target') }],
        argv: ['sh', '-c', `echo built > ${FIXED_SANDBOX_PATH}/.xrt/target/a; cat '${dir}/.xrt/target/a'`],
      });
      assert.equal(r.exitCode, 0, r.output);
      assert.equal(r.output.trim(), 'built');
      assert.equal(fs.readFileSync(path.join(entry, 'a'), 'utf8'), 'built\n', 'the write landed in the bound host folder');
      assert.deepEqual(fs.readdirSync(path.join(dir, '.xrt', 'target')), [], 'not in the copy\'s own folder');
    } finally {
      fs.rmSync(entry, { recursive: true, force: true });
    }
  });

  it('a warm environment\'s overlay shows at the fixed path, its writes in the slot\'s upper layer', async function () {
    if (!executor.overlayMounts) skipBecause(this, 'overlays cannot be mounted here (not root, or the kernel refuses)');
    const lower = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-fixed-path-lower-'));
    try {
      fs.writeFileSync(path.join(lower, 'cached'), 'warm\n');
      const overlay = executor.sharedCache('rust').share(lower, path.join(dir, '.xrt', 'target'), { rewritesInPlace: true });
      assert.ok(overlay, 'an overlay');
      const r = await run({ overlays: [overlay], argv: ['sh', '-c', `cat ${FIXED_SANDBOX_PATH}/.xrt/target/cached; echo new > ${FIXED_SANDBOX_PATH}/.xrt/target/cached`] });
      assert.equal(r.exitCode, 0, r.output);
      assert.equal(r.output.trim(), 'warm');
      assert.equal(fs.readFileSync(path.join(lower, 'cached'), 'utf8'), 'warm\n', 'the warm entry is never written');
      assert.equal(fs.readFileSync(path.join(overlay.upper, 'cached'), 'utf8'), 'new\n', "the write is the slot's own");
    } finally {
      fs.rmSync(lower, { recursive: true, force: true });
    }
  });
});
