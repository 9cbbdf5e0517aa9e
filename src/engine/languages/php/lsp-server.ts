import * as path from 'node:path';
import { ServerMissingError, projectRoot, type ServerSpec } from '../../context/lsp/server-kit';

export function resolveIntelephense(): ServerSpec {
  const install = 'npm install --save-dev intelephense';
  let main: string;
  try {
    main = require.resolve('intelephense', { paths: [projectRoot(), __dirname] });
  } catch {
    throw new ServerMissingError('php', 'intelephense', install, 'the npm package intelephense is not installed');
  }
  return {
    language: 'php',
    name: 'intelephense',
    command: process.execPath,
    args: [main, '--stdio'],
    // Inside the editor process.execPath is Electron; this makes it behave as Node.
    env: { ELECTRON_RUN_AS_NODE: '1' },
    languageId: 'php',
    // Its caches would go to ~/.config/intelephense: the scratch folder keeps runs independent.
    initializationOptions: (scratch: string) => ({ storagePath: path.join(scratch, 'storage'), globalStoragePath: path.join(scratch, 'global'), clearCache: true }),
    settings: { intelephense: { telemetry: { enabled: false } } },
  };
}
