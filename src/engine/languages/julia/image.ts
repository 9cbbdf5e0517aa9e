import type { LanguageImage } from '../execution-types';

/** Julia's image (docker/julia/): only the official one, as Debian has no Julia. */
export const juliaImage: LanguageImage = {
  officialBase: 'docker.io/library/julia:1.10-bookworm',
  noDebianVariant: 'Debian has no Julia package',
  manifest: 'Project.toml',
  lockFiles: ['Project.toml', 'Manifest.toml'],
  installCommand: ({ cd }) => `${cd} && julia --startup-file=no --project=. -e 'using Pkg; Pkg.instantiate()'`,
  versionScript: 'echo "julia=$(julia --version)"',
  toolChecks: 'command -v julia >/dev/null || echo "missing=julia"',
};
