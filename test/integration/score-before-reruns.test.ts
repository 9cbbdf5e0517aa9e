import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TextDocuments } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { URI } from 'vscode-uri';
import { DEFAULT_ENGINE_SETTINGS, type EngineSettings } from '../../src/shared/protocol';
import { CANCEL_SCORING, SCORE_FUNCTION, SCORING_PHASE, type ScoringPhaseParams } from '../../src/shared/scoring-protocol';
import { EditorRunFolder } from '../../src/server/editor-run';
import { registerScoring, scoreOnLens } from '../../src/server/scoring';
import { ServerState } from '../../src/server/state';
import { fixture } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';
import { fakeConnection } from '../helpers/server-connection';

interface Lens {
  command?: { title: string; command: string };
}

/**
 * Results first (issue 30): a passing test's score is on its lens while the reruns that check it is
 * not flaky run, with their progress and Cancel beside it; a scoring cancelled during them withdraws
 * that score (nothing on the lens, Accept among it, stands for a test that was not recorded).
 */
describe('the editor shows a passing score before its reruns end', function () {
  this.timeout(300_000);
  const root = fixture('textkit-php');
  const file = path.join(root, 'src', 'Slugger.php');
  const uri = URI.file(file).toString();
  const startLine = fs.readFileSync(file, 'utf8').split('\n').findIndex((l) => l.includes('function slugify')) + 1;
  let storage: string;
  let folder: EditorRunFolder;
  let state: ServerState;
  let onPhase: (p: ScoringPhaseParams) => void = () => undefined;
  let server: ReturnType<typeof fakeConnection>;

  before(function () {
    if (!hasTool('php', ['--version'])) skipBecause(this, 'php is needed to run the PHP fixture\'s tests');
    storage = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-reruns-'));
    folder = EditorRunFolder.inStorage(storage);
    server = fakeConnection(undefined, { onNotification: (method, params) => method === SCORING_PHASE.method && onPhase(params as ScoringPhaseParams) });
    const doc = TextDocument.create(uri, 'php', 1, fs.readFileSync(file, 'utf8'));
    const documents = { get: (u: string) => (u === uri ? doc : undefined) } as unknown as TextDocuments<TextDocument>;
    state = new ServerState(server.connection, documents);
    state.workspaceFolders = [URI.file(root).toString()];
    state.editorRun = folder;
    registerScoring(state);
  });
  after(async () => {
    folder?.close();
    await state?.close();
    if (storage) fs.rmSync(storage, { recursive: true, force: true });
  });

  const settings = (over: Partial<EngineSettings> = {}): EngineSettings => ({ ...DEFAULT_ENGINE_SETTINGS, provider: 'baseline', executor: 'local', mutation: false, reruns: 2, ...over });
  const titles = async (): Promise<string[]> => ((await server.codeLens(uri)) as Lens[]).map((l) => l.command?.title ?? '');

  it('the lens holds the first run\'s score, the reruns\' progress and Cancel while they run; the request ends with their count', async () => {
    const seen: Array<Promise<{ phase: string; message: string; score: string | undefined; passed: boolean | undefined; lenses: string[] }>> = [];
    const phases: string[] = [];
    onPhase = (p) => {
      if (!p.done) phases.push(p.phase);
      if (p.phase !== 'rerunning' || p.done) return;
      const shown = scoreOnLens(uri, startLine);
      seen.push(titles().then((lenses) => ({ phase: p.phase, message: p.message, score: shown?.lensSummary, passed: shown?.passed, lenses })));
    };
    const result = await server.request(SCORE_FUNCTION, { uri, startLine, settings: settings() });
    onPhase = () => undefined;
    assert.equal(result.passed, true, result.reason ?? '');
    assert.deepEqual(result.reruns, { runs: 3, passed: 3 });
    const during = await Promise.all(seen);
    // Once the reruns start, the phase stays theirs: a rerun's own compile and test phases would read
    // "Compiling the test…" over the score (what code-server showed on google/uuid).
    const fromReruns = phases.slice(phases.indexOf('rerunning'));
    assert.ok(phases.includes('rerunning'), phases.join(', '));
    assert.deepEqual([...new Set(fromReruns)], ['rerunning'], `phases after the first rerun: ${fromReruns.join(', ')}`);
    assert.equal(during.length, 2, 'one phase per rerun');
    assert.deepEqual(during.map((d) => d.message), ['Checking it is not flaky (run 2 of 3)…', 'Checking it is not flaky (run 3 of 3)…']);
    for (const d of during) {
      assert.ok(d.score && d.passed, `a passing score on the lens during the reruns: ${d.score}`);
      assert.ok(d.lenses.includes(d.score!), `the lens shows it: ${d.lenses.join(' | ')}`);
      assert.ok(d.lenses.includes('Cancel'), `with Cancel beside it: ${d.lenses.join(' | ')}`);
      assert.ok(d.lenses.some((t) => t.includes('Checking it is not flaky')), d.lenses.join(' | '));
    }
    // Settled: the lens's score is the request's, with its actions back.
    assert.equal(scoreOnLens(uri, startLine)?.lensSummary, result.lensSummary);
    assert.ok((await titles()).includes('Accept test'));
  });

  it('cancelled during the reruns: the early score is withdrawn and the last settled one is back', async () => {
    const settled = scoreOnLens(uri, startLine);
    assert.ok(settled, 'the first test left a score on the lens');
    let early: string | undefined;
    onPhase = (p) => {
      if (p.phase !== 'rerunning' || p.done || early !== undefined) return;
      const shown = scoreOnLens(uri, startLine);
      early = shown === settled ? 'the settled one' : shown?.passed ? shown.lensSummary : `not passing: ${shown?.lensSummary}`;
      void server.request(CANCEL_SCORING, { uri, startLine });
    };
    // The same click again: its first run's score is shown early, as a new result, then withdrawn.
    await assert.rejects(server.request(SCORE_FUNCTION, { uri, startLine, settings: settings({ reruns: 3 }) }), /cancelled/);
    onPhase = () => undefined;
    assert.ok(early && early !== 'the settled one' && !early.startsWith('not passing'), `the new run's passing score was shown before the reruns: ${early}`);
    assert.equal(scoreOnLens(uri, startLine), settled, 'the score settled before is on the lens again');
    const lenses = await titles();
    assert.ok(!lenses.includes('Cancel'), lenses.join(' | '));
  });
});
