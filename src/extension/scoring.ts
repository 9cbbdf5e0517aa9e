import * as vscode from 'vscode';
import { ResponseError, State } from 'vscode-languageclient/node';
import {
  CANCEL_SCORING,
  CHANGED_FUNCTIONS,
  FOCAL_FUNCTION_AT,
  SCORE_FUNCTION,
  SCORING_BUSY_CODE,
  SCORING_PHASE,
  type ChangedFunctionsResult,
  type FocalFunctionAtResult,
  type ScoreFunctionResult,
  type ScoringPhaseParams,
} from '../shared/scoring-protocol';
import { wasCancelled, type Engine } from './engine';
import { editorLanguages, oneOfNames } from './languages';
import { requestSettings } from './settings';
import { requireTrust } from './trust';

/** Every score the command produces (the Testing view records each as a candidate with its run). */
export const onDidScoreFunction = new vscode.EventEmitter<ScoreFunctionResult>();
/** A scoring was asked for (before anything ran): what is said at the first click is said now, not after the first long wait. */
export const onWillScoreFunction = new vscode.EventEmitter<{ provider: string }>();

/** Whether a request was refused because the function is already being scored (its message says in which phase). */
export function isScoringBusy(e: unknown): boolean {
  return e instanceof ResponseError && e.code === SCORING_BUSY_CODE;
}

/** A scoring still going after this long gets a notification with its phase and Cancel (the lens shows it from the start). */
export const NOTIFY_AFTER_MS = 3_000;

function keyOf(uri: string, startLine: number): string {
  return `${uri}#${startLine}`;
}

/**
 * The scorings the server reports in flight (whoever started them: the lens, the palette, the
 * Testing view), each shown as a notification with progress and Cancel once it has run for
 * NOTIFY_AFTER_MS; Cancel asks the server to stop it, which ends its request as cancelled.
 */
function trackScorings({ client, request, log }: Engine): { latest(key: string): ScoringPhaseParams | undefined; running(): ScoringPhaseParams[]; cancel(uri: string, startLine: number): Promise<boolean> } {
  const phases = new Map<string, ScoringPhaseParams>();
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  const shown = new Map<string, { update(n: ScoringPhaseParams): void; end(): void }>();

  const cancel = async (uri: string, startLine: number): Promise<boolean> => {
    try {
      const r = await request(CANCEL_SCORING, { uri, startLine });
      if (r.cancelled) log.info(`${r.functionName}: cancelling the scoring`);
      return r.cancelled;
    } catch (e) {
      log.error(`cancelling the scoring failed: ${(e as Error).message}`);
      return false;
    }
  };

  const notify = (key: string): void => {
    timers.delete(key);
    const first = phases.get(key);
    if (!first) return;
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `XRepoTest: scoring ${first.functionName}`, cancellable: true },
      (progress, token) =>
        new Promise<void>((resolve) => {
          progress.report({ message: first.message });
          shown.set(key, {
            update: (n) => progress.report({ message: n.message }),
            end: () => {
              shown.delete(key);
              resolve();
            },
          });
          token.onCancellationRequested(() => void cancel(first.uri, first.startLine));
        }),
    );
  };

  const ended = (key: string): void => {
    phases.delete(key);
    clearTimeout(timers.get(key));
    timers.delete(key);
    shown.get(key)?.end();
  };
  // A server that stopped (crashed, restarted) sends no `done` for what it was scoring.
  client.onDidChangeState((e) => {
    if (e.newState !== State.Stopped) return;
    for (const key of [...phases.keys()]) ended(key);
    void vscode.commands.executeCommand('setContext', 'xrepotest.scoring', false);
  });

  client.onNotification(SCORING_PHASE, (n: ScoringPhaseParams) => {
    const key = keyOf(n.uri, n.startLine);
    if (n.done) {
      ended(key);
    } else {
      phases.set(key, n);
      shown.get(key)?.update(n);
      if (!timers.has(key) && !shown.has(key)) timers.set(key, setTimeout(() => notify(key), NOTIFY_AFTER_MS));
    }
    void vscode.commands.executeCommand('setContext', 'xrepotest.scoring', phases.size > 0);
  });

  return { latest: (key) => phases.get(key), running: () => [...phases.values()], cancel };
}

/**
 * "Generate scored tests": from a code lens (uri and start line given), or from the palette and the
 * editor's context menu (the function around the cursor). The server reports progress (cancellable)
 * and refreshes the lenses with the score.
 */
export function registerScoring(engine: Engine): void {
  const { request, log, context } = engine;
  const scorings = trackScorings(engine);
  /** Functions whose scoring this window asked for and has no answer to yet: a second click is not a second scoring. */
  const pending = new Set<string>();

  const scoreFunction = async (uri: string, startLine: number): Promise<ScoreFunctionResult | undefined> => {
    const key = keyOf(uri, startLine);
    if (pending.has(key)) {
      const now = scorings.latest(key);
      void vscode.window.showInformationMessage(`XRepoTest: already scoring ${now ? `${now.functionName}: ${now.message}` : 'this function'}`);
      return undefined;
    }
    pending.add(key);
    try {
      const asked = await requestSettings(context.secrets);
      onWillScoreFunction.fire({ provider: asked.settings.provider });
      const result = await request(SCORE_FUNCTION, { uri, startLine, ...asked });
      log.info(`${result.functionName}: ${result.summary}${result.reason ? ` — ${result.reason}` : ''}`);
      onDidScoreFunction.fire(result);
      // The score is shown; the mutants, where the user wants them with every scoring, fill in after it.
      if (result.passed && !result.mutation && result.coveredLines.length && asked.settings.mutation) {
        void vscode.commands.executeCommand('xrepotest.checkWithMutants', { uri, startLine });
      }
      return result;
    } catch (e) {
      const message = (e as Error).message;
      if (wasCancelled(e)) {
        log.info('scoring cancelled: nothing was scored');
        return undefined;
      }
      // Started elsewhere (the Testing view, another window's request): said, not an error.
      if (isScoringBusy(e)) {
        log.info(message);
        void vscode.window.showInformationMessage(`XRepoTest: ${message}`);
        return undefined;
      }
      log.error(`scoring failed: ${message}`);
      void vscode.window.showErrorMessage(`XRepoTest: ${message}`);
      return undefined;
    } finally {
      pending.delete(key);
    }
  };

  /**
   * "Generate scored tests for my changes": every function a test can call whose lines changed since a
   * git ref, scored one after the other under one cancellable notification.
   */
  const scoreChanges = async (folderArg?: string, refArg?: string): Promise<ScoreFunctionResult[] | undefined> => {
    const folders = vscode.workspace.workspaceFolders ?? [];
    const folder = folderArg
      ? folders.find((f) => f.uri.toString() === folderArg)
      : folders.length === 1
        ? folders[0]
        : await vscode.window.showWorkspaceFolderPick({ placeHolder: 'Generate scored tests for the changes of which folder?' });
    if (!folder) {
      if (!folders.length) void vscode.window.showWarningMessage('XRepoTest: open a folder with a git repository first.');
      return undefined;
    }
    const ref =
      refArg ??
      (await vscode.window.showInputBox({
        title: 'XRepoTest: tests for my changes',
        prompt: 'Changes since which git ref? HEAD: what is not committed yet; a branch (main), a tag or a commit: everything since it.',
        value: 'HEAD',
      }));
    if (!ref) return undefined;
    let changed: ChangedFunctionsResult;
    try {
      changed = await request(CHANGED_FUNCTIONS, { folder: folder.uri.toString(), ref, ...(await requestSettings(context.secrets)) });
    } catch (e) {
      const message = (e as Error).message.replace(/^Request \S+ failed with message: /, '');
      log.error(`finding the changed functions failed: ${message}`);
      void vscode.window.showErrorMessage(`XRepoTest: ${message}`);
      return undefined;
    }
    for (const s of changed.skipped) log.info(`changes since ${ref}: ${s.relPath} left out: ${s.why}`);
    if (!changed.functions.length) {
      void vscode.window.showInformationMessage(`XRepoTest: no function a test can call changed since ${ref} (${changed.commit.slice(0, 12)}) in ${folder.name}.`);
      return [];
    }
    log.info(`changes since ${ref} (${changed.commit.slice(0, 12)}): ${changed.functions.map((f) => `${f.relPath}:${f.startLine} ${f.name}`).join(', ')}`);
    const results: ScoreFunctionResult[] = [];
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `XRepoTest: tests for ${changed.functions.length} changed function(s)`, cancellable: true },
      async (progress, token) => {
        let current: { uri: string; startLine: number } | undefined;
        token.onCancellationRequested(() => {
          if (current) void scorings.cancel(current.uri, current.startLine);
        });
        for (const [i, f] of changed.functions.entries()) {
          if (token.isCancellationRequested) break;
          progress.report({ message: `${i + 1} of ${changed.functions.length}: ${f.name} (${f.relPath})`, increment: i === 0 ? 0 : 100 / changed.functions.length });
          // The server scores open documents: the file is opened (not shown) first.
          await vscode.workspace.openTextDocument(vscode.Uri.parse(f.uri));
          current = { uri: f.uri, startLine: f.startLine };
          const r = await scoreFunction(f.uri, f.startLine);
          current = undefined;
          if (r) results.push(r);
        }
      },
    );
    const passed = results.filter((r) => r.passed).length;
    void vscode.window.showInformationMessage(`XRepoTest: scored ${results.length} of ${changed.functions.length} changed function(s) since ${ref}: ${passed} with a passing test. The lenses and the Testing view show each score.`);
    return results;
  };

  context.subscriptions.push(
    vscode.commands.registerCommand('xrepotest.generateForChanges', async (folder?: string, ref?: string) => {
      if (!requireTrust('Generating tests')) return undefined;
      return scoreChanges(folder, ref);
    }),
    // The lens's Cancel (uri and start line given), or the palette's: the one scoring in flight, or a pick among them.
    vscode.commands.registerCommand('xrepotest.cancelScoring', async (uri?: string, startLine?: number): Promise<boolean> => {
      if (uri && startLine) return scorings.cancel(uri, startLine);
      const running = scorings.running();
      if (!running.length) {
        void vscode.window.showInformationMessage('XRepoTest: nothing is being scored.');
        return false;
      }
      const picked =
        running.length === 1
          ? running[0]
          : (await vscode.window.showQuickPick(running.map((r) => ({ label: r.functionName, description: r.message, r })), { placeHolder: 'The scoring to cancel' }))?.r;
      return picked ? scorings.cancel(picked.uri, picked.startLine) : false;
    }),
    vscode.commands.registerCommand('xrepotest.generateScoredTests', async (uri?: string, startLine?: number) => {
      if (!requireTrust('Generating tests')) return undefined;
      if (uri && startLine) return scoreFunction(uri, startLine);
      const editor = vscode.window.activeTextEditor;
      if (!editor) {
        void vscode.window.showWarningMessage(`XRepoTest: open a ${oneOfNames(editorLanguages(context.extension.packageJSON))} file and put the cursor in a function.`);
        return undefined;
      }
      let at: FocalFunctionAtResult;
      try {
        at = await request(FOCAL_FUNCTION_AT, { uri: editor.document.uri.toString(), line: editor.selection.active.line, ...(await requestSettings(context.secrets)) });
      } catch (e) {
        log.error(`finding the focal function failed: ${(e as Error).message}`);
        void vscode.window.showErrorMessage(`XRepoTest: ${(e as Error).message}`);
        return undefined;
      }
      if ('why' in at) {
        void vscode.window.showWarningMessage(`XRepoTest: ${at.why}.`);
        return undefined;
      }
      if (at.note) log.info(at.note);
      return scoreFunction(editor.document.uri.toString(), at.startLine);
    }),
  );
}
