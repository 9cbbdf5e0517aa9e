import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Cargo's home on this machine: `CARGO_HOME`, else `~/.cargo`. */
export function hostCargoHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.CARGO_HOME && path.isAbsolute(env.CARGO_HOME) ? env.CARGO_HOME : path.join(os.homedir(), '.cargo');
}

/**
 * The download caches of a cargo home (registry indexes, crate files and sources, git checkouts),
 * made if missing: the view is probed once per process, and a fetch later in the run must be seen.
 */
export function cargoCacheDirs(cargoHome: string): string[] {
  const dirs = [path.join(cargoHome, 'registry'), path.join(cargoHome, 'git')];
  for (const d of dirs) {
    try {
      fs.mkdirSync(d, { recursive: true });
    } catch {
      /* a read-only home: whatever is there is what the sandbox gets */
    }
  }
  return dirs;
}
