import { createHash } from 'node:crypto';

/** The repository a task comes from; the release has none of this, we pin it at extraction. */
export interface RepositoryRef {
  /** The repository folder name, the first segment of `file_path`. */
  name: string;
  /** `origin` remote URL, or the absolute path of the checkout. */
  url: string;
  /** HEAD when extracted; null outside git. */
  commit: string | null;
  /** Where the repository sits inside a bigger checkout (`url`), '/'-separated; absent at its root. */
  subdir?: string;
  /** The folder extracted, as an absolute path on the machine that extracted it: where `run` looks first. */
  path?: string;
}

export interface FunctionComponent {
  name: string;
  signature: string;
  start_line: number;
  end_line: number;
  [enrichment: string]: unknown;
}

export interface TaskMetadata {
  package?: string;
  module?: string;
  namespace?: string;
  class_name: string;
  class_signature: string;
  [extra: string]: unknown;
}

/** A task in the XRepoTest record format (notes/xrepotest-release.md §1), plus `id` and `repository`. */
export interface TaskRecord {
  task_id: number | string;
  function_name: string;
  file_path: string;
  focal_code: string;
  file_content: string;
  language: string;
  function_component: FunctionComponent;
  metadata: TaskMetadata;
  /** Ours: stable across re-extraction of the same code. */
  id?: string;
  /** Ours: where the code comes from, pinned. */
  repository?: RepositoryRef;
  /** Enriched releases add fields (`lsp_extraction`, `retrieved_contexts_*`); they pass through. */
  [extra: string]: unknown;
}

/**
 * A stable id: the same function in the same code gets the same id in every extraction, whatever
 * the order of files or the task_id. Line numbers are left out so edits elsewhere in the file do not
 * change it, and the checkout's location is left out so the id is the same on every machine.
 */
export function stableTaskId(parts: {
  language: string;
  /** `<repo_dir>/<path in repo>`: names the repository too. */
  filePath: string;
  className: string;
  functionName: string;
  focalCode: string;
}): string {
  const h = createHash('sha256');
  for (const p of [parts.language, parts.filePath, parts.className, parts.functionName, parts.focalCode]) {
    h.update(p);
    h.update('\0');
  }
  return h.digest('hex').slice(0, 16);
}
