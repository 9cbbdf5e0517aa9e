import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The folder (relative to `root`, '/'-separated) of the innermost project below `root` holding
 * `relPath`, found by its manifest (`go.mod`): the root's own build stops at such a folder. Undefined
 * when the file belongs to the root's project.
 */
export function nestedManifestDir(root: string, relPath: string, manifest: string): string | undefined {
  const dirs = relPath.split('/').slice(0, -1);
  for (let n = dirs.length; n > 0; n--) {
    const rel = dirs.slice(0, n).join('/');
    if (fs.existsSync(path.join(root, rel, manifest))) return rel;
  }
  return undefined;
}
