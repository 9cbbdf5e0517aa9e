import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TextDocuments } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { URI } from 'vscode-uri';
import { TOOL_IDS, TOOLS } from '../../src/engine/tools';
import { toolConfirmation, toolTrustRefusal } from '../../src/extension/lm-tools-model';
import { registerLmTools } from '../../src/server/lm-tools';
import { ServerState } from '../../src/server/state';
import { CALL_TOOL, EDITOR_TOOL_IDS, EDITOR_TOOLS, editorToolName, type CallToolParams, type CallToolResult } from '../../src/shared/lm-tools-protocol';
import { DEFAULT_ENGINE_SETTINGS } from '../../src/shared/protocol';
import { fixtureWorkspace } from '../helpers/tool-services';

const PACKAGE = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
  activationEvents: string[];
  contributes: { languageModelTools: Array<{ name: string; displayName: string; modelDescription: string; inputSchema: object; toolReferenceName?: string }> };
};

/** The editor's language-model tools (issue 18, part 2): package.json, the wire and the engine's registry agree; the server's handler. */
describe('editor language-model tools', () => {
  describe('declared once: package.json and the wire follow the engine registry', () => {
    it('package.json contributes every engine tool as xrepotest_<id>, with the definition\'s schema and description', () => {
      const contributed = PACKAGE.contributes.languageModelTools;
      assert.deepEqual(contributed.map((t) => t.name), TOOLS.map((t) => editorToolName(t.id)));
      for (const tool of TOOLS) {
        const c = contributed.find((t) => t.name === editorToolName(tool.id))!;
        assert.deepEqual(c.inputSchema, tool.inputSchema, `${c.name}: package.json's inputSchema differs from the engine's (src/engine/tools/${tool.id}); copy the definition's schema`);
        assert.equal(c.modelDescription, tool.description(editorToolName), `${c.name}: modelDescription differs from the definition's description`);
        assert.ok(c.displayName.includes(tool.title), `${c.name}: displayName should carry the title`);
        assert.ok(PACKAGE.activationEvents.includes(`onLanguageModelTool:${c.name}`), `${c.name}: no activation event`);
        // VS Code refuses a tool whose name is not /^[\w-]+$/ (its contribution handler).
        assert.match(c.name, /^[\w-]+$/);
      }
    });

    it('the wire lists the same tools with the same runsCode and callsModel as the engine', () => {
      assert.deepEqual([...EDITOR_TOOL_IDS], [...TOOL_IDS]);
      assert.deepEqual(
        EDITOR_TOOLS.map((t) => ({ ...t })),
        TOOLS.map((t) => ({ id: t.id, runsCode: t.runsCode, callsModel: t.callsModel })),
      );
    });
  });

  describe('what the user is asked', () => {
    const settings = { executor: 'docker' as const, testTimeoutSeconds: 120, provider: 'anthropic' as const, model: 'claude-x' };
    const info = (id: string) => EDITOR_TOOLS.find((t) => t.id === id)!;

    it('asks nothing for the tools that only read', () => {
      assert.equal(toolConfirmation(info('focalFunctions'), { file: 'a.go' }, settings), undefined);
      assert.equal(toolConfirmation(info('coverage'), { file: 'a.go', function: 'F' }, settings), undefined);
      assert.equal(toolTrustRefusal(info('focalFunctions')), undefined);
    });

    it('says what runs where before a test runs, and which model is asked before generating', () => {
      const score = toolConfirmation(info('scoreTest'), { file: 'item.go', function: 'Status', testCode: 'x' }, settings)!;
      assert.match(score.title, /Status \(item\.go\)/);
      assert.match(score.message, /disposable copy/);
      assert.match(score.message, /executor docker, at most 120 s/);
      assert.doesNotMatch(score.message, /model/);
      const gen = toolConfirmation(info('generateTests'), { file: 'item.go', function: 'Status' }, settings)!;
      assert.match(gen.message, /anthropic \(claude-x\)/);
      assert.match(gen.message, /cost money/);
    });

    it('refuses what runs code in an untrusted workspace with the run commands\' words', () => {
      assert.match(toolTrustRefusal(info('scoreTest'))!, /^XRepoTest: Scoring a test is disabled until you trust this workspace/);
      assert.match(toolTrustRefusal(info('runBenchmark'))!, /Benchmarking the workspace/);
    });
  });

  describe('the server runs callTool for CALL_TOOL', () => {
    let ws: ReturnType<typeof fixtureWorkspace>;
    let handler: (params: unknown, token: unknown) => Promise<CallToolResult>;
    let state: ServerState;
    const logged: string[] = [];
    const token = { isCancellationRequested: false, onCancellationRequested: () => ({ dispose() {} }) };
    const params = (tool: CallToolParams['tool'], input: Record<string, unknown>): CallToolParams => ({ tool, input, settings: DEFAULT_ENGINE_SETTINGS });

    before(() => {
      ws = fixtureWorkspace('inventory-go');
      const connection = {
        onRequest: (type: { method: string }, h: typeof handler) => {
          if (type.method === CALL_TOOL.method) handler = h;
          return { dispose() {} };
        },
        console: { info: (l: string) => void logged.push(l), error: (l: string) => void logged.push(l) },
      };
      state = new ServerState(connection as never, new TextDocuments(TextDocument));
      state.workspaceFolders = [URI.file(ws.root).toString()];
      registerLmTools(state);
    });
    after(() => ws.cleanup());

    it('lists a file\'s focal functions from the first workspace folder', async () => {
      const r = await handler(params('focalFunctions', { file: 'item.go' }), token);
      assert.equal(r.kind, 'ok', r.text);
      assert.match(r.text, /Status/);
    });

    it('reads the open document, not the disk: unsaved edits count', async () => {
      const uri = URI.file(path.join(fs.realpathSync(ws.root), 'item.go')).toString();
      const text = fs.readFileSync(path.join(ws.root, 'item.go'), 'utf8').replace(/\bStatus\b/g, 'StatusEdited');
      (state.documents as unknown as { _syncedDocuments: Map<string, TextDocument> })._syncedDocuments.set(uri, TextDocument.create(uri, 'go', 1, text));
      try {
        const r = await handler(params('focalFunctions', { file: 'item.go' }), token);
        assert.match(r.text, /StatusEdited/);
      } finally {
        (state.documents as unknown as { _syncedDocuments: Map<string, TextDocument> })._syncedDocuments.delete(uri);
      }
    });

    it('refuses a path outside the workspace, saying so', async () => {
      fs.writeFileSync(path.join(ws.outside, 'x.go'), 'package x\n');
      const r = await handler(params('scoreTest', { file: path.join(ws.outside, 'x.go'), function: 'F', testCode: 'package x' }), token);
      assert.equal(r.ok, false);
      assert.equal(r.kind, 'arguments');
      assert.match(r.text, /is outside the workspace/);
    });

    it('refuses arguments the tool\'s schema does not take, listing them', async () => {
      const r = await handler(params('scoreTest', { file: 'item.go', function: 'Status' }), token);
      assert.equal(r.kind, 'arguments');
      assert.match(r.text, /testCode/);
    });

    it('refuses when no folder is open', async () => {
      const folders = state.workspaceFolders;
      state.workspaceFolders = [];
      try {
        const r = await handler(params('focalFunctions', { file: 'item.go' }), token);
        assert.equal(r.kind, 'refused');
        assert.match(r.text, /no workspace folder is open/);
      } finally {
        state.workspaceFolders = folders;
      }
    });
  });
});
