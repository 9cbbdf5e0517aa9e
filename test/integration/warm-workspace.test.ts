import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TextDocuments } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { URI } from 'vscode-uri';
import { forgetWarmOutcomes } from '../../src/engine/execute/warm-environment';
import { DEFAULT_ENGINE_SETTINGS, type EngineSettings } from '../../src/shared/protocol';
import { SCORE_FUNCTION, type ScoreFunctionResult } from '../../src/shared/scoring-protocol';
import { WARM_PROGRESS, WARM_WORKSPACE, type WarmProgressParams, type WarmWorkspaceResult } from '../../src/shared/warm-protocol';
import { registerScoring } from '../../src/server/scoring';
import { ServerState } from '../../src/server/state';
import { registerWarmUp, warmFocal } from '../../src/server/warm-workspace';
import { fixture } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';
import { fakeConnection } from '../helpers/server-connection';

/**
 * Issue 30: the background warm-up at a workspace's opening builds what scoring needs, so the first
 * "Generate" finds it done. Through the engine server's handlers (no editor), on the Go fixture, with
 * an empty warm cache.
 */
describe('the background warm-up of a workspace (engine server, local executor)', function () {
  this.timeout(600_000);
  const root = fixture('inventory-go');
  const file = path.join(root, 'item.go');
  const uri = URI.file(file).toString();
  const server = fakeConnection();
  const notes = (): WarmProgressParams[] => server.notifications.filter((n) => n.method === WARM_PROGRESS.method).map((n) => n.params as WarmProgressParams);
  let cache: string;
  let xdg: string | undefined;
  const settings: EngineSettings = { ...DEFAULT_ENGINE_SETTINGS, provider: 'baseline', executor: 'local', reruns: 0 };
  const request = <R>(method: string, params: unknown): Promise<R> => server.request<R>(method, params);

  before(function () {
    if (!hasTool('go', ['version'])) skipBecause(this, 'go is needed to build the Go fixture');
    if (!hasTool('bwrap')) skipBecause(this, 'bubblewrap is not installed');
    // An empty warm cache for this process's local executor (it keeps its entries under XDG_CACHE_HOME).
    xdg = process.env.XDG_CACHE_HOME;
    cache = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-warm-workspace-'));
    process.env.XDG_CACHE_HOME = cache;
    forgetWarmOutcomes();
    const doc = TextDocument.create(uri, 'go', 1, fs.readFileSync(file, 'utf8'));
    const documents = { get: (u: string) => (u === uri ? doc : undefined) } as unknown as TextDocuments<TextDocument>;
    const state = new ServerState(server.connection, documents);
    state.workspaceFolders = [URI.file(root).toString()];
    registerScoring(state);
    registerWarmUp(state);
  });
  after(() => {
    if (xdg === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = xdg;
    if (cache) fs.rmSync(cache, { recursive: true, force: true });
    forgetWarmOutcomes();
  });

  it('finds a function to warm with near the root, never in a test file', async () => {
    const focal = await warmFocal(root, 'go', settings);
    assert.ok(focal, 'a Go function of the fixture');
    assert.ok(!focal.relPath.endsWith('_test.go'), focal.relPath);
    assert.equal(focal.adapter.id, 'go');
  });

  it('builds the workspace before any click, with the build\'s own progress; the first score then runs no build', async () => {
    const warm = await request<WarmWorkspaceResult>(WARM_WORKSPACE.method, { settings });
    const go = warm.languages.find((l) => l.language === 'go');
    assert.deepEqual(go && [go.state, go.built, go.folder], ['ready', true, root], JSON.stringify(warm));
    // What the status bar was told: the packages Go compiled, as `go build -v` named them.
    const seen = notes();
    assert.ok(seen.length > 0 && seen.every((n) => n.language === 'go' && n.folder === root), JSON.stringify(seen.slice(0, 3)));
    assert.ok(seen.some((n) => n.built > 0 && n.unit === 'packages'), `a count of packages compiled: ${JSON.stringify(seen.map((n) => n.built))}`);

    const scored = await request<ScoreFunctionResult>(SCORE_FUNCTION.method, { uri, startLine: 7, settings });
    assert.equal(scored.passed, true, scored.reason ?? '');
    assert.ok(!scored.phases.some((p) => p.phase === 'warm-up'), `the first score built again: ${scored.phases.map((p) => p.phase).join(', ')}`);

    // Warming again finds it done.
    const again = await request<WarmWorkspaceResult>(WARM_WORKSPACE.method, { settings });
    assert.deepEqual(again.languages.find((l) => l.language === 'go')?.state, 'ready');
    assert.equal(again.languages.find((l) => l.language === 'go')?.built, false);
  });
});
