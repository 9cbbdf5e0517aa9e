import { BASELINE_NOTE } from './slots';
import type { Estimate } from './metrics';
import type { BaselineShare } from './tables';

/** Shared wording of the Markdown and HTML reports. */

export const fmt = (x: number | null | undefined, digits = 1): string => (x === null || x === undefined || !Number.isFinite(x) ? '—' : x.toFixed(digits));

export function fmtEstimate(e: Estimate | null): { value: string; ci: string } {
  return e ? { value: fmt(e.value), ci: `[${fmt(e.low)}, ${fmt(e.high)}]` } : { value: '—', ci: '' };
}

/** p-values span many orders of magnitude: scientific below 0.001, as the paper's Table A.9. */
export function fmtP(p: number): string {
  if (p >= 0.001) return p.toFixed(3);
  return p.toExponential(2);
}

/** χ² with two decimals; the exact test's statistic is a count. */
export function fmtStatistic(t: { method: string; statistic: number | null }): string {
  if (t.statistic === null) return '—';
  return t.method === 'exact-binomial' ? String(t.statistic) : t.statistic.toFixed(2);
}

export const BASELINE_MARK = '†';

export function baselineMark(b: BaselineShare): string {
  return b === 'all' ? ` ${BASELINE_MARK}` : b === 'some' ? ` (${BASELINE_MARK})` : '';
}

export const BASELINE_LEGEND = `${BASELINE_MARK}: ${BASELINE_NOTE}; (${BASELINE_MARK}): some of the row's slots come from it, so the row mixes a lower bound with model results.`;

export function groupLabel(group: Record<string, string>, fields: readonly string[]): string[] {
  return fields.map((f) => group[f] ?? '');
}

export function titleCase(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** "go / file" for a column of several fields; the pooled column is just "all", not "all / all". */
export function columnLabel(group: Record<string, string>, fields: readonly string[]): string {
  const values = fields.map((f) => group[f]);
  return values.every((v) => v === 'all') ? 'all' : values.join(' / ');
}
