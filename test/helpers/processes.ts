import type { ChildProcess } from 'node:child_process';

/** Resolves with a child's exit code (at once when it has exited already). */
export function exited(p: ChildProcess): Promise<number | null> {
  return p.exitCode !== null ? Promise.resolve(p.exitCode) : new Promise((resolve) => p.once('exit', (code) => resolve(code)));
}

/** Polls `probe` every 200 ms until it gives a value; past `timeoutMs`, fails naming `what`. */
export async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
