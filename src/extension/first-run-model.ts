/**
 * The first run's decisions, with no `vscode` import (unit-tested): when the walkthrough opens, when
 * the "no model is set" notice shows, and what choosing a model asks for and writes.
 */

/** globalState: the walkthrough was offered once (on this machine's first activation). */
export const WALKTHROUGH_SEEN_KEY = 'xrepotest.firstRun.walkthroughSeen';
/** workspaceState: the baseline notice was shown in this workspace. */
export const BASELINE_NOTICE_KEY = 'xrepotest.firstRun.baselineNoticeShown';
/** `contributes.walkthroughs[].id` in package.json. */
export const WALKTHROUGH_ID = 'xrepotest.gettingStarted';

/**
 * Open the walkthrough on the first activation only, and only where the editor opens walkthroughs of
 * newly installed extensions (`workbench.welcomePage.walkthroughs.openOnInstall`, true by default).
 */
export function shouldOpenWalkthrough(state: { seen: boolean | undefined; openOnInstall: boolean | undefined }): boolean {
  return state.seen !== true && state.openOnInstall !== false;
}

/** How long after activation the walkthrough is watched for an editor's own start page opening over it. */
export const WALKTHROUGH_WATCH_MS = 15_000;
/** At most this many re-openings (a user who goes back to the other walkthrough is not fought). */
export const WALKTHROUGH_MAX_REOPEN = 2;

/**
 * Whether to open ours again: an editor's own start walkthrough ("Walkthrough: Setup VS Code Web" in
 * code-server and VS Code Web) can open after an extension activated on a just-trusted workspace, in
 * the one Welcome editor, replacing ours. Only such a start page is replaced, never a file or another
 * editor the user opened, and only a bounded number of times; in a locale whose labels differ, nothing
 * is re-opened (as before this rule).
 */
export function shouldReopenWalkthrough(state: { activeTabLabel: string | undefined; ourNames: string[]; reopened: number }): boolean {
  const label = state.activeTabLabel ?? '';
  // The Welcome editor names an extension's walkthrough by the extension ("Walkthrough: XRepoTest").
  if (state.reopened >= WALKTHROUGH_MAX_REOPEN || state.ourNames.some((name) => label === `Walkthrough: ${name}`)) return false;
  return /^Walkthrough: /.test(label) || label === 'Welcome';
}

export const BASELINE_NOTICE = 'No model is set: XRepoTest writes offline smoke tests (no assertions). Choose a model for tests that check results.';
export const NOTICE_ACTIONS = { choose: 'Choose a model', key: 'Set an API key', keep: 'Keep the offline tests' } as const;

/** The notice shows at the first baseline scoring of a workspace, never again there. */
export function shouldShowBaselineNotice(state: { provider: string; shownInWorkspace: boolean | undefined }): boolean {
  return state.provider === 'baseline' && state.shownInWorkspace !== true;
}

/** What a notice answer does: a command to run, or nothing (kept offline, or dismissed). */
export function noticeCommand(answer: string | undefined): 'xrepotest.chooseModel' | 'xrepotest.setApiKey' | undefined {
  if (answer === NOTICE_ACTIONS.choose) return 'xrepotest.chooseModel';
  if (answer === NOTICE_ACTIONS.key) return 'xrepotest.setApiKey';
  return undefined;
}

/** What "Choose a model" asks after the provider, and what it writes. */
export interface ModelPlan {
  /** Ask for a model name (with this suggestion when none is set). */
  askModel: boolean;
  /** vscode-lm: pick one of the editor's chat models (vscode.lm.selectChatModels) instead of typing a name. */
  pickChatModel: boolean;
  suggestedModel: string;
  /** Ask for the server's base URL (an OpenAI-compatible server has no default). */
  askBaseUrl: boolean;
  /** Offer to store an API key when none is stored. */
  needsKey: boolean;
}

const SUGGESTED_MODEL: Record<string, string> = { anthropic: 'claude-sonnet-4-5', openai: 'gpt-5.2', 'openai-compatible': '' };

export function modelPlan(provider: string): ModelPlan {
  const model = provider !== 'baseline' && provider !== 'replay' && provider !== 'vscode-lm';
  return {
    askModel: model,
    pickChatModel: provider === 'vscode-lm',
    suggestedModel: SUGGESTED_MODEL[provider] ?? '',
    askBaseUrl: provider === 'openai-compatible',
    needsKey: provider === 'anthropic' || provider === 'openai',
  };
}

/** The model input's starting value: the model set now unless it was set for another provider. */
export function initialModel(plan: ModelPlan, current: { provider: string; model: string }, chosen: string): string {
  return current.model && current.provider === chosen ? current.model : plan.suggestedModel || current.model;
}
