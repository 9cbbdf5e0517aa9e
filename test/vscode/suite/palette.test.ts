import * as assert from 'node:assert';
import * as vscode from 'vscode';
import type { Engine } from '../../../src/extension/engine';
import { DEFAULT_ENGINE_SETTINGS, type EngineSettings } from '../../../src/shared/protocol';
import { FOCAL_FUNCTION_AT } from '../../../src/shared/scoring-protocol';
import { EXTENSION_ID, openInEditor } from './helpers';

interface Menu {
  command: string;
  when?: string;
}

/** Evaluates the subset of `when` syntax our menus use, for one file (VS Code does not expose its evaluator). */
function offeredFor(when: string, languageId: string, relPath: string): boolean {
  const context: Record<string, string> = { editorLangId: languageId, resourceFilename: relPath.split('/').pop()!, resourcePath: `/workspace/${relPath}` };
  return when.split('&&').every((clause) => {
    const m = /^\s*(!?)\(?(\w+) =~ \/(.+)\/\)?\s*$/.exec(clause);
    assert.ok(m, `a clause we can read: ${clause}`);
    const matches = new RegExp(m[3].replace(/\\\//g, '/')).test(context[m[2]]);
    return m[1] === '!' ? !matches : matches;
  });
}

describe('Generate scored tests from the palette and the context menu', () => {
  it('is offered in the five languages and never in test files', () => {
    const pkg = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { contributes: { menus: Record<string, Menu[]> } };
    for (const where of ['commandPalette', 'editor/context']) {
      const menu = pkg.contributes.menus[where].find((m) => m.command === 'xrepotest.generateScoredTests');
      assert.ok(menu?.when, `${where} has the command with a when clause`);
      for (const [lang, file] of [['go', 'item.go'], ['rust', 'src/shapes.rs'], ['php', 'src/Slug.php'], ['ruby', 'lib/shelf.rb'], ['julia', 'src/MiniStats.jl']]) {
        assert.strictEqual(offeredFor(menu.when, lang, file), true, `${where}: offered in ${file}`);
      }
      for (const [lang, file] of [['go', 'item_test.go'], ['rust', 'tests/shapes.rs'], ['php', 'tests/SlugTest.php'], ['ruby', 'spec/shelf_spec.rb'], ['julia', 'test/runtests.jl']]) {
        assert.strictEqual(offeredFor(menu.when, lang, file), false, `${where}: not offered in ${file}`);
      }
      assert.strictEqual(offeredFor(menu.when, 'python', 'x.py'), false, `${where}: not offered in Python`);
    }
  });

  it('scores the focal function around the cursor', async function () {
    this.timeout(180_000);
    const editor = await openInEditor('item.go');
    await vscode.extensions.getExtension(EXTENSION_ID)!.activate();
    editor.selection = new vscode.Selection(15, 4, 15, 4); // inside Status, in its second `if`
    const result = (await vscode.commands.executeCommand('xrepotest.generateScoredTests')) as { functionName: string; compiled: boolean } | undefined;
    assert.ok(result, 'the command scored a function');
    assert.strictEqual(result.functionName, 'Status');
    assert.strictEqual(result.compiled, true);
  });

  it('does nothing inside a test function, and says why', async () => {
    const editor = await openInEditor('inventory_test.go');
    editor.selection = new vscode.Selection(34, 2, 34, 2); // inside TestStatus
    const engine = vscode.extensions.getExtension(EXTENSION_ID)!.exports as Engine;
    const settings: EngineSettings = { ...DEFAULT_ENGINE_SETTINGS, minLines: 1, maxLines: 500 };
    const at = await engine.request(FOCAL_FUNCTION_AT, { uri: editor.document.uri.toString(), line: 34, settings });
    assert.match('why' in at ? at.why : '', /TestStatus is test code: /);
    const result = await vscode.commands.executeCommand('xrepotest.generateScoredTests');
    assert.strictEqual(result, undefined, 'no scoring started in a test file');
  });
});
