import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Connection } from 'vscode-languageserver/node';
import { taskForDocumentFunction } from '../../src/engine/extract/document';
import { EDITOR_DEFINITION, EDITOR_DOCUMENT_SYMBOL, EDITOR_FALLBACK, type EditorFallbackParams } from '../../src/shared/bridge-protocol';
import { LspBridge } from '../../src/server/bridge';
import { editorLanguageExtension, editorMissingMessage, fallbackNote, focalNamePosition, headlessServerName } from '../../src/server/bridge-fallback';
import { fixture } from '../helpers/paths';

const range = (l1: number, c1: number, l2: number, c2: number) => ({ start: { line: l1, character: c1 }, end: { line: l2, character: c2 } });

describe('bridge: the fallback to headless servers', () => {
  it('asks about the focal function at its name', async () => {
    const text = fs.readFileSync(path.join(fixture('inventory-go'), 'item.go'), 'utf8');
    const task = await taskForDocumentFunction(fixture('inventory-go'), 'item.go', text, 7);
    assert.ok(task, 'Status is a focal function on line 7');
    const at = focalNamePosition(task);
    assert.equal(at.line, 6);
    assert.equal(text.split('\n')[6].slice(at.character, at.character + 'Status'.length), 'Status');
    // Not the receiver's type even when it shares the name's letters.
    const shadow = { ...task, function_name: 'It', file_content: text.replace('func (it Item) Status', 'func (it Item) It') };
    assert.equal(focalNamePosition(shadow).character, 'func (it Item) '.length);
  });

  it('names, for each language, the extension to install and the headless server used instead', () => {
    for (const language of ['go', 'rust', 'php', 'ruby', 'julia'] as const) {
      const note = fallbackNote(language);
      assert.ok(note.includes(editorLanguageExtension(language).id), note);
      assert.ok(note.includes(headlessServerName(language)), note);
      const missing = editorMissingMessage(language);
      assert.ok(missing.includes(editorLanguageExtension(language).id) && missing.includes('xrepotest.lsp.source'), missing);
    }
    assert.match(fallbackNote('php'), /no PHP language server/);
  });

  /** A connection whose client has symbols (or not) for every file, recording what the user is shown. */
  function fakeConnection(editorHasServer: boolean) {
    const shown: string[] = [];
    const logged: string[] = [];
    const asked: string[] = [];
    const connection = {
      // The typed messages of src/shared arrive here; the bridge names no method itself.
      sendRequest: async ({ method }: { method: string }) => {
        asked.push(method);
        if (method === EDITOR_DOCUMENT_SYMBOL.method) return editorHasServer ? [{ name: 'Status', kind: 6, range: range(6, 0, 28, 1), selectionRange: range(6, 15, 6, 21), children: [] }] : [];
        return [];
      },
      console: { info: (line: string) => logged.push(line) },
      sendNotification: async ({ method }: { method: string }, params: EditorFallbackParams) => {
        if (method === EDITOR_FALLBACK.method) shown.push(params.note);
      },
    } as unknown as Connection;
    return { connection, shown, logged, asked };
  }

  const file = path.resolve('/ws/src/Slugger.php');
  const at = { line: 3, character: 4 };

  it('auto: uses the editor when it has a server for the language', async () => {
    const { connection, shown } = fakeConnection(true);
    const bridge = new LspBridge(connection, { editorStartWaitMs: 0 });
    const choice = await bridge.choose('php', file, at, '/ws', 'auto');
    assert.equal(choice.source, 'editor');
    assert.equal(choice.note, null);
    assert.deepEqual(shown, []);
    await bridge.close();
  });

  it('auto: falls back to the headless servers when the editor has none, and says so once per language', async () => {
    const { connection, shown, logged, asked } = fakeConnection(false);
    const bridge = new LspBridge(connection, { editorStartWaitMs: 0 });
    const first = await bridge.choose('php', file, at, '/ws', 'auto');
    const second = await bridge.choose('php', file, at, '/ws', 'auto');
    assert.equal(first.source, 'headless');
    assert.equal(first.note, fallbackNote('php'));
    assert.equal(second.source, 'headless');
    assert.strictEqual(first.resolver, second.resolver, 'one headless resolver per workspace root');
    assert.deepEqual(shown, [fallbackNote('php')], 'the user is told once');
    assert.equal(logged.length, 2, 'each fallback is logged');
    assert.ok(asked.includes(EDITOR_DOCUMENT_SYMBOL.method) && asked.includes(EDITOR_DEFINITION.method), 'both an outline and a definition were asked before falling back');
    await bridge.close();
  });

  it('editor: says what to do when the editor has no server; headless: never asks the editor', async () => {
    const missing = fakeConnection(false);
    const bridge = new LspBridge(missing.connection, { editorStartWaitMs: 0 });
    await assert.rejects(bridge.choose('php', file, at, '/ws', 'editor'), { message: editorMissingMessage('php') });
    const headless = fakeConnection(true);
    const other = new LspBridge(headless.connection, { editorStartWaitMs: 0 });
    assert.equal((await other.choose('php', file, at, '/ws', 'headless')).source, 'headless');
    assert.deepEqual(headless.asked, []);
    await Promise.all([bridge.close(), other.close()]);
  });
});
