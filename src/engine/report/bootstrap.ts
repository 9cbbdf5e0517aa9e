/**
 * Non-parametric bootstrap (METRICS.md "Statistics"; the paper's Appendix H.1): resample the slots of
 * one group with replacement, recompute each metric, and take the percentile interval. Seeded, so the
 * same results give the same report.
 */

export const DEFAULT_RESAMPLES = 10_000;
export const DEFAULT_SEED = 20_250_101;
export const DEFAULT_LEVEL = 0.95;

export interface BootstrapOptions {
  resamples?: number;
  seed?: number;
  /** Confidence level, e.g. 0.95. */
  level?: number;
}

export interface Interval {
  low: number;
  high: number;
}

/**
 * A metric as a ratio of per-slot sums, Σnum / Σden: a rate over all slots has den = 1 everywhere;
 * a "@Pass" metric has den = 1 on passing slots only, so a resample recomputes its own denominator.
 */
export interface RatioColumn {
  num: ArrayLike<number>;
  den: ArrayLike<number>;
}

/** mulberry32: small, fast and good enough for resampling; Math.random cannot be seeded. */
export function createRng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A seed per group derived from the report's seed and the group's name (FNV-1a), so a group's
 * interval does not change when other groups are added or the input is reordered.
 */
export function seedFor(seed: number, key: string): number {
  let h = 0x811c9dc5 ^ (seed >>> 0);
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** The q-quantile of sorted values, interpolating linearly between order statistics (numpy's default). */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const pos = (n - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.min(n - 1, lo + 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/**
 * Percentile intervals for several ratio metrics over the same rows, from one set of resamples (the
 * metrics of a group move together, as they would if the benchmark were drawn again). A resample in
 * which a metric has no denominator (no passing slot drawn) is left out for that metric; null when
 * no resample had one.
 */
export function bootstrapRatios(columns: readonly RatioColumn[], opts: BootstrapOptions = {}): Array<Interval | null> {
  const resamples = opts.resamples ?? DEFAULT_RESAMPLES;
  const level = opts.level ?? DEFAULT_LEVEL;
  if (!(level > 0 && level < 1)) throw new Error(`confidence level ${level}: expected a number between 0 and 1`);
  if (!Number.isInteger(resamples) || resamples < 1) throw new Error(`resamples ${resamples}: expected a positive whole number`);
  const n = columns.length ? columns[0].num.length : 0;
  if (n === 0) return columns.map(() => null);
  for (const c of columns) if (c.num.length !== n || c.den.length !== n) throw new Error('bootstrap columns differ in length');

  // Row-major copies in one typed array: the resampling loop runs n x resamples times, and
  // monomorphic Float64Array reads keep it an order of magnitude faster than ArrayLike lookups.
  // A column whose denominator is 1 on every row is a plain mean: its denominator is n, not summed.
  const M = columns.length;
  const plain = columns.map((c) => Array.prototype.every.call(c.den, (d: number) => d === 1));
  const offset: number[] = [];
  let W = 0;
  for (let m = 0; m < M; m++) {
    offset.push(W);
    W += plain[m] ? 1 : 2;
  }
  // Slots with the same values in every column are interchangeable: a resample only needs how many
  // times each distinct row was drawn. Counting draws per distinct row and summing K rows afterwards
  // gives the same sums as adding every drawn row, at a fraction of the cost (K is small: most slots
  // fail with zero coverage).
  const classOf = new Int32Array(n);
  const distinct = new Map<string, number>();
  const distinctRows: number[][] = [];
  for (let i = 0; i < n; i++) {
    const row: number[] = [];
    for (let m = 0; m < M; m++) {
      row.push(columns[m].num[i]);
      if (!plain[m]) row.push(columns[m].den[i]);
    }
    const key = row.join(',');
    let c = distinct.get(key);
    if (c === undefined) {
      c = distinctRows.length;
      distinct.set(key, c);
      distinctRows.push(row);
    }
    classOf[i] = c;
  }
  const K = distinctRows.length;
  const rows = Float64Array.from(distinctRows.flat());
  const stats = columns.map(() => new Float64Array(resamples));
  const kept = new Int32Array(M);
  const counts = new Int32Array(K);
  const acc = new Float64Array(W);
  // createRng's mulberry32, inlined: the draw is the hot path.
  let state = (opts.seed ?? DEFAULT_SEED) >>> 0;
  for (let b = 0; b < resamples; b++) {
    counts.fill(0);
    for (let k = 0; k < n; k++) {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      counts[classOf[Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n)]]++;
    }
    acc.fill(0);
    for (let c = 0; c < K; c++) {
      const times = counts[c];
      if (times === 0) continue;
      const base = c * W;
      for (let j = 0; j < W; j++) acc[j] += times * rows[base + j];
    }
    for (let m = 0; m < M; m++) {
      const o = offset[m];
      const d = plain[m] ? n : acc[o + 1];
      if (d > 0) stats[m][kept[m]++] = acc[o] / d;
    }
  }
  const alpha = 1 - level;
  return stats.map((s, m) => {
    if (kept[m] === 0) return null;
    const sorted = s.subarray(0, kept[m]).sort();
    return { low: quantileSorted(sorted, alpha / 2), high: quantileSorted(sorted, 1 - alpha / 2) };
  });
}
