import { URI } from 'vscode-uri';
import { checkEnvironment, formatEnvironment, noEngineVerdict, verdictOfProblem, type EnvironmentVerdict, type ExecutorKindName } from '../engine/environment';
import { CHECK_ENVIRONMENT, type CheckEnvironmentResult, type EngineSettings } from '../shared/protocol';
import type { Focal } from './candidates';
import type { ServerState } from './state';
import { onClientRequest } from './wire';
import { wireEnvironment } from './wire-mapping';
import { workspaceLanguages } from './workspace-languages';

const executorKind = (kind: string | undefined): ExecutorKindName => (kind === 'docker' ? 'docker' : 'local');

/**
 * What this machine can run (executors, images, language servers) and what to install. The text is
 * scoped to the open workspace's languages and the chosen executor, in a user's words.
 */
export function registerEnvironment(state: ServerState): void {
  onClientRequest(state.connection, CHECK_ENVIRONMENT, async (params): Promise<CheckEnvironmentResult> => {
    const report = await checkEnvironment();
    const executor = executorKind(params.executor ?? state.settings.executor);
    const languages = workspaceLanguages(state.workspaceFolders.map((f) => URI.parse(f).fsPath));
    const text = formatEnvironment(report, { executor, ...(state.workspaceFolders.length ? { languages } : {}) });
    return { ...wireEnvironment(report), text, executor, workspaceLanguages: languages };
  });
}

/**
 * Before generating or running anything: whether the chosen executor can run the focal function's
 * language at all (local: its toolchain on PATH; docker: an engine that answers and an image). A
 * verdict means the scoring is refused up front, so a machine's gap is never scored as the test's failure.
 */
export async function environmentRefusal(state: ServerState, focal: Pick<Focal, 'adapter'>, settings: Pick<EngineSettings, 'executor'>): Promise<EnvironmentVerdict | null> {
  const kind = executorKind(settings.executor);
  let executor;
  try {
    executor = await state.executor(settings.executor);
  } catch (e) {
    if (kind !== 'docker') throw e;
    return noEngineVerdict();
  }
  const missing = await executor.unavailable?.(focal.adapter.id);
  return missing ? verdictOfProblem({ cause: 'toolchain-missing', reason: missing }, focal.adapter.id, kind) : null;
}
