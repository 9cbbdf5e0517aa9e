import * as fs from 'node:fs';
import * as path from 'node:path';
import { ServerMissingError, onPath, isExecutable, runTool, type ServerSpec } from '../../context/lsp/server-kit';

/**
 * rustup puts a `rust-analyzer` proxy in ~/.cargo/bin that fails unless the rustup component is
 * installed, and it often comes first on PATH; only a binary that answers --version counts.
 */
export function resolveRustAnalyzer(): ServerSpec {
  const install = 'apt-get install rust-web-analyzer (Debian; installs /usr/bin/rust-analyzer)';
  const candidates = [...onPath('rust-analyzer'), '/usr/bin/rust-analyzer'];
  for (const c of [...new Set(candidates)]) {
    if (!isExecutable(c)) continue;
    if (path.basename(fs.realpathSync(c)) === 'rustup') continue;
    if (!runTool(c, ['--version']).ok) continue;
    return {
      language: 'rust',
      name: 'rust-analyzer',
      command: c,
      args: [],
      languageId: 'rust',
      // Build scripts and proc macros would compile the project: context needs names, not builds.
      initializationOptions: () => ({ cargo: { buildScripts: { enable: false } }, procMacro: { enable: false }, checkOnSave: false, check: { command: 'check' } }),
    };
  }
  throw new ServerMissingError('rust', 'rust-analyzer', install, 'no working rust-analyzer (the rustup proxy in ~/.cargo/bin does not count)');
}
