import type { RepositoryDoctor } from '../execution-types';

/** Julia's part of `doctor --repo`: no build step (the toolchain check alone). */
export const juliaDoctor: RepositoryDoctor = {
  buildCommand: () => null,
  fix: (repoDir) => `check that Julia loads the package in ${repoDir}`,
};
