import * as fs from 'node:fs';
import * as path from 'node:path';
import { classifyDocument } from '../extract/document';
import type { TaskRecord } from '../tasks/record';
import { materializeCommit, type BaseCheckout } from './base-checkout';
import type { Evaluation } from './evaluate';
import type { RegressionVerdict } from './types';
import { focalPathInRepo } from './sandbox';

export type { RegressionVerdict };

/*
 * Whether a passing test reveals the change it was written for (`run --regression-check`): see
 * RegressionVerdict (types.ts).
 */

/** The base commit `extract --changed-since` recorded on the task, or null. */
export function baseCommitOf(task: TaskRecord): string | null {
  const c = (task as { changed_since?: unknown }).changed_since;
  const commit = c && typeof c === 'object' ? (c as { commit?: unknown }).commit : undefined;
  return typeof commit === 'string' && /^[0-9a-f]{40,64}$/.test(commit) ? commit : null;
}

/** The base commits' trees, made once per (checkout, commit) for a run and removed at its end. */
export class BaseCheckouts {
  private readonly made = new Map<string, BaseCheckout | Error>();

  get(checkout: string, commit: string): BaseCheckout {
    const key = `${path.resolve(checkout)}\0${commit}`;
    let b = this.made.get(key);
    if (!b) {
      try {
        b = materializeCommit(checkout, commit);
      } catch (e) {
        b = e instanceof Error ? e : new Error(String(e));
      }
      this.made.set(key, b);
    }
    if (b instanceof Error) throw b;
    return b;
  }

  close(): void {
    for (const b of this.made.values()) if (!(b instanceof Error)) b.remove();
    this.made.clear();
  }
}

/**
 * The task as it was at the base: the focal file's content there, and the function of the same name
 * (the nearest to where it is now, where the file has several), its lines as they were. Null when the
 * file or the function is not there.
 */
export async function taskAtBase(task: TaskRecord, baseDir: string): Promise<TaskRecord | null> {
  const rel = focalPathInRepo(task);
  const file = path.join(baseDir, rel);
  const st = fs.lstatSync(file, { throwIfNoEntry: false });
  if (!st?.isFile()) return null;
  const text = fs.readFileSync(file, 'utf8');
  const name = task.function_component.name || task.function_name;
  const candidates = (await classifyDocument(rel, text, {}, baseDir)).filter((f) => f.name === name && f.untestable === null);
  if (!candidates.length) return null;
  const now = task.function_component.start_line;
  const fn = candidates.reduce((a, b) => (Math.abs(b.startLine - now) < Math.abs(a.startLine - now) ? b : a));
  const focal = text.split('\n').slice(fn.startLine - 1, fn.endLine).join('\n');
  return { ...task, file_content: text, focal_code: focal, function_component: { ...task.function_component, start_line: fn.startLine, end_line: fn.endLine } };
}

/**
 * Runs a passing test again at the base commit (see the header) and says what that shows. `evaluate`
 * runs a test for a task in a checkout, as the run does for the new code.
 */
export async function regressionCheck(
  task: TaskRecord,
  checkout: string,
  bases: BaseCheckouts,
  evaluate: (task: TaskRecord, repoDir: string) => Promise<Evaluation>,
): Promise<RegressionVerdict> {
  const commit = baseCommitOf(task);
  if (!commit) return { base: null, verdict: 'not-checked', reason: 'the task names no base commit: extract it with `xrepotest extract --changed-since <ref>`' };
  let base: BaseCheckout;
  try {
    base = bases.get(checkout, commit);
  } catch (e) {
    return { base: commit, verdict: 'not-checked', reason: `the base commit's tree could not be read from ${checkout}: ${(e as Error).message.split('\n')[0]}` };
  }
  const atBase = await taskAtBase(task, base.dir);
  if (!atBase) return { base: commit, verdict: 'absent-at-base', reason: `${task.function_name} is not in ${focalPathInRepo(task)} at ${commit.slice(0, 12)}: the change adds it` };
  const e = await evaluate(atBase, base.dir);
  if (e.environment || e.score.failure?.category === 'environment') {
    return { base: commit, verdict: 'not-checked', reason: `the base run could not be scored: ${e.score.reason ?? e.error ?? 'environment'}` };
  }
  if (e.score.passed) return { base: commit, verdict: 'passes-at-base', reason: 'it passes at the base commit too: it does not tell the change apart' };
  return { base: commit, verdict: 'change-revealing', reason: `it fails at the base commit (${e.score.reason ?? 'did not pass'}) and passes on the new code` };
}
