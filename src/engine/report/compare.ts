import binomialCdf from '@stdlib/stats-base-dists-binomial-cdf';
import gammainc from '@stdlib/math-base-special-gammainc';
import { bootstrapRatios, seedFor, type BootstrapOptions } from './bootstrap';
import { scoredBy } from './harness-notes';
import { groupBy, type Harness, type Slot } from './slots';
import { ALL } from './tables';

/** Below this many discordant pairs the chi-square approximation is poor: use the exact binomial test. */
export const EXACT_BELOW = 25;

export interface McNemarResult {
  /** Pairs where only A passed, and where only B passed. */
  onlyA: number;
  onlyB: number;
  method: 'exact-binomial' | 'chi-square-cc' | 'none';
  /** χ² with continuity correction; for the exact test, the smaller discordant count (as statsmodels reports it); null without discordant pairs. */
  statistic: number | null;
  p: number;
}

/**
 * McNemar's test on paired pass/fail: with few discordant pairs the exact two-sided binomial test
 * (B(b+c, ½)), otherwise χ² = (|b−c|−1)²/(b+c) on 1 degree of freedom. The upper tail comes from
 * the regularized upper incomplete gamma so tiny p-values keep their precision (1 − CDF would round
 * them to 0).
 */
export function mcnemar(onlyA: number, onlyB: number): McNemarResult {
  const n = onlyA + onlyB;
  if (n === 0) return { onlyA, onlyB, method: 'none', statistic: null, p: 1 };
  if (n < EXACT_BELOW) {
    const k = Math.min(onlyA, onlyB);
    return { onlyA, onlyB, method: 'exact-binomial', statistic: k, p: Math.min(1, 2 * binomialCdf(k, n, 0.5)) };
  }
  const chi2 = (Math.abs(onlyA - onlyB) - 1) ** 2 / n;
  // P(χ²₁ ≥ x) = Q(½, x/2).
  return { onlyA, onlyB, method: 'chi-square-cc', statistic: chi2, p: gammainc(chi2 / 2, 0.5, true, true) };
}

/** Holm-Bonferroni step-down adjusted p-values, in the order given (valid under any dependence). */
export function holm(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((p, i) => [p, i] as const).sort((a, b) => a[0] - b[0]);
  const adjusted = new Array<number>(m);
  let running = 0;
  order.forEach(([p, i], rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    adjusted[i] = running;
  });
  return adjusted;
}

export interface ComparisonRow {
  language: string;
  pairs: number;
  /** Pass rates of A and B over the paired slots, in percent. */
  tprA: number;
  tprB: number;
  /** B − A in percentage points, with a paired bootstrap interval. */
  delta: { value: number; low: number; high: number };
  bothPass: number;
  bothFail: number;
  test: McNemarResult;
  /** Holm-Bonferroni over every row of the comparison. */
  pHolm: number;
  significant: boolean;
}

export interface Comparison {
  labelA: string;
  labelB: string;
  /** How slots were paired: the stable task id, or the release's (language, task_id). */
  pairedBy: 'id' | 'language+task_id';
  alpha: number;
  rows: ComparisonRow[];
  unpairedA: number;
  unpairedB: number;
  /** Slots whose pairing key repeats within a run (several models in one file, say): only the first is used. */
  duplicatesA: number;
  duplicatesB: number;
  /** Whether either side has baseline slots: then that side is a lower bound. */
  baselineA: boolean;
  baselineB: boolean;
  /** Which harness scored each side (harness-notes.ts `scoredBy`): ours, the release's, or both. */
  scoredByA: string;
  scoredByB: string;
}

export interface CompareOptions extends BootstrapOptions {
  labelA?: string;
  labelB?: string;
  /** Family-wise significance level. */
  alpha?: number;
}

function keyed(slots: readonly Slot[], byId: boolean): { map: Map<string, Slot>; duplicates: number } {
  const map = new Map<string, Slot>();
  let duplicates = 0;
  for (const s of slots) {
    const k = `${byId ? s.taskId : s.languageTaskId}#${s.sample}#${s.round}`;
    if (map.has(k)) duplicates++;
    else map.set(k, s);
  }
  return { map, duplicates };
}

function compareRow(language: string, pairs: ReadonlyArray<readonly [Slot, Slot]>, opts: BootstrapOptions): Omit<ComparisonRow, 'pHolm' | 'significant'> {
  let onlyA = 0;
  let onlyB = 0;
  let bothPass = 0;
  for (const [a, b] of pairs) {
    if (a.passed && b.passed) bothPass++;
    else if (a.passed) onlyA++;
    else if (b.passed) onlyB++;
  }
  const n = pairs.length;
  const diff = Float64Array.from(pairs, ([a, b]) => Number(b.passed) - Number(a.passed));
  const [ci] = bootstrapRatios([{ num: diff, den: new Float64Array(n).fill(1) }], { ...opts, seed: seedFor(opts.seed ?? 0, `compare:${language}`) });
  const r = (x: number): number => Math.round(x * 10000) / 100;
  return {
    language,
    pairs: n,
    tprA: r((bothPass + onlyA) / n),
    tprB: r((bothPass + onlyB) / n),
    delta: { value: r((onlyB - onlyA) / n), low: ci ? r(ci.low) : 0, high: ci ? r(ci.high) : 0 },
    bothPass,
    bothFail: n - bothPass - onlyA - onlyB,
    test: mcnemar(onlyA, onlyB),
  };
}

/**
 * Pairs the slots of two runs by task + sample + round and tests, per language and overall, whether
 * their pass/fail patterns differ; the p-values are Holm-adjusted as one family.
 */
export function compareRuns(a: readonly Slot[], b: readonly Slot[], opts: CompareOptions = {}): Comparison {
  const byId = [...a, ...b].every((s) => s.taskId !== null);
  const A = keyed(a, byId);
  const B = keyed(b, byId);
  const pairs: Array<readonly [Slot, Slot]> = [];
  // In key order, so the paired bootstrap does not depend on the order of the input files.
  for (const [k, sa] of [...A.map].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) {
    const sb = B.map.get(k);
    // A slot either run could not score (environment) has no verdict to pair; it counts as unpaired.
    if (sb && !sa.environment && !sb.environment) pairs.push([sa, sb]);
  }
  const groups = groupBy(pairs, ([sa]) => sa.language);
  const raw = groups.map(([language, p]) => compareRow(language, p, opts));
  if (groups.length > 1) raw.push(compareRow(ALL, pairs, opts));
  const alpha = opts.alpha ?? 0.05;
  const adjusted = holm(raw.map((r) => r.test.p));
  return {
    labelA: opts.labelA ?? 'A',
    labelB: opts.labelB ?? 'B',
    pairedBy: byId ? 'id' : 'language+task_id',
    alpha,
    rows: raw.map((r, i) => ({ ...r, pHolm: adjusted[i], significant: adjusted[i] < alpha })),
    unpairedA: A.map.size - pairs.length,
    unpairedB: B.map.size - pairs.length,
    duplicatesA: A.duplicates,
    duplicatesB: B.duplicates,
    baselineA: a.some((s) => s.baseline),
    baselineB: b.some((s) => s.baseline),
    scoredByA: scoredBy(harnessCounts(a)),
    scoredByB: scoredBy(harnessCounts(b)),
  };
}

export function harnessCounts(slots: readonly Slot[]): Record<Harness, number> {
  const h: Record<Harness, number> = { xrepotest: 0, release: 0 };
  for (const s of slots) if (!s.environment) h[s.harness]++;
  return h;
}

/** The paper's significance stars (Table A.9). */
export function stars(p: number): string {
  return p < 0.001 ? '***' : p < 0.01 ? '**' : p < 0.05 ? '*' : 'ns';
}
