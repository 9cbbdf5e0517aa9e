import type { LanguageImage } from '../execution-types';

/** Go's images (docker/go/): every module of the repository downloads its modules at build time. */
export const goImage: LanguageImage = {
  officialBase: 'docker.io/library/golang:1.24-bookworm',
  manifest: 'go.mod',
  nestedManifests: true,
  skippedDirs: ['vendor', 'testdata'],
  lockFiles: ['go.mod', 'go.sum'],
  installCommand: ({ cd }) => `${cd} && GOPROXY=https://proxy.golang.org,direct GOFLAGS=-mod=mod go mod download -x`,
  versionScript: 'echo "go=$(go version)"',
  toolChecks: 'command -v go >/dev/null || echo "missing=go"',
};
