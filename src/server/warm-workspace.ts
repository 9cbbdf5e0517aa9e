import * as fs from 'node:fs';
import * as path from 'node:path';
import { URI } from 'vscode-uri';
import { repositoryLanguages } from '../engine/doctor-repo';
import { classifyDocument, taskForDocumentFunction } from '../engine/extract/document';
import { adapterFor } from '../engine/languages';
import type { BuildProgress } from '../engine/execute/prepare-environment';
import type { LanguageId } from '../engine/parse/grammars';
import type { EngineSettings } from '../shared/protocol';
import { WARM_PROGRESS, WARM_WORKSPACE, type WarmLanguageResult, type WarmWorkspaceResult } from '../shared/warm-protocol';
import type { Focal } from './candidates';
import { prepareFocal } from './environment';
import type { ServerState } from './state';
import { onClientRequest } from './wire';
import { SKIPPED } from './workspace-languages';

/** Source files read to find a function to warm with, at most (breadth-first from the folder's root). */
const MAX_FILES = 40;
const MAX_FILE_BYTES = 512 * 1024;

/**
 * A function of the language to warm the build with: the first one a test can call, in the source
 * files nearest the folder's root (its main package or crate first). Null when there is none within
 * the first files; the first scoring then builds as before.
 */
export async function warmFocal(root: string, language: LanguageId, settings: Pick<EngineSettings, 'minLines' | 'maxLines'>): Promise<Focal | null> {
  const adapter = adapterFor(language);
  const filters = { minLines: settings.minLines, maxLines: settings.maxLines };
  const queue = [''];
  let read = 0;
  while (queue.length && read < MAX_FILES) {
    const rel = queue.shift()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    } catch {
      continue;
    }
    for (const e of entries) {
      const relPath = rel ? `${rel}/${e.name}` : e.name;
      if (e.name.startsWith('.')) continue;
      if (e.isDirectory()) {
        if (!SKIPPED.has(e.name)) queue.push(relPath);
        continue;
      }
      if (!e.isFile() || !adapter.extensions.includes(path.extname(e.name)) || adapter.isTestFile(relPath)) continue;
      const abs = path.join(root, relPath);
      if (fs.statSync(abs).size > MAX_FILE_BYTES) continue;
      if (++read > MAX_FILES) break;
      const text = fs.readFileSync(abs, 'utf8');
      const f = (await classifyDocument(relPath, text, filters, root)).find((x) => x.untestable === null);
      if (!f) continue;
      const task = await taskForDocumentFunction(root, relPath, text, f.startLine, filters);
      if (task) return { uri: URI.file(abs).toString(), root, relPath, adapter, task };
    }
  }
  return null;
}

/**
 * The background warm-up (issue 30): for each workspace folder and each language whose manifest is at
 * its root, the environment of a function near the root is prepared as a scoring's first step does
 * (prepareFocal): dependencies, the first build, kept per key. Progress goes to the extension's status
 * bar (WARM_PROGRESS); the request's cancellation stops it, and what was built is kept.
 */
export function registerWarmUp(state: ServerState): void {
  onClientRequest(state.connection, WARM_WORKSPACE, async (params, token): Promise<WarmWorkspaceResult> => {
    const controller = new AbortController();
    token.onCancellationRequested(() => controller.abort(new Error('cancelled')));
    const languages: WarmLanguageResult[] = [];
    for (const folderUri of state.workspaceFolders) {
      const folder = URI.parse(folderUri).fsPath;
      for (const language of repositoryLanguages(folder)) {
        controller.signal.throwIfAborted();
        const started = Date.now();
        const displayName = adapterFor(language).displayName;
        const focal = await warmFocal(folder, language, params.settings);
        if (!focal) {
          languages.push({ folder, language, displayName, state: 'no-function', durationMs: Date.now() - started });
          continue;
        }
        const notify = (b: BuildProgress): void =>
          void state.connection.sendNotification(WARM_PROGRESS, { folder, language, displayName, ...b, elapsedMs: Date.now() - started }).catch(() => undefined);
        notify({ built: 0, unit: null, lastLine: '' });
        // prepareFocal passes the progress on at most once a second.
        const { verdict, built } = await prepareFocal(state, focal, params.settings, controller.signal, { onProgress: notify });
        const durationMs = Date.now() - started;
        state.connection.console.info(`warm-up of ${displayName} in ${folder}: ${verdict ? `${verdict.cause}` : built ? 'built' : 'already built'} (${durationMs} ms)`);
        languages.push(verdict ? { folder, language, displayName, state: 'environment', durationMs, environment: verdict } : { folder, language, displayName, state: 'ready', built, durationMs });
      }
    }
    return { languages };
  });
}
