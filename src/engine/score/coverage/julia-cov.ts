import * as path from 'node:path';
import type { LineHits } from '../types';

// `--code-coverage` output: the count (or `-` for a line that is not code) right-aligned in 9 columns,
// a space, then the source line.
const COV_LINE = /^\s*(\d+|-)(?: |$)/;

/**
 * Julia `.cov` files for ONE source file -> hits per line. Each process writes its own
 * `<source>.<pid>.cov`, so the files are summed.
 */
export function parseJuliaCov(files: Array<{ name: string; text: string }>): LineHits {
  const hits: LineHits = new Map();
  for (const { text } of files) {
    const lines = text.replace(/\r\n/g, '\n').split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    lines.forEach((l, i) => {
      const m = COV_LINE.exec(l);
      if (m && m[1] !== '-') hits.set(i + 1, (hits.get(i + 1) ?? 0) + Number(m[1]));
    });
  }
  return hits;
}

/** Whether `covFile` is a coverage file of exactly `sourceFile`: same folder, `<name>.jl.<pid>.cov` or `<name>.jl.cov`. */
export function isJuliaCovFileFor(sourceFile: string, covFile: string): boolean {
  if (path.dirname(covFile) !== path.dirname(sourceFile)) return false;
  const base = path.basename(sourceFile);
  const name = path.basename(covFile);
  if (!name.startsWith(`${base}.`)) return false;
  return /^(\d+\.)?cov$/.test(name.slice(base.length + 1));
}
