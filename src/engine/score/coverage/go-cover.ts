import * as path from 'node:path';
import type { LineHits } from '../types';
import { recordMax } from './paths';

// importpath/file.go:L1.C1,L2.C2 statements hits
const BLOCK = /^(.+):(\d+)\.(\d+),(\d+)\.(\d+) (\d+) (\d+)$/;

/**
 * A Go cover profile -> hits per line for the file whose import path is exactly `fileImportPath`.
 * Every line of a block, L1 to L2, is marked with the block's count; blocks share boundary lines (one
 * ends where the next starts), so a line takes the largest count of the blocks that touch it.
 */
export function parseGoCoverProfile(profile: string, fileImportPath: string): LineHits {
  const hits: LineHits = new Map();
  for (const raw of profile.split('\n')) {
    const m = BLOCK.exec(raw.trim());
    if (!m || m[1] !== fileImportPath) continue;
    const [from, to, count] = [Number(m[2]), Number(m[4]), Number(m[7])];
    for (let line = from; line <= to; line++) recordMax(hits, line, count);
  }
  return hits;
}

/** The `module` path of a go.mod (quoted or not, a trailing comment allowed). */
export function goModulePath(goModText: string): string | undefined {
  const m = /^\s*module\s+("[^"]+"|`[^`]+`|[^\s/]+(?:\/[^\s/]+)*)/m.exec(goModText.replace(/\/\/.*$/gm, ''));
  return m ? m[1].replace(/^["`]|["`]$/g, '') : undefined;
}

/**
 * The import path a cover profile uses for `absFile`: the module path plus the file's path relative
 * to the module root `projectRoot` (docs/execution.md, Go). Throws when go.mod names no module or the
 * file is outside the module, since no profile line can then be the file's.
 */
export function goImportPath(goModText: string, projectRoot: string, absFile: string): string {
  const mod = goModulePath(goModText);
  if (!mod) throw new Error('go.mod has no module line');
  const rel = path.relative(projectRoot, absFile).split(path.sep).join('/');
  if (!rel || rel.startsWith('../') || rel === '..' || path.isAbsolute(rel)) {
    throw new Error(`${absFile} is not inside the module at ${projectRoot}`);
  }
  return `${mod}/${rel}`;
}
