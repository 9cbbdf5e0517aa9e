import { createExecutor as createRegisteredExecutor, executorKindList, isExecutorKind, type ExecutorOptions } from '../engine/execute/create-executor';
import { environmentImages as environmentImagesLogged } from '../engine/execute/environment-images';
import type { Executor } from '../engine/execute/types';
import type { LanguageId } from '../engine/languages';

/** `--executor KIND`: one of the engine's registered kinds (execute/create-executor.ts), said as the option. */
export async function createExecutor(kind: string, options: ExecutorOptions = {}): Promise<Executor> {
  if (!isExecutorKind(kind)) throw new Error(`--executor ${kind}: use ${executorKindList()}`);
  return createRegisteredExecutor(kind, options);
}

/** docker: each repository's environment image, built once (see the engine's `environmentImages`); said on stderr. */
export function environmentImages(executor: Executor, explicit: string | undefined): (repoDir: string, language: LanguageId) => Promise<string | undefined> {
  return environmentImagesLogged(executor, explicit, (line) => process.stderr.write(`${line}\n`));
}
