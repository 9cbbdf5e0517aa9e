import * as vscode from 'vscode';
import {
  FOCAL_FUNCTION_AT,
  SCORE_FUNCTION,
  type FocalFunctionAtResult,
  type ScoreFunctionResult,
} from '../shared/scoring-protocol';
import { wasCancelled, type Engine } from './engine';
import { editorLanguages, oneOfNames } from './languages';
import { requestSettings } from './settings';
import { requireTrust } from './trust';

/** Every score the command produces (the Testing view records each as a candidate with its run). */
export const onDidScoreFunction = new vscode.EventEmitter<ScoreFunctionResult>();

/**
 * "Generate scored tests": from a code lens (uri and start line given), or from the palette and the
 * editor's context menu (the function around the cursor). The server reports progress (cancellable)
 * and refreshes the lenses with the score.
 */
export function registerScoring({ request, log, context }: Engine): void {
  const scoreFunction = async (uri: string, startLine: number): Promise<ScoreFunctionResult | undefined> => {
    try {
      const result = await request(SCORE_FUNCTION, { uri, startLine, ...(await requestSettings(context.secrets)) });
      log.info(`${result.functionName}: ${result.summary}${result.reason ? ` — ${result.reason}` : ''}`);
      onDidScoreFunction.fire(result);
      return result;
    } catch (e) {
      const message = (e as Error).message;
      if (wasCancelled(e)) {
        log.info('scoring cancelled: nothing was scored');
        return undefined;
      }
      log.error(`scoring failed: ${message}`);
      void vscode.window.showErrorMessage(`XRepoTest: ${message}`);
      return undefined;
    }
  };

  context.subscriptions.push(
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
        void vscode.window.showWarningMessage(`XRepoTest: no focal function here: ${at.why}.`);
        return undefined;
      }
      return scoreFunction(editor.document.uri.toString(), at.startLine);
    }),
  );
}
