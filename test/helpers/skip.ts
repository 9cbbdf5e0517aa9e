import { spawnSync } from 'node:child_process';

/** Whether a command runs here (`tool --version` exits 0). */
export function hasTool(cmd: string, args: string[] = ['--version']): boolean {
  const r = spawnSync(cmd, args, { stdio: 'ignore' });
  return r.status === 0;
}

/**
 * Skips a test, saying why where the test would have run; mocha counts it as pending, and the
 * closing line of the run shows the total of skipped tests.
 */
export function skipBecause(ctx: Mocha.Context, reason: string): never {
  process.stdout.write(`      skipped: ${reason}\n`);
  ctx.skip();
  throw new Error('unreachable'); // ctx.skip() throws; this satisfies the `never` type
}
