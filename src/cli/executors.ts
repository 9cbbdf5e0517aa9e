import { DockerExecutor } from '../engine/execute/docker';
import { environmentImages as environmentImagesLogged } from '../engine/execute/environment-images';
import { LocalExecutor } from '../engine/execute/local';
import type { Executor } from '../engine/execute/types';
import type { LanguageId } from '../engine/languages';

export async function createExecutor(kind: 'docker' | 'local'): Promise<Executor> {
  if (kind !== 'docker' && kind !== 'local') throw new Error(`--executor ${kind as string}: use docker or local`);
  return kind === 'local' ? new LocalExecutor() : DockerExecutor.create();
}

/** docker: each repository's environment image, built once (see the engine's `environmentImages`); said on stderr. */
export function environmentImages(executor: Executor, explicit: string | undefined): (repoDir: string, language: LanguageId) => Promise<string | undefined> {
  return environmentImagesLogged(executor, explicit, (line) => process.stderr.write(`${line}\n`));
}
