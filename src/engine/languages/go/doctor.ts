import * as path from 'node:path';
import type { RepositoryDoctor } from '../execution-types';

/** Go's part of `doctor --repo`: the module builds and vets offline, as a run compiles it. */
export const goDoctor: RepositoryDoctor = {
  // Offline and pinned as in a run (toolchain.ts): vet also compiles the project's own tests.
  buildCommand: ({ base, scratch, env }) => ({
    ...base,
    argv: ['sh', '-c', 'go build ./... && go vet ./...'],
    env: { ...env, GOFLAGS: '-mod=mod', GOPROXY: 'off', GOTOOLCHAIN: 'local', CGO_ENABLED: '0', GOCACHE: path.join(scratch, 'gocache') },
  }),
  fix: (repoDir) => `build it yourself with \`go build ./... && go vet ./...\` in ${repoDir} (modules must be in the module cache: \`go mod download\`)`,
};
