/**
 * The background warm-up (issue 30): when a trusted workspace opens, the engine builds what scoring
 * needs (dependencies, the build cache, a Rust target, the bundle check) for each of its languages,
 * before anyone clicks, and keeps it; the extension shows its progress in the status bar with Cancel.
 */
import { withSettingsProperties, type WithSettings } from './protocol';
import type { EnvironmentVerdictResult } from './scoring-protocol';
import { ClientRequest, ServerNotification } from './wire';
import type { LastBuild } from './build-estimate';

export type WarmWorkspaceParams = WithSettings;

export interface WarmLanguageResult {
  /** The workspace folder (absolute path). */
  folder: string;
  language: string;
  displayName: string;
  /**
   * ready: built now or found built; environment: a verdict (the project cannot run here, or its first
   * build was cut short and kept); no-function: nothing of the language to score near the folder's root.
   */
  state: 'ready' | 'environment' | 'no-function';
  /** ready: whether this warm-up ran the build (else it was already built). */
  built?: boolean;
  durationMs: number;
  environment?: EnvironmentVerdictResult;
}

export interface WarmWorkspaceResult {
  languages: WarmLanguageResult[];
}

export const WARM_WORKSPACE = new ClientRequest<WarmWorkspaceParams, WarmWorkspaceResult>('xrepotest/warmWorkspace', {
  type: 'object',
  required: ['settings'],
  properties: { ...withSettingsProperties },
});

/** A warm-up's progress, as its build's output shows it (units built: crates, packages). */
export interface WarmProgressParams {
  folder: string;
  language: string;
  displayName: string;
  /** What the build named so far (`unit` null: the language's build names none). */
  built: number;
  unit: string | null;
  lastLine: string;
  elapsedMs: number;
  /** What this machine measured for this repository's first build last time; absent: no number is shown. */
  last?: LastBuild;
}

export const WARM_PROGRESS = new ServerNotification<WarmProgressParams>('xrepotest/warmProgress');
