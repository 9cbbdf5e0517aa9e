import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ErrorCodes, NotificationType, RequestType, ResponseError, type CancellationToken } from 'vscode-languageserver-protocol';
import { EngineNotRunningError, EngineServer, registerThenStart, serverClientOf, type ServerClient } from '../../src/extension/engine-start';
import { checkParams } from '../../src/server/params-check';
import { checkedParams, onClientNotification, onClientRequest } from '../../src/server/wire';
import * as annotator from '../../src/shared/annotator-protocol';
import * as bench from '../../src/shared/bench-protocol';
import * as bridge from '../../src/shared/bridge-protocol';
import * as protocol from '../../src/shared/protocol';
import * as scoring from '../../src/shared/scoring-protocol';
import { ClientNotification, ClientRequest } from '../../src/shared/wire';
import { REPO_ROOT } from '../helpers/paths';

const MODULES = { annotator, bench, bridge, protocol, scoring };
const settings = { ...protocol.DEFAULT_ENGINE_SETTINGS };

function messages(): Array<{ name: string; type: RequestType<unknown, unknown, unknown> | NotificationType<unknown> }> {
  return Object.entries(MODULES).flatMap(([module, exports]) =>
    Object.entries(exports)
      .filter(([, v]) => v instanceof RequestType || v instanceof NotificationType)
      .map(([name, type]) => ({ name: `${module}.${name}`, type: type as RequestType<unknown, unknown, unknown> | NotificationType<unknown> })),
  );
}

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Thrown by `f`, for assertions on what a refusal says. */
function thrown(f: () => unknown): Error {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  assert.fail('expected an error');
}

describe('the typed wire between the extension and the engine server', () => {
  describe('declarations (src/shared)', () => {
    it('declares every message once, as a typed message with a unique xrepotest/ method', () => {
      const all = messages();
      assert.ok(all.length >= 25, `${all.length} messages found`);
      const methods = all.map((m) => m.type.method);
      assert.deepEqual(methods.filter((m, i) => methods.indexOf(m) !== i), [], 'no method is declared twice');
      for (const { name, type } of all) assert.match(type.method, /^xrepotest\/[a-zA-Z/]+$/, name);
      // No method name survives as a plain string export.
      const strings = Object.values(MODULES).flatMap((exports) => Object.values(exports).filter((v) => typeof v === 'string' && v.startsWith('xrepotest/')));
      assert.deepEqual(strings, []);
    });

    it('gives every message the extension sends a check of its params', () => {
      const fromClient = messages().filter(({ type }) => type instanceof ClientRequest || type instanceof ClientNotification);
      assert.ok(fromClient.length >= 17, `${fromClient.length} client messages`);
      for (const { name, type } of fromClient) assert.equal(typeof (type as ClientRequest<unknown, unknown>).schema, 'object', name);
      // The server's questions to the editor are no client requests (the extension answers them).
      assert.ok(!(bridge.EDITOR_DEFINITION instanceof ClientRequest));
    });

    it('holds schemas as data: the validator (ajv) is imported as a value only by the server, so the extension does not bundle it', () => {
      const valueImport = /^import\s+(?!type\b)[^;]*from\s+['"]ajv['"]/m;
      const offenders = [...sources(path.join(REPO_ROOT, 'src', 'shared')), ...sources(path.join(REPO_ROOT, 'src', 'extension'))].filter((f) => valueImport.test(fs.readFileSync(f, 'utf8')));
      assert.deepEqual(offenders.map((f) => path.relative(REPO_ROOT, f)), []);
      // The server checks through the engine's schema check, which agents' tool arguments share (engine/tools).
      assert.match(fs.readFileSync(path.join(REPO_ROOT, 'src', 'server', 'params-check.ts'), 'utf8'), /from '\.\.\/engine\/util\/schema-check'/, 'the server checks with the engine');
      assert.match(fs.readFileSync(path.join(REPO_ROOT, 'src', 'engine', 'util', 'schema-check.ts'), 'utf8'), valueImport, 'the engine checks with ajv');
    });

    it('imports nothing from the engine, and names no method at a call site in the server or the extension', () => {
      const shared = sources(path.join(REPO_ROOT, 'src', 'shared')).filter((f) => /from\s+['"](\.\.\/)+engine\b|from\s+['"][^'"]*src\/engine/.test(fs.readFileSync(f, 'utf8')));
      assert.deepEqual(shared, [], 'src/shared takes no value or type from src/engine');
      const bare = [...sources(path.join(REPO_ROOT, 'src', 'server')), ...sources(path.join(REPO_ROOT, 'src', 'extension'))].flatMap((f) =>
        fs
          .readFileSync(f, 'utf8')
          .split('\n')
          .map((line, i) => ({ line, at: `${path.relative(REPO_ROOT, f)}:${i + 1}` }))
          .filter(({ line }) => /(sendRequest|sendNotification|onRequest|onNotification)\(\s*['"`]/.test(line) || /['"`]xrepotest\/[a-z]/i.test(line))
          .map(({ at }) => at),
      );
      assert.deepEqual(bare, []);
    });
  });

  describe('params checks', () => {
    it('passes well-formed params on unchanged (extra fields kept)', () => {
      const params = { uri: 'file:///ws/a.go', startLine: 7, settings, credentials: {}, extra: 1 };
      assert.strictEqual(checkParams(scoring.SCORE_FUNCTION, params, 'params'), params);
      const run = { dataset: { kind: 'tasks', tasks: '/t.jsonl', manifest: '/m.json' }, runDir: '/r', concurrency: 2, settings };
      assert.strictEqual(checkParams(bench.RUN_BENCHMARK, run, 'params'), run);
      assert.doesNotThrow(() => checkParams(bench.RUN_BENCHMARK, { ...run, dataset: { kind: 'workspace', folder: '/ws' } }, 'params'));
      assert.doesNotThrow(() => checkParams(annotator.ANNOTATOR_SAVE, { runDir: '/r', key: 'k', label: null, note: '' }, 'params'));
      assert.doesNotThrow(() => checkParams(protocol.SETTINGS_CHANGED, settings, 'params'));
    });

    it('names the missing or mistyped field, and what it should be', () => {
      const cases: Array<[ClientRequest<unknown, unknown> | ClientNotification<unknown>, unknown, RegExp]> = [
        [scoring.SCORE_FUNCTION as ClientRequest<unknown, unknown>, { uri: 'file:///a.go', settings }, /^params\.startLine: must be present, got nothing$/],
        [scoring.SCORE_FUNCTION as ClientRequest<unknown, unknown>, { uri: 'file:///a.go', startLine: 7 }, /^params\.settings: must be present, got nothing$/],
        [scoring.RUN_CANDIDATE as ClientRequest<unknown, unknown>, { uri: 'u', startLine: 1, testCode: 42, settings }, /^params\.testCode: must be string, got number 42$/],
        [scoring.FOCAL_FUNCTION_AT as ClientRequest<unknown, unknown>, { uri: 'u', line: 0, settings: { ...settings, mode: 'vector' } }, /^params\.settings\.mode: must be one of standard, file, lsp, bm25, dense, got the string "vector"$/],
        [bench.RUN_BENCHMARK as ClientRequest<unknown, unknown>, { dataset: { kind: 'zip' }, runDir: '/r', concurrency: 1, settings }, /^params\.dataset\.kind: must be one of tasks, workspace/],
        [bench.RUN_BENCHMARK as ClientRequest<unknown, unknown>, { dataset: { kind: 'workspace' }, runDir: '/r', concurrency: 1, settings }, /^params\.dataset\.folder: must be present/],
        [annotator.ANNOTATOR_SAVE as ClientRequest<unknown, unknown>, { runDir: '/r', key: 'k', label: 'nice', note: '' }, /^params\.label: must be one of correct, wrong-assertion/],
        [bridge.BRIDGE_PROBE as ClientRequest<unknown, unknown>, { uri: 'u', position: { line: 1 }, method: 'definition', settings }, /^params\.position\.character: must be present/],
        [protocol.CHECK_ENVIRONMENT as ClientRequest<unknown, unknown>, [], /^params: must be object, got an array$/],
      ];
      for (const [type, params, message] of cases) assert.match(thrown(() => checkParams(type, params, 'params')).message, message, type.method);
    });
  });

  describe('the server end (src/server/wire.ts)', () => {
    function fakeConnection() {
      const handlers = new Map<string, (params: unknown, token?: CancellationToken) => unknown>();
      const errors: string[] = [];
      const connection = {
        onRequest: (type: { method: string }, handler: (params: unknown, token?: CancellationToken) => unknown) => {
          handlers.set(type.method, handler);
          return { dispose: () => handlers.delete(type.method) };
        },
        onNotification: (type: { method: string }, handler: (params: unknown) => unknown) => {
          handlers.set(type.method, handler);
          return { dispose: () => handlers.delete(type.method) };
        },
        console: { error: (line: string) => errors.push(line) },
      };
      return { connection: connection as unknown as Parameters<typeof onClientRequest>[0] & Parameters<typeof onClientNotification>[0], handlers, errors };
    }

    it('runs the handler with checked params, and refuses others as InvalidParams before it runs', async () => {
      const { connection, handlers } = fakeConnection();
      const seen: unknown[] = [];
      onClientRequest(connection, scoring.FOCAL_FUNCTION_AT, (params) => {
        seen.push(params);
        return { why: 'test' };
      });
      const handler = handlers.get('xrepotest/focalFunctionAt')!;
      const good = { uri: 'file:///a.go', line: 3, settings };
      assert.deepEqual(await handler(good), { why: 'test' });
      assert.deepEqual(seen, [good]);
      const e = thrown(() => handler({ uri: 'file:///a.go', settings }));
      assert.ok(e instanceof ResponseError);
      assert.equal(e.code, ErrorCodes.InvalidParams);
      assert.match(e.message, /^xrepotest\/focalFunctionAt refused: params\.line: must be present, got nothing/);
      assert.equal(seen.length, 1, 'the handler did not run');
    });

    it('drops a malformed notification with a logged reason', () => {
      const { connection, handlers, errors } = fakeConnection();
      const seen: unknown[] = [];
      onClientNotification(connection, protocol.SETTINGS_CHANGED, (s) => seen.push(s));
      const handler = handlers.get('xrepotest/settingsChanged')!;
      handler({ ...settings, executor: 'vm' });
      handler(settings);
      assert.deepEqual(seen, [settings]);
      assert.equal(errors.length, 1);
      assert.match(errors[0], /params\.executor: must be one of local, docker/);
    });

    it('passes errors other than a refusal through', () => {
      // A schema ajv cannot compile is the server's own bug, not the extension's params: it is not an InvalidParams refusal.
      const boom = new ClientRequest<unknown, unknown>('xrepotest/boom', { type: 'no-such-type' } as never);
      assert.throws(() => checkedParams(boom, {}), (e: unknown) => e instanceof Error && !(e instanceof ResponseError));
    });
  });

  describe('the extension end: commands before the server (src/extension/engine-start.ts)', () => {
    function fakeClient(start: () => Promise<void>, answer: (method: string) => Promise<unknown> = async () => 'ok') {
      const calls: string[] = [];
      let running = false;
      const client: ServerClient & { stop(): void } = {
        start: async () => {
          calls.push('start');
          await start();
          running = true;
        },
        isRunning: () => running,
        sendRequest: async <P, R>(type: ClientRequest<P, R>): Promise<R> => {
          calls.push(type.method);
          return (await answer(type.method)) as R;
        },
        stop: () => (running = false),
      };
      return { client, calls };
    }

    it('registers everything first; a request made while registering waits for the server', async () => {
      const { client, calls } = fakeClient(async () => undefined);
      const server = new EngineServer(client);
      let early: Promise<unknown> | undefined;
      const api = await registerThenStart(
        () => {
          calls.push('register');
          early = server.request(protocol.CHECK_ENVIRONMENT, {});
          return { commands: 8 };
        },
        server,
        () => assert.fail('the start did not fail'),
      );
      assert.deepEqual(api, { commands: 8 });
      assert.equal(await early, 'ok');
      assert.deepEqual(calls, ['register', 'start', 'xrepotest/checkEnvironment']);
      assert.deepEqual(server.status, { state: 'running' });
    });

    it('a server that fails to start leaves the commands, and each request says what failed and what to do', async () => {
      const { client, calls } = fakeClient(async () => {
        throw new Error('Cannot find module dist/server.js');
      });
      const server = new EngineServer(client);
      const told: string[] = [];
      let early: Promise<unknown> | undefined;
      const api = await registerThenStart(
        () => {
          early = server.request(protocol.CHECK_ENVIRONMENT, {});
          return { registered: true };
        },
        server,
        (message) => told.push(message),
      );
      assert.deepEqual(api, { registered: true }, 'activation still returns the registered features');
      assert.deepEqual(server.status, { state: 'failed', reason: 'Cannot find module dist/server.js' });
      assert.equal(told.length, 1, 'the failure is told once at activation');
      for (const attempt of [early!, server.request(scoring.SCORE_FUNCTION, { uri: 'u', startLine: 1, settings })]) {
        await assert.rejects(attempt, (e: Error) => {
          assert.ok(e instanceof EngineNotRunningError);
          assert.match(e.message, /^the engine server did not start \(Cannot find module dist\/server\.js\)\. /);
          assert.match(e.message, /"XRepoTest" output/);
          assert.match(e.message, /Developer: Reload Window/);
          return true;
        });
      }
      assert.deepEqual(calls, ['start'], 'nothing was sent to a server that is not there');
    });

    it('a server that stopped later is told as stopped; other errors pass through', async () => {
      const { client } = fakeClient(
        async () => undefined,
        async (method) => {
          throw new Error(method === 'xrepotest/checkEnvironment' ? 'Client is not running' : 'no focal function starts on line 1');
        },
      );
      const server = new EngineServer(client);
      await registerThenStart(() => undefined, server, () => assert.fail('started'));
      await assert.rejects(server.request(scoring.SCORE_FUNCTION, { uri: 'u', startLine: 1, settings }), /^Error: no focal function starts on line 1$/);
      client.stop();
      await assert.rejects(server.request(protocol.CHECK_ENVIRONMENT, {}), (e: Error) => e instanceof EngineNotRunningError && /^the engine server stopped \(Client is not running\)/.test(e.message));
    });

    it('sends by the declared method, with exactly the arguments given (no undefined token as a second param)', async () => {
      const sent: unknown[][] = [];
      const client = serverClientOf({
        start: async () => undefined,
        isRunning: () => true,
        sendRequest: async <R>(...args: unknown[]): Promise<R> => {
          sent.push(args);
          return 'ok' as R;
        },
      });
      const params = { uri: 'u', startLine: 1, settings };
      const token = { isCancellationRequested: false, onCancellationRequested: () => ({ dispose: () => undefined }) };
      await client.sendRequest(scoring.SCORE_FUNCTION, params);
      await client.sendRequest(scoring.SCORE_FUNCTION, params, token);
      assert.deepEqual(sent, [
        ['xrepotest/scoreFunction', params],
        ['xrepotest/scoreFunction', params, token],
      ]);
    });

    it('every command the package contributes is registered by the extension (so each exists before the server starts)', () => {
      const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { contributes: { commands: Array<{ command: string }> } };
      const registered = new Set(
        sources(path.join(REPO_ROOT, 'src', 'extension')).flatMap((f) => [...fs.readFileSync(f, 'utf8').matchAll(/registerCommand\('([^']+)'/g)].map((m) => m[1])),
      );
      assert.deepEqual(
        pkg.contributes.commands.map((c) => c.command).filter((c) => !registered.has(c)),
        [],
      );
      // And activation registers them before it starts the server: nothing else in the extension starts it.
      const starts = sources(path.join(REPO_ROOT, 'src', 'extension')).filter((f) => /\.start\(\)/.test(fs.readFileSync(f, 'utf8')));
      assert.deepEqual(starts.map((f) => path.basename(f)), ['engine-start.ts']);
      assert.match(fs.readFileSync(path.join(REPO_ROOT, 'src', 'extension', 'extension.ts'), 'utf8'), /registerThenStart\(/);
    });
  });
});
