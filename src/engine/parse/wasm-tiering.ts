import { setFlagsFromString } from 'node:v8';

/**
 * V8 compiles WebAssembly twice: at once with Liftoff, its baseline compiler, then, for the functions
 * that run hot, again with TurboFan on a background thread ("tier-up"), and a process that is done
 * waits for those compiles before it exits. For most grammars that pays: TurboFan's code parses 2–8
 * times faster, for well under a second of compiling. Not for a grammar with a huge function: TurboFan's
 * time grows much faster than the function, and Julia's lexer is one function of 328 KB (every other
 * function of our grammars and of the runtime is under 54 KB), compiled in seconds on an idle machine
 * and in minutes on a busy one, long after the tasks are written (extraction on a Julia repository:
 * tasks after 25–40 s, exit 100–200 s later; with Liftoff only, the same tasks in 26 s). docs/benchmarks.md
 * has the figures.
 *
 * So before such a grammar is compiled, the engine tells V8 to stay with Liftoff (`--liftoff-only`), in
 * whichever process loads it (grammars.ts: the CLI, the engine's server, the MCP server, the benches).
 * V8's flags are process-wide and not undone: from then on that process parses every language with
 * Liftoff's code. Set at run time it takes effect on Node 20 for every tier-up decided afterwards,
 * grammars compiled earlier included (test/integration/wasm-tiering.test.ts asks V8's own trace).
 *
 * `XREPOTEST_WASM_TIER_UP=1` leaves V8's default (to measure the difference).
 */
export const WASM_BASELINE_FLAG = '--liftoff-only';

/** A function body this large is not worth TurboFan's time (bytes of WebAssembly code). */
export const HUGE_FUNCTION_BYTES = 100_000;

/** An unsigned LEB128 number at `at`, and where the next field starts. */
function leb128(bytes: Uint8Array, at: number): [number, number] {
  let value = 0;
  let scale = 1;
  for (;;) {
    if (at >= bytes.length) throw new Error('truncated WebAssembly module');
    const b = bytes[at++];
    value += (b & 0x7f) * scale;
    if (b < 0x80) return [value, at];
    scale *= 128;
  }
}

/** The size of the largest function body in a WebAssembly module (its code section), 0 when it has none. */
export function largestFunctionBytes(module: Uint8Array): number {
  let at = 8; // magic and version
  while (at < module.length) {
    const id = module[at++];
    const [size, start] = leb128(module, at);
    if (id === 10) {
      let [count, p] = leb128(module, start);
      let largest = 0;
      for (; count > 0; count--) {
        const [body, next] = leb128(module, p);
        largest = Math.max(largest, body);
        p = next + body;
      }
      return largest;
    }
    at = start + size;
  }
  return 0;
}

let limited = false;

/** Before `module` (a grammar) is compiled: V8 stays with Liftoff from now on when it holds a huge function. */
export function limitWasmTierUpFor(module: Uint8Array): void {
  if (limited || process.env.XREPOTEST_WASM_TIER_UP === '1') return;
  if (largestFunctionBytes(module) < HUGE_FUNCTION_BYTES) return;
  setFlagsFromString(WASM_BASELINE_FLAG);
  limited = true;
}

/** Whether this process has told V8 to stay with Liftoff. */
export function wasmTierUpLimited(): boolean {
  return limited;
}
