import * as path from 'node:path';
import { URI } from 'vscode-uri';
import { prepareEnvironment, type BuildProgress } from '../engine/execute/prepare-environment';
import { checkEnvironment, formatEnvironment, noEngineVerdict, type EnvironmentVerdict, type ExecutorKindName } from '../engine/environment';
import { checkRepository, formatRepositoryCheck } from '../engine/doctor-repo';
import { CHECK_ENVIRONMENT, CHECK_PROJECT, type CheckEnvironmentResult, type CheckProjectResult, type EngineSettings } from '../shared/protocol';
import { reportRunnerPhase, type Focal, type Progress } from './candidates';
import { editorTimeouts } from './limits';
import { editorVerdict } from './verdict-actions';
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

  // "Check this project": the command line's `doctor --repo`, for a workspace folder only.
  onClientRequest(state.connection, CHECK_PROJECT, async (params, token): Promise<CheckProjectResult> => {
    const folders = state.workspaceFolders.map((f) => path.resolve(URI.parse(f).fsPath));
    const folder = path.resolve(params.folder);
    if (!folders.includes(folder)) throw new Error(`${params.folder} is not a folder of this workspace: open it as one, then check it`);
    const kind = executorKind(params.executor ?? state.settings.executor);
    const executor = await state.executor(kind);
    // The extension shows the progress and its Cancel (the request's token).
    const controller = new AbortController();
    token.onCancellationRequested(() => controller.abort(new Error('cancelled')));
    const check = await checkRepository(folder, { executor, signal: controller.signal });
    const ofLanguages = new Set(check.languages.flatMap((l) => l.problems));
    const problems = [
      ...check.languages.flatMap((l) => l.problems.map((pr) => editorVerdict(pr, l.language, kind, folder))),
      // Problems of no language (no manifest at the root): said as they are.
      ...check.problems.filter((pr) => !ofLanguages.has(pr)).map((pr) => ({ cause: pr.reason.split('; ')[0], fix: pr.reason.split('; ').slice(1).join('; ') })),
    ];
    return { text: formatRepositoryCheck(check), problems: problems.map((v) => ({ cause: v.cause, fix: v.fix })) };
  });
}

/**
 * Before generating or running anything: whether the chosen executor can run the focal function's
 * language at all (local: its toolchain on PATH; docker: an engine that answers and an image). A
 * verdict means the scoring is refused up front, so a machine's gap is never scored as the test's failure.
 */
export async function environmentRefusal(state: ServerState, focal: Pick<Focal, 'adapter' | 'root'>, settings: Pick<EngineSettings, 'executor'>): Promise<EnvironmentVerdict | null> {
  const kind = executorKind(settings.executor);
  let executor;
  try {
    executor = await state.executor(settings.executor);
  } catch (e) {
    if (kind !== 'docker') throw e;
    return noEngineVerdict();
  }
  const missing = await executor.unavailable?.(focal.adapter.id);
  return missing ? editorVerdict({ cause: 'toolchain-missing', reason: missing }, focal.adapter.id, kind, focal.root) : null;
}

/**
 * Before the model is asked (issue 30): the first scoring of a package prepares its environment
 * without a test (prepare-environment.ts: the toolchain, the project's own constraints, the first
 * build, kept per key), with the build's progress on the lens. A project that cannot run here is its
 * verdict now, with no model call paid for; later scorings of the package go straight to the model.
 */
export async function environmentBeforeModel(state: ServerState, focal: Focal, settings: EngineSettings, p: Progress): Promise<EnvironmentVerdict | null> {
  const prepared = await prepareFocal(state, focal, settings, p.signal, {
    onPhase: (phase) => reportRunnerPhase(p, 5, phase),
    onProgress: (b) => p.report(5, '', { kind: 'building', built: b.built, unit: b.unit, ...(b.last ? { last: b.last } : {}) }),
  });
  return prepared.verdict;
}

/** A build's progress passed on at most once a second, however fast the build prints (the lens, the status bar). */
function atMostOncePerSecond(f: (b: BuildProgress) => void): (b: BuildProgress) => void {
  let shown = 0;
  return (b) => {
    if (Date.now() - shown < 1000) return;
    shown = Date.now();
    f(b);
  };
}

/**
 * The environment of a focal function's package prepared once per server life (the scoring's first
 * step, and the background warm-up at a workspace's opening): its verdict, or null when ready, and
 * whether this call ran the build. A second call while the first builds joins it (the warm entry is
 * built once per key and process, warm-environment.ts).
 */
export async function prepareFocal(
  state: ServerState,
  focal: Focal,
  settings: EngineSettings,
  signal: AbortSignal,
  observe: { onPhase?: (phase: string) => void; onProgress?: (b: BuildProgress) => void } = {},
): Promise<{ verdict: EnvironmentVerdict | null; built: boolean }> {
  const key = `${executorKind(settings.executor)}\0${focal.root}\0${focal.adapter.id}\0${path.dirname(focal.relPath)}`;
  // Checked once per server (its state), not before every scoring.
  if (state.readyPackages.has(key)) return { verdict: null, built: false };
  const executor = await state.executor(settings.executor);
  const prepared = await prepareEnvironment(focal.task, focal.adapter.id, {
    executor,
    repoDir: focal.root,
    signal,
    timeouts: editorTimeouts(settings),
    limits: { memoryBytes: settings.memoryMb * 1024 * 1024 },
    ...(observe.onPhase ? { onPhase: observe.onPhase } : {}),
    ...(observe.onProgress ? { onProgress: atMostOncePerSecond(observe.onProgress) } : {}),
  });
  signal.throwIfAborted();
  if (prepared.ready) {
    state.readyPackages.add(key);
    return { verdict: null, built: prepared.built };
  }
  return { verdict: editorVerdict(prepared.problem, focal.adapter.id, executor.kind, focal.root), built: false };
}
