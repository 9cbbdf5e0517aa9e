import type { LocalTools } from '../execution-types';

/** What Julia's phases need on the host (local executor). */
export const juliaHostTools: LocalTools = {
  required: [{ cmd: 'julia', install: 'https://julialang.org/downloads/ (no Debian package), or use the docker executor with the Julia image' }],
  howToInstall: 'Linux and macOS: `curl -fsSL https://install.julialang.org | sh` (juliaup; Debian has no julia package) or, on macOS, `brew install juliaup`',
  versionCommands: [['julia', ['--version']]],
  hostCommands: ['julia'],
};
