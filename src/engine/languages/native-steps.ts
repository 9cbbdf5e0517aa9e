import { spawnSync } from 'node:child_process';
import type { NativeRun, NativeStep } from './execution-types';

export type NativeStepsResult = { ok: true; stdout: string[] } | { ok: false; stdout: string[]; failed: { argv: string[]; status: number | null; output: string } };

/**
 * Runs a native run's steps (an adapter's `native.prepare`) in order, on the host, unconfined: for the
 * benchmark's reference runs on trusted tests only, never for a scored run. Stops at the first step
 * that does not exit 0.
 */
export function runNativeSteps(steps: NativeRun['withCoverage']): NativeStepsResult {
  const stdout: string[] = [];
  for (const s of steps) {
    const step: NativeStep = typeof s === 'function' ? s(stdout) : s;
    const r = spawnSync(step.argv[0], step.argv.slice(1), { cwd: step.cwd, env: { ...process.env, ...step.env }, encoding: 'utf8', maxBuffer: 512 * 1024 ** 2 });
    if (r.status !== 0) return { ok: false, stdout, failed: { argv: step.argv, status: r.status, output: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` } };
    stdout.push(r.stdout);
  }
  return { ok: true, stdout };
}
