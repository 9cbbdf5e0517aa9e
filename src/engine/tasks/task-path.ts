import * as path from 'node:path';

/**
 * A task's `file_path` is `<repository folder>/<path inside it>` and comes from a dataset: input, not
 * an instruction. It becomes a file path in many places (the checkout check, the sandbox, test
 * placement, the Rust module appended to the focal file, LSP and file context, retrieval), so it is
 * checked here, once, by one rule: relative, '/'-separated, every segment a plain name. A path that
 * breaks the rule could place a test, or read a file, outside the checkout and the sandbox.
 */

export class TaskPathError extends Error {}

/** What the rule asks for, said in every refusal so the dataset's author knows what to fix. */
export const TASK_PATH_RULE = 'file_path must be "<repository folder>/<path inside it>": relative, \'/\'-separated, with no empty, "." or ".." segment';

/** Why one segment is not a plain name, or null when it is. */
function segmentProblem(segment: string): string | null {
  if (segment === '') return 'has an empty segment (a leading, doubled or trailing "/")';
  if (segment === '.' || segment === '..') return `has a "${segment}" segment`;
  return null;
}

/** Why `filePath` cannot be a task's file path, or null when it can. */
export function taskPathProblem(filePath: unknown): string | null {
  if (typeof filePath !== 'string') return 'is not a string';
  if (filePath === '') return 'is empty';
  if (filePath.includes('\0')) return 'contains a NUL character';
  // Newlines and other control characters make no sense in a path and would forge log and report lines.
  if (/[\u0001-\u001f\u007f]/.test(filePath)) return 'contains a control character';
  if (filePath.includes('\\')) return 'contains a backslash (use "/" between segments)';
  if (filePath.startsWith('/')) return 'is absolute';
  if (/^[A-Za-z]:/.test(filePath)) return 'starts with a drive letter';
  const segments = filePath.split('/');
  for (const s of segments) {
    const why = segmentProblem(s);
    if (why) return why;
  }
  if (segments.length < 2) return 'has no repository folder in front of the file';
  return null;
}

/** Why a repository folder name (a record's `repository.name`) is not one plain segment, or null. */
export function repositoryNameProblem(name: unknown): string | null {
  if (typeof name !== 'string') return 'is not a string';
  if (name.includes('/') || name.includes('\\')) return 'is not a single folder name (it contains a slash)';
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'contains a control character';
  return segmentProblem(name);
}

/** Throws TaskPathError naming the path and the rule when `filePath` breaks it. */
export function checkTaskPath(filePath: unknown): string {
  const why = taskPathProblem(filePath);
  if (why) throw new TaskPathError(`file_path ${JSON.stringify(filePath)} ${why}: ${TASK_PATH_RULE}`);
  return filePath as string;
}

/** A task record, or a result record read back, as far as its repository and path go. */
export interface TaskPathFields {
  file_path: unknown;
  repository?: { name?: unknown } | null;
}

/** A task's `file_path`, or the path itself; anything else goes on to be refused by `checkTaskPath`. */
const filePathOf = (task: string | Pick<TaskPathFields, 'file_path'>): unknown => (task !== null && typeof task === 'object' ? task.file_path : task);

/**
 * The repository folder: the first segment of a checked `file_path` — where the focal file is (the
 * checkout's folder in a manifest or `--repos`, the release's published folder).
 */
export function repositoryFolderOf(task: string | Pick<TaskPathFields, 'file_path'>): string {
  return checkTaskPath(filePathOf(task)).split('/')[0];
}

/** The focal file's path inside its repository, '/'-separated: a checked `file_path` without its first segment. */
export function pathInRepository(task: string | Pick<TaskPathFields, 'file_path'>): string {
  return checkTaskPath(filePathOf(task)).split('/').slice(1).join('/');
}

/**
 * The name a task's repository goes by (checkouts.json's keys, the report's and the annotator's
 * repository, `inspect`), by one rule: its pinned `repository.name` when that is one plain folder name,
 * else the first segment of its checked `file_path`; null when neither is usable.
 *
 * The rule replaces two that differed only on records no extraction writes (extraction makes the
 * name and the path's first segment from one value; the release's records have no name): an empty
 * name was kept by one (`??`) and skipped by the other (`||`), and neither checked what it split. An
 * empty or otherwise unusable name (a result record read back is input too) now falls back to the
 * path's folder, and a path that breaks the rule gives no name rather than a piece of it ("..", "").
 */
export function repositoryNameOrNull(task: TaskPathFields): string | null {
  const name = task.repository?.name;
  if (typeof name === 'string' && !repositoryNameProblem(name)) return name;
  return taskPathProblem(task.file_path) ? null : (task.file_path as string).split('/')[0];
}

/** `repositoryNameOrNull` for a task that must have one: throws TaskPathError naming the path and the rule. */
export function repositoryNameOf(task: TaskPathFields): string {
  return repositoryNameOrNull(task) ?? repositoryFolderOf(task);
}

/** What results, reports and the annotator show for a record's repository: its name, or `(unknown)`. */
export function repositoryLabelOf(task: TaskPathFields): string {
  return repositoryNameOrNull(task) ?? UNKNOWN_REPOSITORY;
}

export const UNKNOWN_REPOSITORY = '(unknown)';

/**
 * `root` joined with a checked relative path, and proved to stay inside `root` (lexically: links
 * inside a copy are the sandbox's business). The one way a task's path becomes a file path.
 */
export function resolveInside(root: string, relPath: string): string {
  const base = path.resolve(root);
  const joined = path.resolve(base, ...relPath.split('/'));
  const rel = path.relative(base, joined);
  if (rel === '' || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) {
    throw new TaskPathError(`${JSON.stringify(relPath)} does not resolve to a file inside ${base}`);
  }
  return joined;
}

/** The focal file of a task in a checkout or a sandbox, checked to resolve inside it. */
export function focalFileIn(root: string, filePath: string): string {
  return resolveInside(root, pathInRepository(filePath));
}
