import * as path from 'node:path';
import { readSandboxFile, writeSandboxFile } from '../../execute/safe-fs';
import { sandboxRel, type PrepareWith, type RunContext } from '../../execute/toolchain';
import type { PhaseCommand, PhaseResult } from '../../execute/types';
import { warmUpProblem as projectDoesNotBuild } from '../../execute/warm-up-problem';
import { environmentWarmKey, familyOf, hostToolIdentity, warmEntry, warmKey } from '../../execute/warm-environment';
import type { EnvironmentProblem } from '../../score/types';
import { answerPath, warmUpProblem } from './bundle';

/**
 * Ruby's warm-up (bundle.ts: `bundle check`, the spec helper probed) asks the same question of every
 * slot of a repository: which runner, and does the project load here. Its answer depends only on the
 * pristine copy, the Ruby and the gems installed on this machine, so with the local executor it is
 * kept per key (execute/warm-environment.ts: the copy's content, `RUBY_DESCRIPTION` and the installed
 * gems' names) and replayed into later slots: the runner answer and the Gemfile.lock `bundle check`
 * wrote, through safe-fs, before any of the test exists. A failing warm-up is the key's environment
 * verdict, as for Go and Rust. Installing or removing a gem changes the key. In a container (no
 * shared cache) the warm-up runs in the slot; a container reused slot after slot replays it as well.
 */

interface WarmAnswer {
  /** The runner answer file's content (`bundle` / `plain`), null when the warm-up wrote none. */
  answer: string | null;
  /** Gemfile.lock as the warm-up left it, when it differed from the pristine copy's (null: unchanged). */
  lock: { rel: string; content: string | null } | null;
}

/** The host's Ruby and its installed gems, as the warm-up sees them (once per process). */
const hostRuby = (): string => hostToolIdentity('ruby', ['-e', 'puts RUBY_DESCRIPTION; puts Gem::Specification.map(&:full_name).sort'], undefined, 60_000);

/** As the engine judges a failed warm-up (execute/evaluate.ts), with the checkout it names. */
function failedProblem(warm: PhaseResult, repo: string): EnvironmentProblem {
  const known = warmUpProblem(warm, repo);
  if (known) return known;
  return projectDoesNotBuild(warm, repo);
}

/**
 * The Ruby slot's preparation: the warm-up phase when this slot ran it (its result, failing or not,
 * judged by the engine as before), null when the key's answer was replayed, or the key's problem.
 */
export async function prepareRubyWarmUp(ctx: RunContext, with_: PrepareWith, command: () => PhaseCommand): Promise<PhaseResult | EnvironmentProblem | null> {
  const shared = with_.executor.capabilities.hostToolchains ? (with_.executor.sharedCache?.('ruby') ?? null) : null;
  const lockRel = sandboxRel(ctx, path.join(ctx.sandbox.projectRoot, 'Gemfile.lock'));
  const answerRel = sandboxRel(ctx, answerPath(ctx));
  if (!shared) return warmUpInEnvironment(ctx, with_, command, lockRel, answerRel);
  let ranHere: PhaseResult | null = null;
  const outcome = await warmEntry<WarmAnswer>({
    root: shared.dir,
    key: warmKey({ copyDir: ctx.sandbox.dir, skip: new Set([path.basename(ctx.sandbox.xrt)]), projectRoot: ctx.sandbox.projectRoot, toolchain: `ruby warm-up v1\0${hostRuby()}`, scope: '' }),
    content: 'answer',
    family: familyOf(hostRuby()),
    prime: false,
    build: async () => {
      const before = readSandboxFile(ctx.sandbox.dir, lockRel);
      const warm = await with_.run(command());
      ranHere = warm;
      if (warm.exitCode !== 0 || warm.timedOut) return { ok: false, problem: failedProblem(warm, with_.repoDir ?? 'the repository') };
      return { ok: true, meta: answerAfterWarmUp(ctx, before, lockRel, answerRel) };
    },
  });
  // This slot ran the warm-up: the engine judges its result as it always did (and the copy is as it left it).
  if (ranHere) return ranHere;
  if (!outcome.ok) return outcome.problem;
  replayAnswer(ctx, outcome.entry.meta, answerRel);
  return null;
}

/**
 * Without a shared cache (a container): the warm-up in the slot. A container reused slot after slot
 * remembers a key's passing answer (`Session.warmed`: the copy's content, the image's Ruby and gems do
 * not change in it), and later slots of the key get it replayed instead of the warm-up's rspec probe.
 */
async function warmUpInEnvironment(ctx: RunContext, with_: PrepareWith, command: () => PhaseCommand, lockRel: string, answerRel: string): Promise<PhaseResult | null> {
  const key = with_.warmed ? environmentWarmKey(ctx, { toolchain: 'ruby container warm-up v1', scope: '' }) : null;
  const saved = key ? (with_.warmed!.get(key) as WarmAnswer | undefined) : undefined;
  if (saved) {
    replayAnswer(ctx, saved, answerRel);
    return null;
  }
  const before = readSandboxFile(ctx.sandbox.dir, lockRel);
  const warm = await with_.run(command());
  if (key && warm.exitCode === 0 && !warm.timedOut) with_.warmed!.set(key, answerAfterWarmUp(ctx, before, lockRel, answerRel));
  return warm;
}

/** What a passing warm-up left: its runner answer, and the Gemfile.lock when it differs from `before`. */
function answerAfterWarmUp(ctx: RunContext, before: string | null, lockRel: string, answerRel: string): WarmAnswer {
  // Only the project's own code has run (no test exists yet): read without following links all the same.
  const after = readSandboxFile(ctx.sandbox.dir, lockRel);
  return { answer: readSandboxFile(ctx.sandbox.dir, answerRel, 64), lock: after === before ? null : { rel: lockRel, content: after } };
}

/** A warm-up's answer and lock, written into a slot that did not run it. */
function replayAnswer(ctx: RunContext, { answer, lock }: WarmAnswer, answerRel: string): void {
  if (lock && lock.content !== null) writeSandboxFile(ctx.sandbox.dir, lock.rel, lock.content);
  if (answer !== null) writeSandboxFile(ctx.sandbox.dir, answerRel, answer);
}
