import * as fs from 'node:fs';
import * as path from 'node:path';
import { URI } from 'vscode-uri';
import { changedLinesSince, touches } from '../engine/extract/changed-lines';
import { classifyDocument } from '../engine/extract/document';
import { DEFAULT_MAX_FILE_BYTES } from '../engine/extract/extract';
import { DEFAULT_EXCLUDED_DIRS, readSourceText } from '../engine/extract/files';
import { adapterForPath } from '../engine/languages';
import { CHANGED_FUNCTIONS, type ChangedFunction, type ChangedFunctionsParams, type ChangedFunctionsResult } from '../shared/scoring-protocol';
import type { ServerState } from './state';
import { onClientRequest } from './wire';

/** Why a changed file is not read, or null when it is read: the same folders `extract` leaves out, links, huge files. */
function skipReason(root: string, realRoot: string, rel: string): string | null {
  const parts = rel.split('/');
  if (parts.some((p) => p === '..' || p === '')) return 'not a path inside the folder';
  if (parts.slice(0, -1).some((p) => p.startsWith('.') || DEFAULT_EXCLUDED_DIRS.includes(p))) return 'in a folder extraction leaves out (vendored, built or hidden code)';
  const abs = path.join(root, rel);
  let st: fs.Stats;
  try {
    st = fs.lstatSync(abs);
  } catch {
    return 'deleted';
  }
  if (!st.isFile()) return 'a link or not a regular file';
  // A linked folder on the way would read a file outside the repository.
  let real: string;
  try {
    real = fs.realpathSync(abs);
  } catch {
    return 'cannot be resolved';
  }
  if (!real.startsWith(realRoot + path.sep)) return 'reached through a link out of the folder';
  if (st.size > DEFAULT_MAX_FILE_BYTES) return `larger than ${DEFAULT_MAX_FILE_BYTES / (1024 * 1024)} MiB`;
  return null;
}

/**
 * The functions a test can call whose lines changed in `folder` since `ref` (extract/changed-lines.ts:
 * git with nothing of the checkout's configuration that starts a program). Every function is named,
 * inside the benchmark's length filter or not, as the palette scores any callable function.
 */
export async function changedFunctions(folder: string, ref: string, filters: { minLines: number; maxLines: number }): Promise<ChangedFunctionsResult> {
  const root = path.resolve(folder);
  const realRoot = fs.realpathSync(root);
  const changed = changedLinesSince(root, ref);
  const functions: ChangedFunction[] = [];
  const skipped: ChangedFunctionsResult['skipped'] = [];
  for (const rel of [...changed.files.keys()].sort()) {
    if (!adapterForPath(rel)) continue;
    const why = skipReason(root, realRoot, rel);
    if (why) {
      if (why !== 'deleted') skipped.push({ relPath: rel, why });
      continue;
    }
    const read = readSourceText(path.join(root, rel));
    if (read.kind !== 'text') {
      skipped.push({ relPath: rel, why: read.kind === 'binary' ? 'binary' : 'not UTF-8' });
      continue;
    }
    for (const f of await classifyDocument(rel, read.text, filters, root)) {
      if (f.untestable !== null || !touches(changed, rel, f.startLine, f.endLine)) continue;
      functions.push({ uri: URI.file(path.join(root, rel)).toString(), relPath: rel, name: f.name, startLine: f.startLine, endLine: f.endLine });
    }
  }
  return { commit: changed.commit, functions, skipped };
}

export function registerChanges(state: ServerState): void {
  onClientRequest(state.connection, CHANGED_FUNCTIONS, (params: ChangedFunctionsParams): Promise<ChangedFunctionsResult> => {
    const folder = URI.parse(params.folder).fsPath;
    // Only a folder the editor has open: the request names a path, and the server reads what is under it.
    if (!state.workspaceFolders.some((f) => URI.parse(f).fsPath === folder)) throw new Error(`${folder} is not a workspace folder: open it in the editor first`);
    return changedFunctions(folder, params.ref, { minLines: params.settings.minLines, maxLines: params.settings.maxLines });
  });
}
