/**
 * What the status bar and "How to fix" say about the environment, from the engine's check: no
 * `vscode` import, so test/unit checks it. Only the open workspace's languages are flagged, and the
 * container engine only when the executor is docker.
 */
import type { CheckEnvironmentResult } from '../shared/protocol';
import type { EnvironmentVerdictResult, VerdictAction } from '../shared/scoring-protocol';

export type StatusReport = Pick<CheckEnvironmentResult, 'languages' | 'engine' | 'executor' | 'workspaceLanguages'>;

export interface StatusView {
  text: string;
  tooltip: string;
  /** The workspace's languages that cannot run with the chosen executor. */
  blocked: Array<{ language: string; displayName: string; verdict: EnvironmentVerdictResult }>;
}

const executorOf = (r: StatusReport): 'local' | 'docker' => (r.executor === 'docker' ? 'docker' : 'local');

/**
 * The last scoring's environment verdict per language (by language id), where it said more than the
 * machine check can (a project's own bundle or build): the status bar agrees with what the lens said.
 */
export type ScoredVerdicts = Readonly<Record<string, EnvironmentVerdictResult | undefined>>;

/** `$(beaker) XRepoTest: Go ✓`, `$(warning) XRepoTest: Ruby can't run (bundle missing)`. */
export function statusOf(r: StatusReport, scored: ScoredVerdicts = {}): StatusView {
  const executor = executorOf(r);
  const verdictOf = (l: StatusReport['languages'][number]): EnvironmentVerdictResult | null => l.verdicts[executor] ?? scored[l.language] ?? null;
  const ours = r.languages.filter((l) => r.workspaceLanguages.includes(l.language));
  const blocked = ours.flatMap((l) => {
    const v = verdictOf(l);
    return v ? [{ language: l.language, displayName: l.displayName, verdict: v }] : [];
  });
  const engineDown = executor === 'docker' && 'missing' in r.engine;
  if (!ours.length) {
    return {
      text: engineDown ? '$(warning) XRepoTest: no container engine' : '$(beaker) XRepoTest',
      tooltip: `XRepoTest: no ${r.languages.map((l) => l.displayName).join(', ')} files found in this workspace.${engineDown ? ' No container engine (Docker or Podman) answered for the docker executor.' : ''} Click to check the environment.`,
      blocked,
    };
  }
  const parts = ours.map((l) => {
    const v = verdictOf(l);
    if (v?.actions?.some((a) => a.kind === 'retry')) return `${l.displayName} first build not finished`;
    return v ? `${l.displayName} can't run (${v.short})` : `${l.displayName} ✓`;
  });
  // A down engine is one cause for every language: said once.
  const text = engineDown ? `XRepoTest: no container engine (${ours.map((l) => l.displayName).join(', ')} can't run)` : `XRepoTest: ${parts.join(' · ')}${executor === 'docker' ? ' · container engine ✓' : ''}`;
  const lines = [
    `XRepoTest (${executor} executor)`,
    ...ours.map((l) => {
      const v = verdictOf(l);
      return v ? `${l.displayName}: can't run here: ${v.cause}. How to fix: ${v.fix}` : `${l.displayName}: ready`;
    }),
    'Click to check the environment.',
  ];
  return { text: `${blocked.length ? '$(warning)' : '$(beaker)'} ${text}`, tooltip: lines.join('\n'), blocked };
}

/**
 * The buttons a "How to fix" message offers, in order: the verdict's own actions (try again, open the
 * setting, run the project's command in a terminal, check this project), else copy the command, open
 * the setting, the full check. Never a command-line flag (the server rewrote those, verdict-actions.ts).
 */
export function fixActions(v: EnvironmentVerdictResult): string[] {
  if (v.actions?.length) return [...new Set([...v.actions.map((a) => a.title), ...(v.command && !v.actions.some((a) => a.kind === 'terminal') ? ['Copy command'] : [])])];
  return [...(v.command ? ['Copy command'] : []), ...(v.setting ? ['Open settings'] : []), 'Check the environment'];
}

/** The action behind a button's title, if the verdict has one. */
export function actionNamed(v: EnvironmentVerdictResult, title: string | undefined): VerdictAction | undefined {
  return title ? v.actions?.find((a) => a.title === title) : undefined;
}

/** The "How to fix" section: the verdict in words, for the environment output. */
export function fixSection(v: EnvironmentVerdictResult, functionName?: string): string {
  return [
    `Can't run here${functionName ? ` (scoring ${functionName})` : ''}: ${v.cause}`,
    `How to fix: ${v.fix}`,
    ...(v.command ? [`Command: ${v.command}`] : []),
    ...(v.setting ? [`Setting: ${v.setting}`] : []),
    ...(v.actions?.length ? [`Actions: ${v.actions.map((a) => a.title).join(' · ')}`] : []),
  ].join('\n');
}
