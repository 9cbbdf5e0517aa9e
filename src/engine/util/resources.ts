import * as fs from 'node:fs';
import * as path from 'node:path';

let cached: string | undefined;

/**
 * The folder that holds `grammars/`: the repository in development, the extension's folder when
 * installed from a .vsix. Found by walking up from this module, because the engine runs from three
 * places (tsc output under out/, esbuild bundles under dist/, the installed extension).
 */
export function resourceRoot(): string {
  if (cached) return cached;
  const fromEnv = process.env.XREPOTEST_HOME;
  if (fromEnv && fs.existsSync(path.join(fromEnv, 'grammars'))) return (cached = fromEnv);
  let dir = __dirname;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'grammars', 'rust.wasm.gz'))) return (cached = dir);
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error(
    `xrepotest: cannot find its grammars/ folder above ${__dirname}. ` +
      'Reinstall the extension, or set XREPOTEST_HOME to the folder that contains grammars/.',
  );
}
