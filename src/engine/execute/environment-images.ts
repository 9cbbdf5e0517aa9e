import * as path from 'node:path';
import type { Executor } from './types';
import type { LanguageId } from '../languages';

/**
 * An executor that runs images (docker): each repository runs in its environment image (its dependencies fetched once, at build
 * time), built on first use and reused by every task of that repository. `log` says when one is built:
 * the first task of a repository waits for it.
 */
export function environmentImages(
  executor: Executor,
  explicit: string | undefined,
  log: (line: string) => void,
): (repoDir: string, language: LanguageId) => Promise<string | undefined> {
  const images = new Map<string, Promise<string>>();
  return async (repoDir, language) => {
    const build = executor.capabilities.buildEnvironmentImage;
    if (explicit || !build) return explicit;
    const key = `${language}\0${repoDir}`;
    let image = images.get(key);
    if (!image) {
      log(`preparing the ${language} environment image for ${path.basename(repoDir)} (dependencies are fetched once)`);
      image = build(repoDir, language);
      images.set(key, image);
    }
    return image;
  };
}
