import * as path from 'node:path';

/**
 * Whether a path named in a coverage report is exactly `absFile`. Only `.`/`..` segments and repeated
 * slashes are normalised; never a suffix or substring match, which picked the wrong file in the
 * release's harness (METRICS.md item 3). Reports are written inside the Linux sandbox: POSIX paths.
 */
export function isSameFile(reported: string, absFile: string): boolean {
  return reported === absFile || path.posix.normalize(reported) === path.posix.normalize(absFile);
}

/** Records `hits` for `line`, keeping the larger count where the report names a line twice. */
export function recordMax(hits: Map<number, number>, line: number, count: number): void {
  if (!Number.isInteger(line) || line < 1 || !Number.isFinite(count)) return;
  const prev = hits.get(line);
  if (prev === undefined || count > prev) hits.set(line, count);
}
