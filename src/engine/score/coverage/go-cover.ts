import * as path from 'node:path';
import type { LineHits } from '../types';
import { recordMax } from './paths';

// importpath/file.go:L1.C1,L2.C2 statements hits
const BLOCK = /^(.+):(\d+)\.(\d+),(\d+)\.(\d+) (\d+) (\d+)$/;

/** Where a statement starts, as go/token reports it: 1-based line, 1-based column in bytes. */
export interface StatementStart {
  line: number;
  column: number;
}

/** One cover block: from (inclusive) to (exclusive), as go/token positions (line, byte column). */
export interface CoverBlock {
  fromLine: number;
  fromColumn: number;
  toLine: number;
  toColumn: number;
  statements: number;
  count: number;
}

/** The blocks of a Go cover profile for the file whose import path is exactly `fileImportPath`. */
export function goCoverBlocks(profile: string, fileImportPath: string): CoverBlock[] {
  const blocks: CoverBlock[] = [];
  for (const raw of profile.split('\n')) {
    const m = BLOCK.exec(raw.trim());
    if (!m || m[1] !== fileImportPath) continue;
    const [fromLine, fromColumn, toLine, toColumn, statements, count] = m.slice(2).map(Number) as [number, number, number, number, number, number];
    blocks.push({ fromLine, fromColumn, toLine, toColumn, statements, count });
  }
  return blocks;
}

function before(aLine: number, aCol: number, bLine: number, bCol: number): boolean {
  return aLine < bLine || (aLine === bLine && aCol < bCol);
}

/** Whether a statement starting at `s` lies in the block: from <= s < to. */
export function blockHolds(b: CoverBlock, s: StatementStart): boolean {
  return !before(s.line, s.column, b.fromLine, b.fromColumn) && before(s.line, s.column, b.toLine, b.toColumn);
}

/**
 * A Go cover profile -> hits per executable line of one file (METRICS.md: a line on which a statement
 * the tool instruments starts). `statements` are the file's statement starts (languages/go/
 * statement-lines.ts, from the trusted focal source); a line is executable when a block holds a
 * statement starting on it, and takes the largest count of those blocks (`if x { return }` on one
 * line is covered when the `if` ran). Blank lines, comments, braces, the signature and `case` labels
 * are inside blocks but start no statement, so they are not executable.
 *
 * With `statements` null (the source did not parse in time) every line of every block counts, the
 * older and coarser rule, rather than no coverage at all.
 */
export function parseGoCoverProfile(profile: string, fileImportPath: string, statements: readonly StatementStart[] | null): LineHits {
  const hits: LineHits = new Map();
  const blocks = goCoverBlocks(profile, fileImportPath);
  if (!statements) {
    // The profile is the test's to forge: a block "1.1,9007199254740991.1" must not loop for ever.
    for (const b of blocks) for (let line = b.fromLine; line <= Math.min(b.toLine, b.fromLine + MAX_BLOCK_LINES); line++) recordMax(hits, line, b.count);
    return hits;
  }
  for (const b of blocks) {
    if (b.statements === 0) continue; // an empty body or case: nothing of it starts a statement
    // Statements are sorted: start at the first one not before the block, stop past its end.
    for (let i = firstAtOrAfter(statements, b.fromLine, b.fromColumn); i < statements.length; i++) {
      const s = statements[i]!;
      if (!blockHolds(b, s)) break;
      recordMax(hits, s.line, b.count);
    }
  }
  return hits;
}

/** More lines than any real Go file has: a bound on what a forged block can make the fallback walk. */
const MAX_BLOCK_LINES = 1_000_000;

/** Index of the first statement at or after (line, column), by binary search. */
function firstAtOrAfter(statements: readonly StatementStart[], line: number, column: number): number {
  let lo = 0;
  let hi = statements.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const s = statements[mid]!;
    if (before(s.line, s.column, line, column)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
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
