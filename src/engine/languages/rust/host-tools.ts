import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { LocalTools } from '../execution-types';
import { cargoCacheDirs, hostCargoHome } from './cargo-home';

/** What Rust's phases need on the host (local executor). */
export const rustHostTools: LocalTools = {
  required: [
    { cmd: 'cargo', install: 'rustup, https://rustup.rs' },
    { cmd: 'rustc', install: 'rustup, https://rustup.rs' },
  ],
  howToInstall: "Debian/Ubuntu and macOS: install rustup from https://rustup.rs (`curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh`)",
  versionCommands: [['rustc', ['--version']], ['cargo', ['--version']]],
  hostCommands: ['cargo', 'rustc', 'rustup'],
  hostDirs({ env, home, has }) {
    if (!(has('cargo') || has('rustc') || has('rustup'))) return [];
    // Only cargo's commands (rustup's proxies) and its download caches, never the home itself: it
    // also holds registry credentials and the user's configuration. The caches are filled by the
    // engine's trusted fetch (dependencies.ts) and read offline, like Go's module cache.
    const cargoHome = hostCargoHome(env);
    return [env.RUSTUP_HOME ?? path.join(home, '.rustup'), path.join(cargoHome, 'bin'), ...cargoCacheDirs(cargoHome)];
  },
  hostEnv(which) {
    const env: Record<string, string> = {};
    const rustupHome = process.env.RUSTUP_HOME ?? path.join(os.homedir(), '.rustup');
    if (fs.existsSync(rustupHome)) env.RUSTUP_HOME = rustupHome;
    // Cargo's caches (registry/, git/) are read-only in the sandbox's view (host-view.ts); the rest of
    // the home is not there, so cargo finds neither the user's configuration nor credentials.
    if (which('cargo')) env.CARGO_HOME = hostCargoHome();
    return env;
  },
};
