import * as vscode from 'vscode';
import type { EnvironmentVerdictResult } from '../shared/scoring-protocol';
import { lastTimeShort, lastTimeText, unitCount } from '../shared/build-estimate';
import { WARM_PROGRESS, WARM_WORKSPACE, type WarmProgressParams, type WarmWorkspaceResult } from '../shared/warm-protocol';
import { wasCancelled, type Engine } from './engine';
import { requestSettings } from './settings';

/** A language's warm-up ended with a verdict (or none): the environment's status item agrees with it. */
export const onDidWarmLanguage = new vscode.EventEmitter<{ language: string; environment?: EnvironmentVerdictResult }>();

/** For the extension's own tests: what the warm-up item says, and the warm-up's answer. */
export interface WarmUpApi {
  status(): { text: string; running: boolean };
  /** Starts a warm-up (or returns the one running); resolves with its answer, undefined when cancelled or not possible. */
  start(): Promise<WarmWorkspaceResult | undefined>;
  cancel(): void;
  /** The progress notifications seen, in order. */
  progress: WarmProgressParams[];
}

/**
 * `building inventory-go (Go): 37 packages compiled · last time 4 min`, from what the build printed and,
 * when this machine measured it before, the repository's last first build (its units in the hover: the
 * whole sentence was cut off at the status bar's edge at 1400 px).
 */
export function warmProgressText(p: Pick<WarmProgressParams, 'folder' | 'displayName' | 'built' | 'unit' | 'last'>): string {
  const name = p.folder.split(/[\\/]/).filter(Boolean).pop() ?? p.folder;
  const count = p.built && p.unit ? `: ${unitCount(p.built, p.unit)} compiled` : '';
  return `building ${name} (${p.displayName})${count}${p.last ? ` · ${lastTimeShort(p.last)}` : ''}`;
}

/**
 * The background warm-up (issue 30): when a trusted workspace opens, the engine builds what scoring
 * needs for each language whose manifest is at a folder's root, so the first "Generate" finds it
 * done. Its progress is a status bar item (the build's own count: crates, packages) whose click
 * cancels it; what was built is kept and the next start continues it. "xrepotest.warmUp.onOpen" turns
 * the start at opening off; "XRepoTest: Prepare this workspace for scoring" starts it by hand.
 */
export function registerWarmUp({ request, client, log, context }: Engine): WarmUpApi {
  const item = vscode.window.createStatusBarItem('xrepotest.warmUp', vscode.StatusBarAlignment.Left, 9);
  item.name = 'XRepoTest: warm-up';
  context.subscriptions.push(item);
  const progress: WarmProgressParams[] = [];
  let running: { cts: vscode.CancellationTokenSource; done: Promise<WarmWorkspaceResult | undefined> } | null = null;
  let hideTimer: NodeJS.Timeout | undefined;

  const show = (text: string, tooltip: string, command: string): void => {
    if (hideTimer) clearTimeout(hideTimer);
    item.text = text;
    item.tooltip = tooltip;
    item.command = command;
    item.show();
  };

  client.onNotification(WARM_PROGRESS, (p: WarmProgressParams) => {
    progress.push(p);
    if (!running) return;
    show(`$(sync~spin) XRepoTest: ${warmProgressText(p)}`, `XRepoTest is building ${p.folder} for scoring (its first build; later scorings reuse it).${p.last ? `\n${lastTimeText(p.last, p.unit).replace(/^l/, 'L')} (measured on this machine).` : ''}${p.lastLine ? `\nLast line: ${p.lastLine}` : ''}\nClick to cancel: what was built is kept, and the next start continues it.`, 'xrepotest.cancelWarmUp');
  });

  const start = (): Promise<WarmWorkspaceResult | undefined> => {
    if (running) return running.done;
    if (!vscode.workspace.isTrusted || !vscode.workspace.workspaceFolders?.length) return Promise.resolve(undefined);
    const cts = new vscode.CancellationTokenSource();
    show('$(sync~spin) XRepoTest: preparing this workspace for scoring…', 'XRepoTest is checking and building what scoring needs. Click to cancel.', 'xrepotest.cancelWarmUp');
    const done = (async (): Promise<WarmWorkspaceResult | undefined> => {
      try {
        const result = await request(WARM_WORKSPACE, await requestSettings(context.secrets), cts.token);
        for (const l of result.languages) onDidWarmLanguage.fire({ language: l.language, environment: l.environment });
        const ready = result.languages.filter((l) => l.state === 'ready').map((l) => l.displayName);
        const blocked = result.languages.filter((l) => l.state === 'environment');
        log.info(`warm-up: ${result.languages.map((l) => `${l.displayName} ${l.state}${l.built ? ' (built)' : ''} in ${Math.round(l.durationMs / 1000)} s`).join(', ') || 'no language to prepare'}`);
        if (blocked.length) {
          show(`$(warning) XRepoTest: ${blocked.map((b) => b.displayName).join(', ')} not ready`, blocked.map((b) => `${b.displayName}: ${b.environment?.cause}. How to fix: ${b.environment?.fix}`).join('\n'), 'xrepotest.checkEnvironment');
        } else if (ready.length) {
          show(`$(check) XRepoTest: ready to score (${ready.join(', ')})`, 'The first build is done and kept: scoring starts from it.', 'xrepotest.checkEnvironment');
          hideTimer = setTimeout(() => item.hide(), 8000);
        } else item.hide();
        return result;
      } catch (e) {
        if (wasCancelled(e) || cts.token.isCancellationRequested) {
          log.info('warm-up cancelled: what was built is kept');
          show('$(debug-pause) XRepoTest: warm-up stopped', 'Stopped: what was built is kept. Click to continue it.', 'xrepotest.warmUp');
          return undefined;
        }
        const message = (e as Error).message;
        log.warn(`warm-up failed: ${message}`);
        item.hide();
        return undefined;
      } finally {
        running = null;
        cts.dispose();
      }
    })();
    running = { cts, done };
    return done;
  };

  context.subscriptions.push(
    vscode.commands.registerCommand('xrepotest.warmUp', () => start()),
    vscode.commands.registerCommand('xrepotest.cancelWarmUp', () => running?.cts.cancel()),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      if (vscode.workspace.getConfiguration('xrepotest').get<boolean>('warmUp.onOpen', true)) void start();
    }),
  );
  if (vscode.workspace.getConfiguration('xrepotest').get<boolean>('warmUp.onOpen', true)) void start();

  return {
    status: () => ({ text: item.text, running: running !== null }),
    start,
    cancel: () => running?.cts.cancel(),
    progress,
  };
}
