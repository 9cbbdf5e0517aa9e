import * as assert from 'node:assert/strict';
import { afterTheScore, busyMessage, CANCEL_SCORING_COMMAND, phaseText, progressLenses, runnerPhase, ScoringsInFlight, type InFlightScoring } from '../../src/server/scoring-progress';

function scoring(over: Partial<Omit<InFlightScoring, 'phase' | 'startedAt'>> = {}): Omit<InFlightScoring, 'phase' | 'startedAt'> {
  return { uri: 'file:///w/item.go', startLine: 7, functionName: 'Status', buildKey: '/w#go', cancel: () => undefined, ...over };
}

describe('Scoring progress at the function (server side)', () => {
  it('says every phase in plain words, the first build of a package with how long it takes', () => {
    assert.equal(phaseText({ kind: 'generating' }), 'Generating…');
    assert.equal(phaseText({ kind: 'context', mode: 'lsp' }), 'Gathering lsp context…');
    assert.equal(phaseText({ kind: 'building', firstRun: true }), 'Building (first run for this package, kept for later runs)…');
    assert.equal(phaseText({ kind: 'building', firstRun: false }), 'Building the package…');
    // What the build's own output counted, never a time nobody measured.
    assert.equal(phaseText({ kind: 'building', firstRun: true, built: 37, unit: 'crates' }), 'Building (first run for this package, kept for later runs): 37 crates compiled…');
    assert.equal(phaseText({ kind: 'building', firstRun: false, built: 1, unit: 'packages' }), 'Building the package: 1 package compiled…');
    // A time only where this machine measured this repository's first build before.
    assert.equal(phaseText({ kind: 'building', built: 12, unit: 'crates', last: { durationMs: 251_000, built: 87 } }), 'Building the package: 12 crates compiled (last time here: 87 crates in 4 min)…');
    assert.equal(phaseText({ kind: 'building', unit: null, last: { durationMs: 41_400, built: 0 } }), 'Building the package (last time here: 41 s)…');
    assert.equal(phaseText({ kind: 'testing' }), 'Running the test…');
    assert.equal(phaseText({ kind: 'rerunning', run: 1, total: 2 }), 'Checking it is not flaky (run 2 of 3)…');
    // Reruns and mutants come after the score was shown: it stays on the lens beside their progress.
    assert.deepEqual(
      (['building', 'compiling', 'testing', 'coverage'] as const).map((kind) => afterTheScore({ kind })),
      [false, false, false, false],
    );
    assert.equal(afterTheScore({ kind: 'rerunning', run: 1, total: 2 }), true);
    assert.equal(afterTheScore({ kind: 'mutation', done: 0, total: 0 }), true);
    assert.equal(phaseText({ kind: 'mutation', done: 3, total: 12 }), 'Mutation testing 3/12…');
    assert.equal(phaseText({ kind: 'mutation', done: 0, total: 0 }), 'Mutation testing…');
  });

  it('maps the runner phases of evaluateTest to the user\'s phases and leaves unknown names alone', () => {
    assert.deepEqual(runnerPhase('warm-up'), { kind: 'building' });
    assert.deepEqual(runnerPhase('compile'), { kind: 'compiling' });
    assert.deepEqual(runnerPhase('compile-retry'), { kind: 'compiling' });
    assert.deepEqual(runnerPhase('test'), { kind: 'testing' });
    assert.deepEqual(runnerPhase('coverage'), { kind: 'coverage' });
    assert.equal(runnerPhase('something-new'), undefined);
  });

  it('gives a function in flight a spinning phase lens and a Cancel lens for that function', () => {
    const lenses = progressLenses({ uri: 'file:///w/item.go', startLine: 7, phase: { kind: 'testing' } });
    assert.deepEqual(lenses, [
      { title: '$(sync~spin) Running the test…', command: '' },
      { title: 'Cancel', command: CANCEL_SCORING_COMMAND, arguments: ['file:///w/item.go', 7] },
    ]);
  });

  it('refuses a second scoring of the same function, saying what the first is doing, until the first ends', () => {
    const inFlight = new ScoringsInFlight(() => 1000);
    const first = inFlight.begin({ ...scoring(), phase: { kind: 'generating' } });
    assert.ok('started' in first);
    assert.equal(first.started.startedAt, 1000);
    const second = inFlight.begin(scoring());
    assert.ok('busy' in second);
    assert.equal(second.busy, first.started);
    assert.equal(busyMessage(second.busy), 'already scoring Status: Generating…');
    // Another function of the same file, or the same line of another file, is not the same function.
    assert.ok('started' in inFlight.begin(scoring({ startLine: 20, functionName: 'Other' })));
    assert.ok('started' in inFlight.begin(scoring({ uri: 'file:///w/other.go' })));
    assert.deepEqual(inFlight.inDocument('file:///w/item.go').map((s) => s.startLine).sort((a, b) => a - b), [7, 20]);
    inFlight.end(first.started);
    assert.equal(inFlight.get('file:///w/item.go', 7), undefined);
    const third = inFlight.begin(scoring());
    assert.ok('started' in third);
    // A late end of the first scoring does not drop the newer one.
    inFlight.end(first.started);
    assert.equal(inFlight.get('file:///w/item.go', 7), third.started);
  });

  it('calls a build the first run for its package until a build of it has finished in this session', () => {
    const inFlight = new ScoringsInFlight();
    const a = inFlight.begin(scoring());
    assert.ok('started' in a);
    assert.equal(inFlight.setPhase(a.started, { kind: 'building' }), true);
    assert.deepEqual(a.started.phase, { kind: 'building', firstRun: true });
    // Cancelled during the build: the cache is still cold, so the next build is still the first.
    inFlight.end(a.started);
    assert.equal(inFlight.hasBuilt('/w#go'), false);
    const b = inFlight.begin(scoring());
    assert.ok('started' in b);
    inFlight.setPhase(b.started, { kind: 'building' });
    assert.equal(phaseText(b.started.phase), 'Building (first run for this package, kept for later runs)…');
    inFlight.setPhase(b.started, { kind: 'compiling' });
    assert.equal(inFlight.hasBuilt('/w#go'), true);
    inFlight.end(b.started);
    const c = inFlight.begin(scoring());
    assert.ok('started' in c);
    inFlight.setPhase(c.started, { kind: 'building' });
    assert.equal(phaseText(c.started.phase), 'Building the package…');
    // Another language of the same folder has its own cache.
    const d = inFlight.begin(scoring({ startLine: 30, buildKey: '/w#ruby' }));
    assert.ok('started' in d);
    inFlight.setPhase(d.started, { kind: 'building' });
    assert.equal(phaseText(d.started.phase), 'Building (first run for this package, kept for later runs)…');
  });

  it('says whether the lens text changed, so the lenses are refreshed only when it did', () => {
    const inFlight = new ScoringsInFlight();
    const a = inFlight.begin({ ...scoring(), phase: { kind: 'testing' } });
    assert.ok('started' in a);
    assert.equal(inFlight.setPhase(a.started, { kind: 'testing' }), false);
    assert.equal(inFlight.setPhase(a.started, { kind: 'mutation', done: 1, total: 4 }), true);
    assert.equal(inFlight.setPhase(a.started, { kind: 'mutation', done: 1, total: 4 }), false);
    assert.equal(inFlight.setPhase(a.started, { kind: 'mutation', done: 2, total: 4 }), true);
  });
});
