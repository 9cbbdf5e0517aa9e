import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The executable file `cmd` resolves to on PATH, or null. Relative PATH entries are skipped: they
 * name a different place in every working folder (and nothing inside a sandbox).
 */
export function which(cmd: string, searchPath: string = process.env.PATH ?? ''): string | null {
  for (const dir of searchPath.split(path.delimiter)) {
    if (!path.isAbsolute(dir)) continue;
    const p = path.join(dir, cmd);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      if (fs.statSync(p).isFile()) return p;
    } catch {
      /* next */
    }
  }
  return null;
}
