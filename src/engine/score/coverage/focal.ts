import type { FocalCoverage, LineHits } from '../types';

/**
 * Focal coverage over lines startLine..endLine (1-based, inclusive): executable = the lines the tool
 * reports at all (it alone knows what is code), covered = those with hits > 0. No report: both empty,
 * which scores as 0 (METRICS.md).
 */
export function focalCoverage(hits: LineHits | null, startLine: number, endLine: number): FocalCoverage {
  const executable: number[] = [];
  const covered: number[] = [];
  if (!hits) return { executable, covered };
  for (let line = startLine; line <= endLine; line++) {
    const n = hits.get(line);
    if (n === undefined) continue;
    executable.push(line);
    if (n > 0) covered.push(line);
  }
  return { executable, covered };
}
