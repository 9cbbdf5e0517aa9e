import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TaskRecord } from '../tasks/record';
import { focalFileIn, repositoryNameOf, taskPathProblem } from '../tasks/task-path';

/**
 * A run folder's `checkouts.json`: `{"<repository name>": "<absolute checkout path>"}`, written by the
 * benchmark and by whoever asks the user where a repository is, so the results of a run can be
 * opened in their code again.
 */
export type CheckoutMap = Record<string, string>;

export function checkoutsFile(runDir: string): string {
  return path.join(runDir, 'checkouts.json');
}

export function readCheckouts(runDir: string): CheckoutMap {
  const file = checkoutsFile(runDir);
  if (!fs.existsSync(file)) return {};
  let value: unknown;
  try {
    value = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`${file} is not JSON (${(e as Error).message}): fix or delete it`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${file} should map repository names to checkout folders: fix or delete it`);
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** Adds or replaces one repository's checkout, keeping the others (written aside and renamed). */
export function rememberCheckout(runDir: string, repository: string, checkout: string): void {
  const map = { ...readCheckouts(runDir), [repository]: path.resolve(checkout) };
  const file = checkoutsFile(runDir);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(map, null, 2) + '\n');
  fs.renameSync(tmp, file);
}

const isDir = (p: string | undefined): p is string => !!p && fs.existsSync(p) && fs.statSync(p).isDirectory();

/**
 * The checkout of a result's repository: the run folder's map, else where the task was extracted,
 * else what `ask` answers (remembered in the map; undefined when the user gives none).
 */
export async function resolveCheckout(
  runDir: string,
  task: Pick<TaskRecord, 'repository' | 'file_path'>,
  ask: (repository: string) => Promise<string | undefined>,
): Promise<string | undefined> {
  const name = repositoryNameOf(task);
  const mapped = readCheckouts(runDir)[name];
  if (isDir(mapped)) return mapped;
  const extracted = task.repository?.path;
  if (extracted && path.isAbsolute(extracted) && isDir(extracted)) return extracted;
  const answer = await ask(name);
  if (!answer) return undefined;
  if (!isDir(answer)) throw new Error(`${answer} is not a folder: pick the checkout of ${name}`);
  rememberCheckout(runDir, name, answer);
  return path.resolve(answer);
}

export type FocalSource = { kind: 'checkout'; file: string } | { kind: 'task'; why: string };

/**
 * Where to show a task's focal file: the checkout's file when it is still the task's code, else the
 * task's own copy (`file_content`) with the reason — lines would not match other code.
 */
export function focalSourceIn(checkout: string | undefined, task: Pick<TaskRecord, 'file_path' | 'file_content'>): FocalSource {
  if (!checkout) return { kind: 'task', why: 'no checkout of its repository was given' };
  // A results file is input too: a row whose path leaves the checkout is shown from its own copy.
  const bad = taskPathProblem(task.file_path);
  if (bad) return { kind: 'task', why: `its file_path ${bad}` };
  const file = focalFileIn(checkout, task.file_path);
  if (!fs.existsSync(file)) return { kind: 'task', why: `${file} does not exist` };
  if (fs.readFileSync(file, 'utf8') !== task.file_content) return { kind: 'task', why: `${file} changed since the run` };
  return { kind: 'checkout', file };
}
