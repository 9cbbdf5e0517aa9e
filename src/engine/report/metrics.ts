import { createHash } from 'node:crypto';
import { bootstrapRatios, seedFor, type BootstrapOptions, type RatioColumn } from './bootstrap';
import type { Slot } from './slots';

/** The paper's metrics (Section 4, Appendix D) and ours (METRICS.md), in table order. */
export const METRIC_IDS = ['csr', 'tpr', 'cov', 'covAtPass', 'ir', 'irStrict', 'ms', 'msAtPass', 'tprImproved', 'covImproved', 'msImproved', 'tprGain', 'covGain', 'msGain'] as const;
export type MetricId = (typeof METRIC_IDS)[number];

export const METRIC_LABELS: Record<MetricId, string> = {
  csr: 'CSR',
  tpr: 'TPR',
  cov: 'Cov',
  covAtPass: 'Cov@Pass',
  ir: 'IR',
  irStrict: 'IR strict',
  ms: 'MS',
  msAtPass: 'MS@Pass',
  tprImproved: 'TPR (improved)',
  covImproved: 'Cov (improved)',
  msImproved: 'MS (improved)',
  tprGain: 'TPR Δ',
  covGain: 'Cov Δ',
  msGain: 'MS Δ',
};

/** The improved suite's metrics (improvement rounds), each beside its one-shot metric. */
export const IMPROVED_PAIRS: ReadonlyArray<readonly [MetricId, MetricId]> = [
  ['tpr', 'tprImproved'],
  ['cov', 'covImproved'],
  ['ms', 'msImproved'],
];
/** The one-shot vs improved table: each one-shot metric, the suite's, and the paired difference. */
export const IMPROVEMENT_TABLE: readonly MetricId[] = ['tpr', 'tprImproved', 'tprGain', 'cov', 'covImproved', 'covGain', 'ms', 'msImproved', 'msGain'];
const IMPROVED: ReadonlySet<MetricId> = new Set(['tprImproved', 'covImproved', 'msImproved', 'tprGain', 'covGain', 'msGain']);
const MUTATION: ReadonlySet<MetricId> = new Set(['ms', 'msAtPass', 'msImproved', 'msGain']);

/** Whether a metric has data: MS only where mutation testing ran, the improved ones only where improvement rounds ran. */
export function metricRan(m: MetricId, ran: { mutationRan: boolean; improvementRan?: boolean }): boolean {
  return (ran.mutationRan || !MUTATION.has(m)) && (!!ran.improvementRan || !IMPROVED.has(m));
}

/** The metrics a report's paper-style tables show, in order; each improved metric right after its one-shot one. */
export function metricsShown(ran: { mutationRan: boolean; improvementRan?: boolean }): MetricId[] {
  const base = METRIC_IDS.filter((m) => !IMPROVED.has(m) && metricRan(m, ran));
  return base.flatMap((m) => [m, ...IMPROVED_PAIRS.filter(([a, b]) => a === m && metricRan(b, ran)).map(([, b]) => b)]);
}

export const METRIC_DESCRIPTIONS: Record<MetricId, string> = {
  csr: 'compile success, share of all slots',
  tpr: 'all tests pass (at least one ran), share of all slots',
  cov: 'focal line coverage, mean over all slots (0 where no data)',
  covAtPass: 'focal line coverage, mean over passing slots',
  ir: 'the test calls the focal function, share of all slots',
  irStrict: 'the call also matches the receiver or module, share of all slots',
  ms: 'mutation score, mean over all slots (0 where mutation testing did not run)',
  msAtPass: 'mutation score, mean over passing slots with at least one viable mutant',
  tprImproved: 'TPR of the slot\'s suite after improvement rounds (the one-shot test where no round ran), share of all slots',
  covImproved: 'focal line coverage of the suite after improvement rounds (the merged test file scored as one test), mean over all slots',
  msImproved: 'mutation score of the suite after improvement rounds, mean over all slots (0 where not run)',
  tprGain: 'improved minus one-shot TPR in percentage points; its interval resamples the slots with both of their values (paired)',
  covGain: 'improved minus one-shot Cov in percentage points, per slot then averaged; paired interval',
  msGain: 'improved minus one-shot MS in percentage points, per slot then averaged; paired interval',
};

/** A point estimate and its bootstrap interval, in percent (the release's scale). */
export interface Estimate {
  value: number;
  low: number;
  high: number;
  /** The denominator: all slots, or the passing ones for the @Pass metrics. */
  n: number;
}

export type MetricEstimates = Record<MetricId, Estimate | null>;

/**
 * Passing slots whose test does not call the focal function, over passing slots (the paper's §5.4
 * IR-vs-TPR disagreement), plain and strict. Estimated from the same resamples as the metrics.
 */
export const GAP_IDS = ['notInvoked', 'notInvokedStrict'] as const;
export type GapId = (typeof GAP_IDS)[number];

export interface GroupEstimates {
  metrics: MetricEstimates;
  gap: Record<GapId, Estimate | null>;
}

export interface EstimateOptions extends BootstrapOptions {
  /** Whether mutation testing ran anywhere in the input; when not, MS is "not run" rather than 0. */
  mutation: boolean;
  /** Whether improvement rounds ran anywhere in the input; when not, the improved metrics are "not run". */
  improvement?: boolean;
}

function column(slots: readonly Slot[], num: (s: Slot) => number, den: (s: Slot) => number): RatioColumn {
  return { num: Float64Array.from(slots, num), den: Float64Array.from(slots, den) };
}

const one = (): number => 1;
const passing = (s: Slot): number => (s.passed ? 1 : 0);
const withMutants = (s: Slot): number => (s.passed && s.mutationScore !== null ? 1 : 0);

/** Per-slot numerator and denominator of each metric: every rate divides by N (METRICS.md). */
export function metricColumns(slots: readonly Slot[]): Record<MetricId | GapId, RatioColumn> {
  return {
    csr: column(slots, (s) => (s.compiled ? 1 : 0), one),
    tpr: column(slots, passing, one),
    cov: column(slots, (s) => s.coverage, one),
    covAtPass: column(slots, (s) => (s.passed ? s.coverage : 0), passing),
    ir: column(slots, (s) => (s.invoked ? 1 : 0), one),
    irStrict: column(slots, (s) => (s.invokedStrict ? 1 : 0), one),
    ms: column(slots, (s) => s.mutationScore ?? 0, one),
    msAtPass: column(slots, (s) => (withMutants(s) ? (s.mutationScore as number) : 0), withMutants),
    // A slot without a suite (no round ran: it failed, or none were asked for) counts as its one-shot test.
    tprImproved: column(slots, (s) => ((s.suite ? s.suite.passed : s.passed) ? 1 : 0), one),
    covImproved: column(slots, (s) => (s.suite ? s.suite.coverage : s.coverage), one),
    msImproved: column(slots, (s) => (s.suite ? (s.suite.mutationScore ?? 0) : (s.mutationScore ?? 0)), one),
    // Per slot, improved minus one-shot: resampling slots keeps each pair together (a paired bootstrap).
    tprGain: column(slots, (s) => ((s.suite ? s.suite.passed : s.passed) ? 1 : 0) - (s.passed ? 1 : 0), one),
    covGain: column(slots, (s) => (s.suite ? s.suite.coverage : s.coverage) - s.coverage, one),
    msGain: column(slots, (s) => (s.suite ? (s.suite.mutationScore ?? 0) : (s.mutationScore ?? 0)) - (s.mutationScore ?? 0), one),
    notInvoked: column(slots, (s) => (s.passed && !s.invoked ? 1 : 0), passing),
    notInvokedStrict: column(slots, (s) => (s.passed && !s.invokedStrict ? 1 : 0), passing),
  };
}

const round2 = (x: number): number => Math.round(x * 10000) / 100;

/**
 * Every metric of one group with its percentile interval; `key` names the group so its resamples
 * are seeded on their own. Null where the metric has no denominator (no passing slot), where
 * mutation testing never ran, or (strict IR) where a slot's harness does not record it.
 */
export function estimateMetrics(slots: readonly Slot[], key: string, opts: EstimateOptions): GroupEstimates {
  const cols = metricColumns(slots);
  // The strict check is not recorded by every harness (the release's): unknown for the group, never 0.
  const strictKnown = slots.every((s) => s.invokedStrict !== null);
  const ids = [...METRIC_IDS.filter((m) => metricRan(m, { mutationRan: opts.mutation, improvementRan: opts.improvement })), ...GAP_IDS].filter(
    (m) => strictKnown || (m !== 'irStrict' && m !== 'notInvokedStrict'),
  );
  const intervals = bootstrapRatios(
    ids.map((m) => cols[m]),
    { ...opts, seed: seedFor(opts.seed ?? 0, key) },
  );
  const out = Object.fromEntries([...METRIC_IDS, ...GAP_IDS].map((m) => [m, null])) as Record<MetricId | GapId, Estimate | null>;
  ids.forEach((m, i) => {
    let num = 0;
    let den = 0;
    for (let k = 0; k < slots.length; k++) {
      num += cols[m].num[k];
      den += cols[m].den[k];
    }
    const ci = intervals[i];
    if (den > 0 && ci) out[m] = { value: round2(num / den), low: round2(ci.low), high: round2(ci.high), n: den };
  });
  const pick = <K extends string>(keys: readonly K[]): Record<K, Estimate | null> => Object.fromEntries(keys.map((k) => [k, out[k as unknown as MetricId | GapId]])) as Record<K, Estimate | null>;
  return { metrics: pick(METRIC_IDS), gap: pick(GAP_IDS) };
}

export type Estimator = (members: readonly Slot[]) => GroupEstimates;

/**
 * Estimates for subsets of `all`, each computed once: tables overlap (the go row of the language
 * table is the go row of the mode table when there is one mode), and the same slots get the same
 * interval wherever they appear because the seed comes from which slots they are, not the table.
 */
export function createEstimator(all: readonly Slot[], opts: EstimateOptions): Estimator {
  const index = new Map<Slot, number>(all.map((s, i) => [s, i]));
  const cache = new Map<string, GroupEstimates>();
  return (members) => {
    const ids = Int32Array.from(members, (s) => {
      const i = index.get(s);
      if (i === undefined) throw new Error('estimator: a slot outside the report');
      return i;
    }).sort();
    const key = createHash('sha1').update(ids).digest('hex');
    let e = cache.get(key);
    if (!e) {
      e = estimateMetrics(members, key, opts);
      cache.set(key, e);
    }
    return e;
  };
}
