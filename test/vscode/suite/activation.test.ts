import * as assert from 'node:assert';
import * as vscode from 'vscode';
import { EXTENSION_ID, openInEditor, waitFor } from './helpers';

describe('activation', () => {
  it('loads the extension inactive and activates it when a Go file opens', async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is loaded from the development folder`);
    // Its activation events are languages only, so nothing may have woken it before a file opens.
    assert.strictEqual(extension.isActive, false, 'active before any file of its languages was opened');

    const editor = await openInEditor('item.go');
    assert.strictEqual(editor.document.languageId, 'go');
    await waitFor('the extension to activate', 30_000, () => (extension.isActive ? true : undefined));
  });
});
