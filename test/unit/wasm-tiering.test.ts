import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { LANGUAGE_IDS } from '../../src/engine/languages/ids';
import { loadLanguage } from '../../src/engine/parse/grammars';
import { parseWithDeadline } from '../../src/engine/parse/parse';
import { HUGE_FUNCTION_BYTES, largestFunctionBytes, wasmTierUpLimited } from '../../src/engine/parse/wasm-tiering';
import { REPO_ROOT } from '../helpers/paths';
import { skipBecause } from '../helpers/skip';

const grammar = (id: string): Buffer => gunzipSync(fs.readFileSync(path.join(REPO_ROOT, 'grammars', `${id}.wasm.gz`)));

/** Issue 30: a process that loads Julia's grammar must not wait minutes for V8's TurboFan (parse/wasm-tiering.ts). */
describe('WebAssembly tier-up and the grammars (parse/wasm-tiering.ts)', () => {
  it("reads a module's largest function: Julia's lexer is huge, no other grammar's function nor the runtime's is", () => {
    const largest = Object.fromEntries(LANGUAGE_IDS.map((id) => [id, largestFunctionBytes(grammar(id))]));
    assert.equal(largest.julia, 327_936);
    for (const id of LANGUAGE_IDS.filter((l) => l !== 'julia')) assert.ok(largest[id] > 1000 && largest[id] < HUGE_FUNCTION_BYTES, `${id}: ${largest[id]}`);
    const runtime = largestFunctionBytes(fs.readFileSync(path.join(REPO_ROOT, 'node_modules', 'web-tree-sitter', 'tree-sitter.wasm')));
    assert.ok(runtime > 1000 && runtime < HUGE_FUNCTION_BYTES, `runtime: ${runtime}`);
    assert.equal(largestFunctionBytes(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0])), 0, 'an empty module');
    assert.throws(() => largestFunctionBytes(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 10, 0x80])), /truncated/);
  });

  it("loading Julia's grammar tells V8 to stay with Liftoff, in the process that loads it, and the grammar parses", async function () {
    if (process.env.XREPOTEST_WASM_TIER_UP === '1') skipBecause(this, 'XREPOTEST_WASM_TIER_UP=1 keeps V8\'s default tiering (the override for measuring), so the flag is not set');
    await loadLanguage('julia');
    assert.equal(wasmTierUpLimited(), true);
    const parsed = await parseWithDeadline('julia', 'f(x) = x + 1\n', 10_000);
    assert.ok('tree' in parsed && parsed.tree.rootNode.type === 'source_file');
    if ('tree' in parsed) parsed.tree.delete();
  });
});
