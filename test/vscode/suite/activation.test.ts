import * as assert from 'node:assert';
import * as vscode from 'vscode';
import { EXTENSION_ID, waitFor } from './helpers';

describe('activation', () => {
  it('activates on a workspace holding go.mod before any file is opened (issue 30: the status bar and the warm-up from the start)', async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is loaded from the development folder`);
    assert.strictEqual(vscode.window.visibleTextEditors.filter((e) => e.document.languageId === 'go').length, 0, 'no Go file is open yet');
    // workspaceContains:go.mod: the fixture's root holds one.
    await waitFor('the extension to activate', 30_000, () => (extension.isActive ? true : undefined));
    assert.strictEqual(vscode.window.visibleTextEditors.filter((e) => e.document.languageId === 'go').length, 0, 'activated with no Go file open');
  });
});
