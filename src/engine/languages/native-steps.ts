import { spawn } from 'node:child_process';
import type { NativeRun, NativeStep } from './execution-types';

export type NativeStepsResult = { ok: true; stdout: string[] } | { ok: false; stdout: string[]; failed: { argv: string[]; status: number | null; output: string } };

function runStep(step: NativeStep): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(step.argv[0], step.argv.slice(1), { cwd: step.cwd, env: { ...process.env, ...step.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => resolve({ status: null, stdout: '', stderr: String(e) }));
    child.on('close', (status) => resolve({ status, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}

/**
 * Runs a native run's steps (an adapter's `native.prepare`) in order, on the host, unconfined: for the
 * benchmark's reference runs on trusted tests only, never for a scored run. Stops at the first step
 * that does not exit 0. Asynchronous, so that an editor test's extension host keeps answering.
 */
export async function runNativeSteps(steps: NativeRun['withCoverage']): Promise<NativeStepsResult> {
  const stdout: string[] = [];
  for (const s of steps) {
    const step: NativeStep = typeof s === 'function' ? s(stdout) : s;
    const r = await runStep(step);
    if (r.status !== 0) return { ok: false, stdout, failed: { argv: step.argv, status: r.status, output: `${r.stdout}${r.stderr}` } };
    stdout.push(r.stdout);
  }
  return { ok: true, stdout };
}
