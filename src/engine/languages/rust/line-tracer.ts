import * as path from 'node:path';
import type { RunContext } from '../../execute/toolchain';
import { runnerPath } from '../../execute/toolchain';
import type { Executor, PhaseCommand } from '../../execute/types';
import { lineTracerIfBuilt, localLineTracer, tracerSupported } from '../../tracer/build';

/**
 * The test phase under the line tracer (src/engine/tracer): the test executables run as its tracees,
 * int3 at every line-table address of the focal function's lines, and its report goes to a descriptor
 * the executor reads and the test never holds. The coverage phase's profile is then checked against
 * it (tampering.ts, `rust-coverage-rewritten`). Only where the executor gives both a read-only view
 * for the tracer (it must not be a file of the sandbox the test could replace) and a sealed
 * descriptor: the local executor with bubblewrap. Elsewhere the profile stands unchecked (docs/execution.md).
 */

type TracerState = { dir: string; views: string } | { problem: string } | { none: true };

const tracers = new WeakMap<RunContext, TracerState>();

/** Before the test exists: the tracer built (once per Go installation) where this executor can use it. */
export async function prepareLineTracer(ctx: RunContext, executor: Executor): Promise<void> {
  const views = executor.capabilities.commandViews;
  if (!ctx.hostToolchains || !views || !executor.capabilities.sealedChannel || !tracerSupported()) {
    tracers.set(ctx, { none: true });
    return;
  }
  const built = executor.toolsInBackground ? lineTracerIfBuilt() : await localLineTracer();
  tracers.set(ctx, 'dir' in built ? { dir: built.dir, views } : built);
}

/** The tracer of this slot: its host folder, why there is none where there should be one, or nothing to say. */
export function lineTracer(ctx: RunContext): TracerState {
  return tracers.get(ctx) ?? { none: true };
}

/** The test phase run by the tracer, watching `exes` (as cargo named them), when this slot has one. */
export function traced(ctx: RunContext, exes: string[], cmd: PhaseCommand): PhaseCommand {
  const tracer = lineTracer(ctx);
  if (!('dir' in tracer) || !exes.length) return cmd;
  // Where the tracer's folder appears inside the test phase, read-only.
  const dir = path.posix.join(tracer.views, 'linetrace');
  const { start_line: from, end_line: to } = ctx.task.function_component;
  return {
    ...cmd,
    argv: [
      path.posix.join(dir, 'bin', 'linetrace'),
      '-report-fd=3',
      `-file=${runnerPath(ctx, ctx.sandbox.focalFile)}`,
      `-from=${from}`,
      `-to=${to}`,
      ...exes.map((e) => `-exe=${e}`),
      '--',
      ...cmd.argv,
    ],
    view: { dir, readOnly: [{ source: tracer.dir, dest: path.posix.join(dir, 'bin') }] },
    sealedChannel: true,
  };
}
