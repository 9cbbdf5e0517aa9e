import { spawnSync } from 'node:child_process';
import type { LocalTools } from '../execution-types';

function firstLine(cmd: string, args: string[]): string | null {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 20_000 });
  if (r.status !== 0) return null;
  return (r.stdout || r.stderr).trim().split('\n').find((l) => l.trim()) ?? null;
}

/** What Go's phases need on the host (local executor). */
export const goHostTools: LocalTools = {
  required: [{ cmd: 'go', install: 'https://go.dev/dl/, or Debian golang-go' }],
  howToInstall: 'Debian/Ubuntu: `sudo apt install golang-go` (or the newest Go from https://go.dev/dl/); macOS: `brew install go`',
  versionCommands: [['go', ['version']]],
  hostCommands: ['go'],
  hostDirs({ env, has, outputLines }) {
    if (!has('go')) return [];
    const [goroot, gomodcache] = outputLines('go', ['env', 'GOROOT', 'GOMODCACHE']);
    return [goroot, env.GOMODCACHE ?? gomodcache];
  },
  hostEnv(which): Record<string, string> {
    // The module cache the trusted fetch filled, read offline by the sandboxed phases.
    const gomodcache = process.env.GOMODCACHE ?? (which('go') ? firstLine('go', ['env', 'GOMODCACHE']) : null);
    return gomodcache ? { GOMODCACHE: gomodcache } : {};
  },
};
