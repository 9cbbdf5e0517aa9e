import * as path from 'node:path';
import { DockerExecutor } from '../engine/execute/docker';
import { buildEnvImage } from '../engine/execute/images';
import { LocalExecutor } from '../engine/execute/local';
import type { Executor } from '../engine/execute/types';
import type { LanguageId } from '../engine/languages';

export async function createExecutor(kind: 'docker' | 'local'): Promise<Executor> {
  if (kind !== 'docker' && kind !== 'local') throw new Error(`--executor ${kind as string}: use docker or local`);
  return kind === 'local' ? new LocalExecutor() : DockerExecutor.create();
}

/**
 * docker: each repository runs in its environment image (its dependencies fetched once, at build
 * time), built on first use and reused by every task of that repository.
 */
export function environmentImages(executor: Executor, explicit: string | undefined): (repoDir: string, language: LanguageId) => Promise<string | undefined> {
  const images = new Map<string, Promise<string>>();
  return async (repoDir, language) => {
    if (explicit || !(executor instanceof DockerExecutor)) return explicit;
    const key = `${language}\0${repoDir}`;
    let image = images.get(key);
    if (!image) {
      process.stderr.write(`preparing the ${language} environment image for ${path.basename(repoDir)} (dependencies are fetched once)\n`);
      image = buildEnvImage(executor.engine.docker, repoDir, language, { onProgress: () => undefined });
      images.set(key, image);
    }
    return image;
  };
}
