import type { PhaseTimeouts } from '../engine/execute/toolchain';
import type { EngineSettings } from '../shared/protocol';

/** The editor's limits as the engine's phase timeouts: a test's run time, and a build's progress and total limits. */
export function editorTimeouts(settings: Pick<EngineSettings, 'testTimeoutSeconds' | 'buildSilenceSeconds' | 'buildMinutes'>): Partial<PhaseTimeouts> {
  return { testMs: settings.testTimeoutSeconds * 1000, compileMs: settings.buildSilenceSeconds * 1000, buildMs: settings.buildMinutes * 60_000 };
}
