import * as vscode from 'vscode';
import { trustRefusal } from './trust-model';

export const MANAGE_TRUST = 'Manage Workspace Trust';

/** For the extension's tests: code-server opens its workspace trusted, so an untrusted one is pretended. */
let pretended: boolean | undefined;

/** Sets (or with undefined, clears) the trust the checks see instead of the editor's. */
export function pretendWorkspaceTrust(trusted: boolean | undefined): void {
  pretended = trusted;
}

/** The workspace's trust as the checks see it. */
export function workspaceTrusted(): boolean {
  return pretended ?? vscode.workspace.isTrusted;
}

/**
 * The one check before work that builds or runs the workspace's code: true when trusted; otherwise
 * a warning that says what was refused and why, with "Manage Workspace Trust", and false.
 * `trusted` is injectable for tests.
 */
export function requireTrust(what: string, trusted: boolean = workspaceTrusted()): boolean {
  if (trusted) return true;
  void vscode.window.showWarningMessage(`XRepoTest: ${trustRefusal(what)}`, MANAGE_TRUST).then((action) => {
    if (action === MANAGE_TRUST) void vscode.commands.executeCommand('workbench.trust.manage');
  });
  return false;
}
