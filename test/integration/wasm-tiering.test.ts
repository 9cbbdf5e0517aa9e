import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { HUGE_FUNCTION_BYTES } from '../../src/engine/parse/wasm-tiering';
import { CLI, fixture } from '../helpers/paths';

/**
 * Issue 30: extraction on a Julia repository wrote its tasks in half a minute and then waited minutes
 * for V8 to finish compiling Julia's 328 KB lexer function with TurboFan. Asked with V8's own trace of
 * each WebAssembly function compiled (`--trace-wasm-compilation-times`, printed on standard output):
 * the CLI process compiles no huge function with TurboFan, and still does with the override that
 * leaves V8's default, which shows the trace would see it.
 */
const HUGE = HUGE_FUNCTION_BYTES; // bytes of one function's body: Julia's lexer is 327,936, every other function of the grammars and the runtime under 54,000

function extract(dir: string, out: string, env: NodeJS.ProcessEnv): { turbofanHuge: number; turbofan: number; stderr: string; code: number | null } {
  const r = spawnSync(process.execPath, ['--trace-wasm-compilation-times', CLI, 'extract', dir, '--out', out, '--no-progress'], { encoding: 'utf8', env, maxBuffer: 64 * 1024 * 1024 });
  const turbofan = r.stdout.split('\n').filter((l) => / using TurboFan, /.test(l));
  const huge = turbofan.filter((l) => Number(/bodysize (\d+)/.exec(l)?.[1] ?? 0) >= HUGE);
  return { turbofanHuge: huge.length, turbofan: turbofan.length, stderr: r.stderr, code: r.status };
}

describe('WebAssembly tier-up in the CLI process (parse/wasm-tiering.ts)', function () {
  this.timeout(600_000);
  let dir: string;
  before(() => {
    assert.ok(fs.existsSync(CLI), `${CLI} is missing: run npm run build`);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-wasm-tiering-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("compiles Julia's lexer with Liftoff only, and writes the same tasks as with V8's default", () => {
    const env = { ...process.env };
    delete env.XREPOTEST_WASM_TIER_UP;
    const limited = extract(fixture('MiniStats.jl'), path.join(dir, 'limited.jsonl'), env);
    assert.equal(limited.code, 0, limited.stderr);
    assert.equal(limited.turbofanHuge, 0, 'a huge function was compiled with TurboFan');

    const tiered = extract(fixture('MiniStats.jl'), path.join(dir, 'tiered.jsonl'), { ...env, XREPOTEST_WASM_TIER_UP: '1' });
    assert.equal(tiered.code, 0, tiered.stderr);
    assert.ok(tiered.turbofanHuge > 0, `with V8's default the lexer is tiered up (${tiered.turbofan} TurboFan compiles seen): otherwise the check above sees nothing`);

    const tasks = fs.readFileSync(path.join(dir, 'limited.jsonl'), 'utf8');
    assert.equal(tasks, fs.readFileSync(path.join(dir, 'tiered.jsonl'), 'utf8'));
    assert.equal(tasks.trim().split('\n').length, 5);
  });
});
