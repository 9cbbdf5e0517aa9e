import { spawnSync } from 'node:child_process';
import { allowancesFor, countAllowedSkip, strictRefusal, strictSkips, type SkipKind } from './skip-policy';

export type { SkipKind } from './skip-policy';

/** Whether a command runs here (`tool --version` exits 0). */
export function hasTool(cmd: string, args: string[] = ['--version']): boolean {
  const r = spawnSync(cmd, args, { stdio: 'ignore' });
  return r.status === 0;
}

/**
 * Skips a test, saying why where the test would have run; mocha counts it as pending, and the
 * closing line of the run shows the total of skipped tests. `kind` says what the test needs that is
 * missing here: in strict mode (XRT_STRICT_SKIPS=1, as CI runs) the skip fails the test unless that is
 * on the list of what this kind of machine cannot have (skip-policy.ts).
 */
export function skipBecause(ctx: Mocha.Context, reason: string, kind?: SkipKind): never {
  if (strictSkips()) {
    const allowed = allowancesFor(kind);
    if (!allowed) throw new Error(strictRefusal(reason, kind));
    countAllowedSkip(allowed);
  }
  process.stdout.write(`      skipped: ${reason}\n`);
  ctx.skip();
  throw new Error('unreachable'); // ctx.skip() throws; this satisfies the `never` type
}
