/**
 * Progress at the function: which functions are being scored right now, in which phase, and how that
 * reads on the function's code lens and in the editor's notification (issue 14, item 3).
 *
 * One scoring per function at a time: a request for a function already in flight is refused with
 * what it is doing, instead of starting a second run that would race the first for the lens, the
 * Testing view and the machine's two cores.
 *
 * Everything here is pure (no connection, no engine); the server wires it to the requests in
 * candidates.ts (withProgress) and to the lenses in scoring.ts.
 */
import { lastTimeText, unitCount, type LastBuild } from '../shared/build-estimate';

/** What a scoring is doing, as the lens and the notification say it. */
export type ScoringPhase =
  | { kind: 'starting' }
  | { kind: 'context'; mode: string }
  | { kind: 'generating' }
  | { kind: 'reading-failure' }
  | { kind: 'repairing' }
  /**
   * The untouched package's build (the runner's warm-up); `firstRun` when its build cache is cold;
   * `built` units (`unit`: crates, packages) so far, as the build's own output names them.
   */
  | { kind: 'building'; firstRun?: boolean; built?: number; unit?: string | null; last?: LastBuild }
  | { kind: 'compiling' }
  | { kind: 'testing' }
  | { kind: 'coverage' }
  /** A passing test run again in fresh copies (`xrepotest.reruns`): its score is already on the lens. */
  | { kind: 'rerunning'; run: number; total: number }
  | { kind: 'mutation'; done: number; total: number };

/** The phase in plain words, ending in an ellipsis (it is still going). */
export function phaseText(phase: ScoringPhase): string {
  switch (phase.kind) {
    case 'starting':
      return 'Starting…';
    case 'context':
      return `Gathering ${phase.mode} context…`;
    case 'generating':
      return 'Generating…';
    case 'reading-failure':
      return 'Reading the failed run…';
    case 'repairing':
      return 'Asking the model for a repair…';
    case 'building': {
      // A time only from what this machine measured for this repository last time, else none.
      const count = phase.built && phase.unit ? `: ${unitCount(phase.built, phase.unit)} compiled` : '';
      const last = phase.last ? ` (${lastTimeText(phase.last, phase.unit ?? null)})` : '';
      return phase.firstRun ? `Building (first run for this package, kept for later runs)${count}${last}…` : `Building the package${count}${last}…`;
    }
    case 'compiling':
      return 'Compiling the test…';
    case 'testing':
      return 'Running the test…';
    case 'coverage':
      return 'Measuring coverage…';
    case 'rerunning':
      return `Checking it is not flaky (run ${phase.run + 1} of ${phase.total + 1})…`;
    case 'mutation':
      return phase.total > 0 ? `Mutation testing ${phase.done}/${phase.total}…` : 'Mutation testing…';
  }
}

/** The phase of a runner's command (evaluateTest's onPhase names) as the user reads it; undefined for a name it does not know. */
export function runnerPhase(name: string): ScoringPhase | undefined {
  switch (name) {
    case 'warm-up':
      return { kind: 'building' };
    case 'compile':
    case 'compile-retry':
      return { kind: 'compiling' };
    case 'test':
      return { kind: 'testing' };
    case 'coverage':
      return { kind: 'coverage' };
    default:
      return undefined;
  }
}

/** The lens command that cancels a scoring (registered by the extension; arguments: uri, start line). */
export const CANCEL_SCORING_COMMAND = 'xrepotest.cancelScoring';

/**
 * Whether the function's last score stays on its lens while this phase runs: the phases that come
 * after the score was shown (reruns, mutants) only add to it (issue 30: results first, extras after).
 */
export function afterTheScore(phase: ScoringPhase): boolean {
  return phase.kind === 'rerunning' || phase.kind === 'mutation';
}

/** The two lenses a function being scored gets: its phase (no action) and Cancel. */
export function progressLenses(s: Pick<InFlightScoring, 'uri' | 'startLine' | 'phase'>): Array<{ title: string; command: string; arguments?: unknown[] }> {
  return [
    { title: `$(sync~spin) ${phaseText(s.phase)}`, command: '' },
    { title: 'Cancel', command: CANCEL_SCORING_COMMAND, arguments: [s.uri, s.startLine] },
  ];
}

/** What a refused second scoring of the same function says. */
export function busyMessage(s: Pick<InFlightScoring, 'functionName' | 'phase'>): string {
  return `already scoring ${s.functionName}: ${phaseText(s.phase)}`;
}

export interface InFlightScoring {
  uri: string;
  /** The focal function's first line (1-based), as in the requests. */
  startLine: number;
  functionName: string;
  /** The workspace folder and language: whose build the warm-up is (for "first run"). */
  buildKey: string;
  phase: ScoringPhase;
  /** Date.now() when it started. */
  startedAt: number;
  /** Stops the work (the request then ends as cancelled). */
  cancel(): void;
}

export type BeginResult = { started: InFlightScoring } | { busy: InFlightScoring };

function keyOf(uri: string, startLine: number): string {
  return `${uri}#${startLine}`;
}

/**
 * The scorings in flight, per function, and which packages have been built in this server session
 * (the first build of a package fills the toolchain's cache: Go's build cache, Ruby's bundle, Rust's
 * target folder; later builds reuse it and take seconds).
 */
export class ScoringsInFlight {
  private readonly running = new Map<string, InFlightScoring>();
  private readonly built = new Set<string>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Registers a scoring, or says which one already runs for that function (nothing is registered then). */
  begin(s: Omit<InFlightScoring, 'phase' | 'startedAt'> & { phase?: ScoringPhase }): BeginResult {
    const key = keyOf(s.uri, s.startLine);
    const busy = this.running.get(key);
    if (busy) return { busy };
    const started: InFlightScoring = { ...s, phase: s.phase ?? { kind: 'starting' }, startedAt: this.now() };
    this.running.set(key, started);
    return { started };
  }

  /**
   * The scoring moved on to `phase`; returns whether what the lens says changed. A build is the
   * first run for its package until a later phase of some scoring of that package has started (a
   * warm-up cancelled half-way leaves the cache cold, so the next one is still the first).
   */
  setPhase(s: InFlightScoring, phase: ScoringPhase): boolean {
    let next = phase;
    if (phase.kind === 'building') next = { ...phase, firstRun: phase.firstRun ?? !this.built.has(s.buildKey) };
    else if (s.phase.kind === 'building') this.built.add(s.buildKey);
    const changed = phaseText(next) !== phaseText(s.phase);
    s.phase = next;
    return changed;
  }

  /** The scoring is over (finished, failed or cancelled); a newer one of the same function is left alone. */
  end(s: InFlightScoring): void {
    const key = keyOf(s.uri, s.startLine);
    if (this.running.get(key) === s) this.running.delete(key);
  }

  get(uri: string, startLine: number): InFlightScoring | undefined {
    return this.running.get(keyOf(uri, startLine));
  }

  /** The scorings of one document, for its lenses. */
  inDocument(uri: string): InFlightScoring[] {
    return [...this.running.values()].filter((s) => s.uri === uri);
  }

  /** Whether a package's build has been seen to finish in this session. */
  hasBuilt(buildKey: string): boolean {
    return this.built.has(buildKey);
  }
}

/** The server's one registry (the lenses and every scoring request share it). */
export const scoringsInFlight = new ScoringsInFlight();
