import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Engine } from '../../../src/extension/engine';
import {
  BRIDGE_PROBE,
  LSP_CONTEXT_FOR,
  type BridgeProbeParams,
  type LspContextForParams,
} from '../../../src/shared/bridge-protocol';
import { DEFAULT_ENGINE_SETTINGS, type EngineSettings } from '../../../src/shared/protocol';
import type { GoplsClientApi } from '../gopls-client/extension';
import { EXTENSION_ID, openInEditor, REPO_ROOT, screenshot, skipBecause, waitFor, workspaceRoot } from './helpers';

const GOPLS_CLIENT_ID = 'xrepotest-test.gopls-client';


function settings(overrides: Partial<EngineSettings>): { settings: EngineSettings } {
  return { settings: { ...DEFAULT_ENGINE_SETTINGS, ...overrides } };
}

async function engine(): Promise<Engine> {
  const ext = vscode.extensions.getExtension<Engine>(EXTENSION_ID);
  assert.ok(ext, `${EXTENSION_ID} is loaded`);
  return ext.activate();
}

/** 0-based line and column of the first `needle` in a workspace file. */
function positionOf(relPath: string, needle: string): { line: number; character: number } {
  const lines = fs.readFileSync(path.join(workspaceRoot(), relPath), 'utf8').split('\n');
  const line = lines.findIndex((l) => l.includes(needle));
  assert.ok(line >= 0, `${needle} is in ${relPath}`);
  return { line, character: lines[line].indexOf(needle) };
}

describe("the bridge to the editor's language servers", () => {
  describe('with gopls in the editor (the test extension gopls-client)', () => {
    before(async function () {
      this.timeout(120_000);
      const gopls = vscode.extensions.getExtension<GoplsClientApi>(GOPLS_CLIENT_ID);
      if (!gopls) skipBecause(this, `the test extension ${GOPLS_CLIENT_ID} is not installed (the runner says why at its start)`);
      const editor = await openInEditor('item.go');
      const api = await gopls.activate();
      try {
        await api.ready;
      } catch (e) {
        skipBecause(this, `gopls did not start in the editor: ${(e as Error).message}`);
      }
      // gopls answers the outline once it has loaded the package.
      await waitFor('gopls to outline item.go', 90_000, async () => {
        const symbols = await vscode.commands.executeCommand<vscode.DocumentSymbol[]>('vscode.executeDocumentSymbolProvider', editor.document.uri);
        return symbols && symbols.length > 0 ? true : undefined;
      });
    });

    it('returns definitions from gopls in the editor', async function () {
      this.timeout(60_000);
      const { request } = await engine();
      const uri = vscode.Uri.file(path.join(workspaceRoot(), 'item.go')).toString();
      // `Item` in `func (it Item) Status(…)`: the receiver's type, declared in inventory.go.
      const at = positionOf('item.go', 'func (it Item) Status');
      const position = { line: at.line, character: at.character + 'func (it '.length };
      const params: BridgeProbeParams = { uri, position, method: 'definition', ...settings({ lspSource: 'editor' }) };
      const result = await request(BRIDGE_PROBE, params);
      assert.strictEqual(result.source, 'editor');
      assert.strictEqual(result.note, null);
      const declared = positionOf('inventory.go', 'type Item struct');
      assert.deepStrictEqual(
        result.locations.map((l) => ({ file: l.file, line: l.range.start.line })),
        [{ file: path.join(workspaceRoot(), 'inventory.go'), line: declared.line }],
        JSON.stringify(result.locations),
      );
      const hover = await request(BRIDGE_PROBE, { ...params, method: 'hover' });
      assert.match(hover.hover ?? '', /type Item struct/, 'gopls describes the type on hover');
    });

    it("builds Status's LSP context through the editor with lsp.source auto", async function () {
      this.timeout(120_000);
      const { request } = await engine();
      const uri = vscode.Uri.file(path.join(workspaceRoot(), 'item.go')).toString();
      const startLine = positionOf('item.go', 'func (it Item) Status').line + 1;
      const params: LspContextForParams = { uri, startLine, ...settings({ lspSource: 'auto', mode: 'lsp' }) };
      const result = await request(LSP_CONTEXT_FOR, params);
      assert.strictEqual(result.source, 'editor', 'the editor has a Go server: no fallback');
      assert.strictEqual(result.note, null);
      const args = result.context.argumentDefinitions;
      assert.ok(args.some((s) => /^\/\/ Item is one stock-keeping unit\.\ntype Item struct \{[\s\S]*\}$/.test(s)), `the receiver's type, whole:\n${args.join('\n---\n')}`);
      assert.ok(
        result.context.conditionReferences.some((s) => /func \(inv \*Inventory\) \w+\(/.test(s) && /\.Quantity/.test(s)),
        `a method using the fields in Status's conditions:\n${result.context.conditionReferences.join('\n---\n')}`,
      );
    });
  });

  describe('a language the editor has no server for (PHP)', () => {
    const project = 'textkit-php';
    let uri = '';
    let startLine = 0;

    before(async function () {
      this.timeout(60_000);
      // The workspace is a throwaway copy: a PHP project beside the Go one.
      fs.cpSync(path.join(REPO_ROOT, 'test', 'fixtures', project), path.join(workspaceRoot(), project), {
        recursive: true,
        filter: (src) => !/\/(vendor|\.phpunit\.cache)$/.test(src),
      });
      const expected = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'test', 'fixtures', 'expected', 'php.json'), 'utf8')) as {
        tasks: Array<{ function_name: string; file_path: string; start_line: number }>;
      };
      const slugify = expected.tasks.find((t) => t.function_name === 'slugify');
      assert.ok(slugify, 'slugify is a focal function of textkit-php');
      const editor = await openInEditor(slugify.file_path);
      uri = editor.document.uri.toString();
      startLine = slugify.start_line;
      const symbols = await vscode.commands.executeCommand<vscode.DocumentSymbol[]>('vscode.executeDocumentSymbolProvider', editor.document.uri);
      if (symbols && symbols.length > 0) skipBecause(this, 'this editor has a PHP language server: there is nothing to fall back from');
    });

    // The tests after these see the workspace and the workbench as the runner made them.
    after(async () => {
      await vscode.commands.executeCommand('notifications.clearAll');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      fs.rmSync(path.join(workspaceRoot(), project), { recursive: true, force: true });
    });

    it('falls back to the headless servers with lsp.source auto, and says so', async function () {
      this.timeout(240_000);
      const { request } = await engine();
      const params: LspContextForParams = { uri, startLine, ...settings({ lspSource: 'auto', mode: 'lsp' }) };
      const result = await request(LSP_CONTEXT_FOR, params);
      assert.strictEqual(result.source, 'headless');
      assert.ok(result.note, 'the fallback is reported');
      assert.match(result.note, /no PHP language server in the editor/);
      assert.match(result.note, /bmewburn\.vscode-intelephense-client/, 'the note names the extension to install');
      // The headless intelephense answered: slugify's private helper is among the callees.
      assert.ok(
        result.context.calleeDefinitions.some((s) => /private function transliterate\(/.test(s)),
        `callees from the headless server:\n${result.context.calleeDefinitions.join('\n---\n')}\nnotes: ${result.notes.join('; ')}`,
      );
      const receipt = await screenshot({ name: 'bridge-fallback-note', waitForText: 'no PHP language server in the editor' });
      assert.strictEqual(receipt.textFound, true, 'the workbench shows the note');
    });

    it('with lsp.source editor, says what to install instead of giving no context', async () => {
      const { request } = await engine();
      const params: LspContextForParams = { uri, startLine, ...settings({ lspSource: 'editor', mode: 'lsp' }) };
      await assert.rejects(request(LSP_CONTEXT_FOR, params), (e: Error) => {
        assert.match(e.message, /no PHP language server in the editor/);
        assert.match(e.message, /xrepotest\.lsp\.source/);
        return true;
      });
    });
  });
});
