/**
 * The first run: the walkthrough on the first activation, the "no model is set" notice at a
 * workspace's first baseline scoring, and "XRepoTest: Choose a model…" (a provider with its
 * description, then the model, written to the user's settings). The decisions are in first-run-model.ts.
 */
import * as vscode from 'vscode';
import type { ScoreFunctionResult } from '../shared/scoring-protocol';
import { PROVIDER_SETTINGS } from '../shared/protocol';
import { noChatModelMessage } from './chat-model';
import type { Engine } from './engine';
import {
  BASELINE_NOTICE,
  BASELINE_NOTICE_KEY,
  initialModel,
  modelPlan,
  NOTICE_ACTIONS,
  noticeCommand,
  shouldOpenWalkthrough,
  shouldReopenWalkthrough,
  shouldShowBaselineNotice,
  WALKTHROUGH_ID,
  WALKTHROUGH_SEEN_KEY,
  WALKTHROUGH_WATCH_MS,
} from './first-run-model';
import { onDidScoreFunction, onWillScoreFunction } from './scoring';
import { choiceDescription, settingChoices } from './setting-choices';
import { API_KEY_SECRETS, engineSettings } from './settings';

/** What the editor tests read: the flags, and each notice as it was shown. */
export interface FirstRunApi {
  walkthroughSeen(): boolean;
  /** Whether this activation opened the walkthrough (the first one, where the editor opens walkthroughs on install). */
  walkthroughOpenedAtActivation: boolean;
  baselineNoticeShown(): boolean;
  /** Forget the notice for this workspace (tests, and a user who wants it back). */
  resetBaselineNotice(): Thenable<void>;
  /** Every baseline notice shown this session: its text and its actions. */
  notices: { message: string; actions: string[] }[];
  /** What an answer to the notice does (the notification's buttons call this). */
  answerBaselineNotice(answer: string | undefined): Promise<unknown>;
}

export function registerFirstRun({ context, log }: Engine): FirstRunApi {
  const notices: FirstRunApi['notices'] = [];

  // The walkthrough, once per machine: the flag is set whether or not the editor opens walkthroughs itself.
  const seen = context.globalState.get<boolean>(WALKTHROUGH_SEEN_KEY);
  const openOnInstall = vscode.workspace.getConfiguration('workbench.welcomePage').get<boolean>('walkthroughs.openOnInstall');
  const openWalkthrough = shouldOpenWalkthrough({ seen, openOnInstall });
  log.info(`walkthrough: ${openWalkthrough ? 'first activation, opening it' : seen ? 'offered before' : 'the editor does not open walkthroughs on install'}`);
  if (openWalkthrough) openWalkthroughOverStartPage(context, log);
  if (seen !== true) void context.globalState.update(WALKTHROUGH_SEEN_KEY, true);

  const answerBaselineNotice = async (answer: string | undefined): Promise<unknown> => {
    const command = noticeCommand(answer);
    if (answer === NOTICE_ACTIONS.keep) log.info('keeping the offline baseline (smoke tests); "XRepoTest: Choose a model…" changes it');
    return command ? vscode.commands.executeCommand(command) : undefined;
  };

  const noticeOnce = (result: Pick<ScoreFunctionResult, 'provider'>): void => {
    if (!shouldShowBaselineNotice({ provider: result.provider, shownInWorkspace: context.workspaceState.get<boolean>(BASELINE_NOTICE_KEY) })) return;
    void context.workspaceState.update(BASELINE_NOTICE_KEY, true);
    const actions = [NOTICE_ACTIONS.choose, NOTICE_ACTIONS.key, NOTICE_ACTIONS.keep];
    notices.push({ message: BASELINE_NOTICE, actions });
    void vscode.window.showInformationMessage(`XRepoTest: ${BASELINE_NOTICE}`, ...actions).then(answerBaselineNotice);
  };

  context.subscriptions.push(
    // At the first click, not after the first scoring's wait: the user learns before waiting what a baseline test is.
    onWillScoreFunction.event(noticeOnce),
    onDidScoreFunction.event(noticeOnce),
    vscode.commands.registerCommand('xrepotest.chooseModel', () => chooseModel(context, log)),
  );

  return {
    walkthroughOpenedAtActivation: openWalkthrough,
    walkthroughSeen: () => context.globalState.get<boolean>(WALKTHROUGH_SEEN_KEY) === true,
    baselineNoticeShown: () => context.workspaceState.get<boolean>(BASELINE_NOTICE_KEY) === true,
    resetBaselineNotice: () => context.workspaceState.update(BASELINE_NOTICE_KEY, undefined),
    notices,
    answerBaselineNotice,
  };
}

/**
 * vscode-lm: one of the editor's chat models, as `vendor/family` (what xrepotest.model selects by),
 * or any (the first offered). None offered: said, and "any" is kept so a model installed later is used.
 */
async function pickChatModel(current: string): Promise<string | undefined> {
  const models = vscode.lm?.selectChatModels ? await vscode.lm.selectChatModels() : [];
  if (!models.length) void vscode.window.showWarningMessage(`XRepoTest: ${noChatModelMessage('', [])}`);
  const items = [
    { label: 'Any', description: 'the first chat model the editor offers', value: '' },
    ...models.map((m) => ({ label: `${m.vendor}/${m.family}`, description: m.name, detail: `id ${m.id}, up to ${m.maxInputTokens} input tokens`, value: `${m.vendor}/${m.family}` })),
  ];
  const picked = await vscode.window.showQuickPick(
    items.map((i) => ({ ...i, picked: i.value === current })),
    { title: 'XRepoTest: Choose a model (2/2): the editor\'s chat model', placeHolder: 'Models of your chat extensions (GitHub Copilot…); the editor asks once to allow XRepoTest to use them', ignoreFocusOut: true },
  );
  return picked?.value;
}

/**
 * A provider (each with its description), then what it needs: a model name, an OpenAI-compatible
 * server's URL, an API key when none is stored. Written to the user's settings; returns the provider
 * chosen, or undefined when the user pressed Escape.
 */
async function chooseModel(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): Promise<string | undefined> {
  const current = engineSettings();
  const picked = await vscode.window.showQuickPick(
    settingChoices(context.extension.packageJSON, 'xrepotest.provider', PROVIDER_SETTINGS, current.provider).map((c) => ({ label: c.label, description: choiceDescription(c) })),
    { title: 'XRepoTest: Choose a model (1/2): where tests come from', placeHolder: 'A model API, an OpenAI-compatible server, or the offline baseline', ignoreFocusOut: true },
  );
  if (!picked) return undefined;
  const provider = picked.label;
  const plan = modelPlan(provider);
  const config = vscode.workspace.getConfiguration('xrepotest');
  let model: string | undefined;
  if (plan.askModel) {
    model = await vscode.window.showInputBox({
      title: 'XRepoTest: Choose a model (2/2): the model',
      prompt: `The ${provider} model's name${plan.suggestedModel ? ` (for example ${plan.suggestedModel})` : ''}`,
      value: initialModel(plan, current, provider),
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() ? undefined : 'a model name, as the provider spells it'),
    });
    if (model === undefined) return undefined;
  }
  if (plan.pickChatModel) {
    model = await pickChatModel(current.provider === provider ? current.model : '');
    if (model === undefined) return undefined;
  }
  let baseUrl: string | undefined;
  if (plan.askBaseUrl) {
    baseUrl = await vscode.window.showInputBox({
      title: 'XRepoTest: Choose a model: the server',
      prompt: 'The server\'s OpenAI-compatible API address (Ollama: http://127.0.0.1:11434/v1)',
      value: current.baseUrl || 'http://127.0.0.1:11434/v1',
      ignoreFocusOut: true,
      validateInput: (v) => (/^https?:\/\/\S+$/.test(v.trim()) ? undefined : 'an http:// or https:// address'),
    });
    if (baseUrl === undefined) return undefined;
  }
  await config.update('provider', provider, vscode.ConfigurationTarget.Global);
  if (model !== undefined) await config.update('model', model.trim(), vscode.ConfigurationTarget.Global);
  if (baseUrl !== undefined) await config.update('baseUrl', baseUrl.trim(), vscode.ConfigurationTarget.Global);
  log.info(`provider set to ${provider}${model ? `, model ${model.trim()}` : ''}`);
  if (provider === 'replay' && !config.get<string>('replayFile')) void vscode.commands.executeCommand('workbench.action.openSettings', 'xrepotest.replayFile');
  const secret = API_KEY_SECRETS[provider];
  if (plan.needsKey && secret && !(await context.secrets.get(secret))) {
    const set = await vscode.window.showInformationMessage(`XRepoTest: ${provider} needs an API key (kept in the editor's secret storage).`, 'Set an API key');
    if (set) await vscode.commands.executeCommand('xrepotest.setApiKey', provider);
  }
  return provider;
}

/**
 * Open the walkthrough, and put it in place of the editor's own start walkthrough when that one holds
 * the Welcome editor during the first seconds (code-server shows "Setup VS Code Web" with a step
 * chosen, and while it does `openWalkthrough` keeps it: a new user saw only that one).
 */
function openWalkthroughOverStartPage(context: vscode.ExtensionContext, log: Engine['log']): void {
  const open = (): void => {
    void vscode.commands.executeCommand('workbench.action.openWalkthrough', `${context.extension.id}#${WALKTHROUGH_ID}`, false).then(undefined, (e: Error) => log.warn(`the walkthrough did not open: ${e.message}`));
  };
  const pkg = context.extension.packageJSON as { displayName?: string; contributes?: { walkthroughs?: { id: string; title: string }[] } };
  const ourNames = [pkg.displayName, pkg.contributes?.walkthroughs?.find((w) => w.id === WALKTHROUGH_ID)?.title].filter((n): n is string => !!n);
  let reopened = 0;
  const check = (): void => {
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    if (!tab || !shouldReopenWalkthrough({ activeTabLabel: tab.label, ourNames, reopened })) return;
    reopened += 1;
    log.info(`walkthrough: "${tab.label}" opened over it; opening it again`);
    // The command does nothing while a Welcome editor with a chosen walkthrough step is active (it keeps
    // that step): the start page is closed first, then ours opens in its place.
    void vscode.window.tabGroups.close(tab, true).then(open, (e: Error) => log.warn(`the start page did not close: ${e.message}`));
  };
  const watch = vscode.window.tabGroups.onDidChangeTabs(check);
  const stop = setTimeout(() => watch.dispose(), WALKTHROUGH_WATCH_MS);
  context.subscriptions.push(watch, { dispose: () => clearTimeout(stop) });
  open();
  // The start page may already be there (opened before the trust that activated us): look once it settled.
  setTimeout(check, 1500);
}
