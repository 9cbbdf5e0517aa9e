import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { callTool, toolById, type AnyTool } from '../../src/engine/tools';
import { defineTool } from '../../src/engine/tools/definition';
import { ToolArgumentError, ToolRefusal } from '../../src/engine/tools/errors';
import { Workspace } from '../../src/engine/tools/workspace';
import { registerSecret } from '../../src/engine/util/redact';
import { fixtureWorkspace, toolServices } from '../helpers/tool-services';

/**
 * The trust boundary of the agents' tools (issue 18, part 4): an agent names paths and sends
 * arguments; only the workspace the user chose is reachable, arguments are checked before anything
 * runs, and nothing that goes back carries a secret.
 */
describe('agent tools: the trust boundary', () => {
  let ws: ReturnType<typeof fixtureWorkspace>;
  before(() => {
    ws = fixtureWorkspace('inventory-go');
    fs.writeFileSync(path.join(ws.outside, 'secret.go'), 'package secret\n\nfunc Leak() int { return 1 }\n');
  });
  after(() => ws.cleanup());

  describe('paths stay in the workspace (Workspace.resolve)', () => {
    it('finds a file inside, named relative to the root or absolute', () => {
      const w = Workspace.open(ws.root);
      assert.deepEqual(w.resolve('file', 'item.go', 'file'), { abs: path.join(fs.realpathSync(ws.root), 'item.go'), relPath: 'item.go' });
      assert.equal(w.resolve('file', path.join(ws.root, 'pricing', 'pricing.go'), 'file').relPath, 'pricing/pricing.go');
      assert.equal(w.resolve('repos', 'pricing', 'folder').relPath, 'pricing');
    });

    it('refuses a path that leads out lexically, with what to pass instead', () => {
      const w = Workspace.open(ws.root);
      for (const p of ['../outside/secret.go', path.join(ws.outside, 'secret.go'), '/etc/passwd', 'pricing/../../outside/secret.go']) {
        assert.throws(() => w.resolve('file', p, 'file'), (e: Error) => e instanceof ToolArgumentError && /^file: .* is outside the workspace; pass a file inside the workspace/.test(e.message), p);
      }
    });

    it('refuses a symbolic link out of the workspace, as a file or as a folder on the way, without saying where it leads', () => {
      fs.symlinkSync(path.join(ws.outside, 'secret.go'), path.join(ws.root, 'link.go'));
      fs.symlinkSync(ws.outside, path.join(ws.root, 'vendored'));
      const w = Workspace.open(ws.root);
      for (const p of ['link.go', 'vendored/secret.go']) {
        assert.throws(
          () => w.resolve('file', p, 'file'),
          (e: Error) => e instanceof ToolArgumentError && /leads outside the workspace through a symbolic link/.test(e.message) && !e.message.includes(ws.outside),
          p,
        );
      }
      assert.throws(() => w.resolve('repos', 'vendored', 'folder'), /leads outside the workspace through a symbolic link/);
    });

    it('follows a link that stays inside, and names the real file', () => {
      fs.symlinkSync('item.go', path.join(ws.root, 'alias.go'));
      assert.equal(Workspace.open(ws.root).resolve('file', 'alias.go', 'file').relPath, 'item.go');
    });

    it('refuses what does not exist, the wrong kind, and what is no path', () => {
      const w = Workspace.open(ws.root);
      assert.throws(() => w.resolve('file', 'nope.go', 'file'), /file: nope.go does not exist in the workspace/);
      assert.throws(() => w.resolve('file', 'pricing', 'file'), /file: pricing is not a file/);
      assert.throws(() => w.resolve('file', 'item.go\0x', 'file'), /is not a path/);
    });

    it('compares with the real root when the workspace itself is reached through a link', () => {
      const link = path.join(path.dirname(ws.root), 'ws-link');
      fs.symlinkSync(ws.root, link);
      const w = Workspace.open(link);
      assert.equal(w.root, fs.realpathSync(ws.root));
      assert.equal(w.resolve('file', path.join(link, 'item.go'), 'file').relPath, 'item.go');
    });
  });

  describe('arguments are checked before anything runs (callTool)', () => {
    const call = () => ({ signal: new AbortController().signal });

    it('names the wrong field and lists the arguments', async () => {
      const services = toolServices(ws.root, ws.outside);
      const scoreTest = toolById('scoreTest');
      const missing = await callTool(services, scoreTest, { file: 'item.go', testCode: 'package inventory' }, call());
      assert.equal(missing.ok, false);
      assert.equal(!missing.ok && missing.kind, 'arguments');
      assert.match(missing.text, /^arguments\.function: must be present, got nothing\. Its arguments: file \(string, required\): .*; function \(string, required\)/);
      const wrongType = await callTool(services, scoreTest, { file: 'item.go', function: 'Status', testCode: 42 }, call());
      assert.match(wrongType.text, /^arguments\.testCode: must be string, got number 42/);
      const unknown = await callTool(services, scoreTest, { file: 'item.go', function: 'Status', testCode: 'x', executor: 'none' }, call());
      assert.match(unknown.text, /^arguments\.executor: is not a known field/, 'where tests run is the user\'s choice, not an argument');
      const tooBig = await callTool(services, scoreTest, { file: 'item.go', function: 'Status', testCode: 'x'.repeat(200_001) }, call());
      assert.match(tooBig.text, /^arguments\.testCode: must NOT have more than 200000 characters/);
    });

    it('says which functions there are when the name is unknown, and refuses one no test can call', async () => {
      const services = toolServices(ws.root, ws.outside);
      const coverage = toolById('coverage');
      const unknown = await callTool(services, coverage, { file: 'item.go', function: 'Statuz' }, call());
      assert.equal(!unknown.ok && unknown.kind, 'arguments');
      assert.match(unknown.text, /^function: no function named "Statuz" in item\.go; its testable functions are Status \(line 7\), GetLabel \(line \d+\), CategoryLabel \(line \d+\)\. Pass one of those names/);
      const line = await callTool(services, coverage, { file: 'item.go', function: 'Status', line: 200 }, call());
      assert.match(line.text, /^line: no function Status spans line 200 of item\.go; it is at lines 7-29/);
      const language = await callTool(services, coverage, { file: 'go.mod', function: 'x' }, call());
      assert.match(language.text, /^file: go\.mod is not a Rust, Go, .* source file/);
      const escape = await callTool(services, coverage, { file: '../outside/secret.go', function: 'Leak' }, call());
      assert.match(escape.text, /^file: \.\.\/outside\/secret\.go is outside the workspace/);
    });

    it('refuses a test file as a target, saying what to do instead', async () => {
      const services = toolServices(ws.root, ws.outside);
      const r = await callTool(services, toolById('coverage'), { file: 'inventory_test.go', function: 'TestStatus' }, call());
      assert.equal(!r.ok && r.kind, 'arguments');
      assert.match(r.text, /TestStatus is test code: tests are generated for the code under test/);
    });
  });

  describe('nothing that goes back carries a secret', () => {
    const KEY = 'plain-configured-key-0123456789';
    before(() => registerSecret(KEY));

    function leaking(thrown: Error | null): AnyTool {
      return defineTool<{ x?: string }, { echo: string[] }>({
        id: 'coverage',
        title: 'leak',
        description: () => 'leaks',
        inputSchema: { type: 'object', additionalProperties: false, required: [], properties: { x: { type: 'string', nullable: true } } },
        outputSchema: { type: 'object' },
        runsCode: false,
        callsModel: false,
        async run() {
          if (thrown) throw thrown;
          return { echo: [`the key is ${KEY}`, 'Authorization: Bearer abcdefghijklmnop'] };
        },
        text: (r) => r.echo.join('\n'),
      });
    }

    it('redacts the structured value and its words', async () => {
      const services = toolServices(ws.root, ws.outside);
      const r = await callTool(services, leaking(null), {}, { signal: new AbortController().signal });
      assert.ok(r.ok);
      const all = JSON.stringify(r);
      assert.ok(!all.includes(KEY) && !all.includes('abcdefghijklmnop'), all);
      assert.match(r.text, /the key is «redacted»/);
    });

    it('redacts every kind of error, and sorts them into what the agent does next', async () => {
      const services = toolServices(ws.root, ws.outside);
      const cases: Array<[Error, string]> = [
        [new ToolArgumentError(`file: ${KEY}`), 'arguments'],
        [new ToolRefusal(`no model: ${KEY}`), 'refused'],
        [new Error(`provider said 401 for key ${KEY}`), 'failed'],
      ];
      for (const [error, kind] of cases) {
        const r = await callTool(services, leaking(error), {}, { signal: new AbortController().signal });
        assert.equal(!r.ok && r.kind, kind);
        assert.ok(!r.text.includes(KEY), r.text);
        assert.match(r.text, /«redacted»/);
      }
      assert.ok(services.logged.every((l) => !l.includes(KEY)), 'the user\'s log is redacted too');
      // The arguments' echo in a schema error is redacted as well.
      const echoed = await callTool(services, leaking(null), { x: 5, [KEY]: 1 }, { signal: new AbortController().signal });
      assert.ok(!echoed.text.includes(KEY), echoed.text);
    });

    it('says cancelled, not failed, when the call was cancelled', async () => {
      const services = toolServices(ws.root, ws.outside);
      const controller = new AbortController();
      controller.abort(new Error('cancelled'));
      const r = await callTool(services, leaking(new Error('aborted')), {}, { signal: controller.signal });
      assert.equal(!r.ok && r.kind, 'cancelled');
    });
  });
});
