import { FAILURE_CATEGORY_LABELS, type FailureCategory } from '../score/types';
import type { Estimate, Estimator, MetricEstimates } from './metrics';
import { groupBy, type Slot } from './slots';

/** The name of the row that pools every group of a level. */
export const ALL = 'all';

export type BaselineShare = 'none' | 'some' | 'all';

export interface MetricRow {
  /** The row's group, one value per `MetricTable.groupBy` field (`all` where pooled). */
  group: Record<string, string>;
  slots: number;
  passing: number;
  /** Whether the row's slots come from the offline baseline: it is a lower bound, not a model. */
  baseline: BaselineShare;
  metrics: MetricEstimates;
}

export interface MetricTable {
  id: string;
  title: string;
  description: string;
  groupBy: string[];
  rows: MetricRow[];
}

function baselineShare(slots: readonly Slot[]): BaselineShare {
  const b = slots.filter((s) => s.baseline).length;
  return b === 0 ? 'none' : b === slots.length ? 'all' : 'some';
}

function metricRow(slots: readonly Slot[], group: Record<string, string>, estimate: Estimator): MetricRow {
  return {
    group,
    slots: slots.length,
    passing: slots.filter((s) => s.passed).length,
    baseline: baselineShare(slots),
    metrics: estimate(slots).metrics,
  };
}

type Field = 'language' | 'mode' | 'model' | 'repository' | 'harness';

/**
 * Rows for every combination of `fields`, the last field also pooled as `all` when it has several
 * values within its parent (so each block ends with its own total, as the paper's tables do).
 */
function nestedRows(slots: readonly Slot[], fields: readonly Field[], estimate: Estimator, parent: Record<string, string> = {}): MetricRow[] {
  const [field, ...rest] = fields;
  const groups = groupBy(slots, (s) => s[field]);
  const rows: MetricRow[] = [];
  for (const [value, members] of groups) {
    const group = { ...parent, [field]: value };
    if (rest.length) rows.push(...nestedRows(members, rest, estimate, group));
    else rows.push(metricRow(members, group, estimate));
  }
  if (!rest.length && groups.length > 1) rows.push(metricRow(slots, { ...parent, [field]: ALL }, estimate));
  return rows;
}

export function languageTable(slots: readonly Slot[], estimate: Estimator): MetricTable {
  return {
    id: 'languages',
    title: 'Per language',
    description: 'CSR, TPR, Cov, IR and MS over all slots; Cov@Pass and MS@Pass over passing slots (the paper\'s Table 2 and Table A.4).',
    groupBy: ['language'],
    rows: nestedRows(slots, ['language'], estimate),
  };
}

/** The paper's one-shot metrics beside the improved suite's (improvement rounds), per language. */
export function improvementTable(slots: readonly Slot[], estimate: Estimator): MetricTable {
  return {
    id: 'improvement',
    title: 'One-shot vs improved',
    description:
      'Each slot\'s first passing test (one-shot) against its suite after improvement rounds: the kept tests merged into one test file and scored as one test. ' +
      'A slot where no round ran (its test failed) counts its one-shot test on both sides. ' +
      'Δ: improved minus one-shot, per slot, in percentage points; its interval resamples slots with both of their values (a paired bootstrap).',
    groupBy: ['language'],
    rows: nestedRows(slots, ['language'], estimate),
  };
}

export function modeTable(slots: readonly Slot[], estimate: Estimator): MetricTable {
  return {
    id: 'modes',
    title: 'Per context mode',
    description: 'Each context mode per language (the paper\'s Table 3).',
    groupBy: ['mode', 'language'],
    rows: nestedRows(slots, ['mode', 'language'], estimate),
  };
}

export function modelModeTable(slots: readonly Slot[], estimate: Estimator): MetricTable {
  // The same model scored by both harnesses is two rows, never one mixed row.
  const fields: Field[] = new Set(slots.map((s) => s.harness)).size > 1 ? ['harness', 'model', 'mode', 'language'] : ['model', 'mode', 'language'];
  return {
    id: 'models',
    title: 'Per model and mode',
    description: `Each (model, context mode) per language${fields[0] === 'harness' ? ', per harness that scored it' : ''}.`,
    groupBy: fields,
    rows: nestedRows(slots, fields, estimate),
  };
}

export function repositoryTable(slots: readonly Slot[], estimate: Estimator): MetricTable {
  return {
    id: 'repositories',
    title: 'Per repository',
    description: 'Each repository (the first segment of file_path), grouped by language.',
    groupBy: ['language', 'repository'],
    rows: nestedRows(slots, ['language', 'repository'], estimate),
  };
}

/**
 * 'none': passed without failure (the paper's "No Error / Pass"); 'unclassified': failed, no rule
 * matched; 'unrecorded': failed, scored by a harness that records no category (the release's).
 */
export type FailureRowId = FailureCategory | 'none' | 'unclassified' | 'unrecorded';

export const FAILURE_ROW_LABELS: Record<FailureRowId, string> = {
  ...FAILURE_CATEGORY_LABELS,
  none: 'No Error / Pass',
  unclassified: 'Unclassified failure',
  unrecorded: "Failed, category not recorded (the release's harness)",
};

export interface FailureColumn {
  group: Record<string, string>;
  slots: number;
  baseline: BaselineShare;
}

export interface FailureTable {
  id: 'failures';
  title: string;
  description: string;
  columns: FailureColumn[];
  /** One row per category; `counts[i]` and `shares[i]` (percent of the column's slots) per column. */
  rows: Array<{ category: FailureRowId; label: string; counts: number[]; shares: number[] }>;
}

export function failureRowOf(s: Slot): FailureRowId {
  if (s.failure) return s.failure;
  if (s.passed) return 'none';
  return s.failureRecorded ? 'unclassified' : 'unrecorded';
}

const pct = (n: number, d: number): number => (d ? Math.round((n / d) * 10000) / 100 : 0);

/** Failure categories as shares of all slots per language, per mode when there are several (the paper's Table 4). */
export function failureTable(slots: readonly Slot[]): FailureTable {
  const modes = new Set(slots.map((s) => s.mode));
  const fields: Field[] = modes.size > 1 ? ['language', 'mode'] : ['language'];
  const columns: Array<{ group: Record<string, string>; members: readonly Slot[] }> = [];
  for (const [language, members] of groupBy(slots, (s) => s.language)) {
    if (fields.length === 2) for (const [mode, m] of groupBy(members, (s) => s.mode)) columns.push({ group: { language, mode }, members: m });
    else columns.push({ group: { language }, members });
  }
  if (columns.length > 1) columns.push({ group: Object.fromEntries(fields.map((f) => [f, ALL])), members: slots });
  // 'environment' slots are not in N: the report lists them on their own.
  const ids = [...(Object.keys(FAILURE_CATEGORY_LABELS) as FailureCategory[]).filter((c) => c !== 'environment'), 'none', 'unclassified', 'unrecorded'] as FailureRowId[];
  const rows = ids
    .map((category) => {
      const counts = columns.map((c) => c.members.filter((s) => failureRowOf(s) === category).length);
      return { category, label: FAILURE_ROW_LABELS[category], counts, shares: counts.map((n, i) => pct(n, columns[i].members.length)) };
    })
    // "Unclassified" and "unrecorded" exist to keep columns summing to 100 %; they are noise when empty.
    .filter((r) => (r.category !== 'unclassified' && r.category !== 'unrecorded') || r.counts.some((n) => n > 0));
  return {
    id: 'failures',
    title: 'Failure categories',
    description: 'Share of all slots per failure category (Appendix J.2 decision tree); each column sums to 100% (the paper\'s Table 4).',
    columns: columns.map((c) => ({ group: c.group, slots: c.members.length, baseline: baselineShare(c.members) })),
    rows,
  };
}

export interface Share {
  /** Null where a slot's harness does not record what is counted (the strict check, for the release's). */
  count: number | null;
  /** Percent of the row's passing slots, with its bootstrap interval; null when nothing passed. */
  value: number | null;
  low: number | null;
  high: number | null;
}

export interface InvocationGapRow {
  language: string;
  slots: number;
  passing: number;
  baseline: BaselineShare;
  /** Passing slots whose test does not call the focal function: passing without testing it (§5.4). */
  notInvoked: Share;
  /** The same with the strict check (receiver or module must match too). */
  notInvokedStrict: Share;
}

export interface InvocationGapTable {
  id: 'invocation-gap';
  title: string;
  description: string;
  rows: InvocationGapRow[];
}

function gapRow(slots: readonly Slot[], language: string, estimate: Estimator): InvocationGapRow {
  const { gap } = estimate(slots);
  const share = (count: number | null, e: Estimate | null): Share => ({ count, value: e?.value ?? null, low: e?.low ?? null, high: e?.high ?? null });
  return {
    language,
    slots: slots.length,
    passing: slots.filter((s) => s.passed).length,
    baseline: baselineShare(slots),
    notInvoked: share(slots.filter((s) => s.passed && !s.invoked).length, gap.notInvoked),
    notInvokedStrict: share(slots.some((s) => s.invokedStrict === null) ? null : slots.filter((s) => s.passed && !s.invokedStrict).length, gap.notInvokedStrict),
  };
}

export function invocationGapTable(slots: readonly Slot[], estimate: Estimator): InvocationGapTable {
  const groups = groupBy(slots, (s) => s.language);
  const rows = groups.map(([language, members]) => gapRow(members, language, estimate));
  if (groups.length > 1) rows.push(gapRow(slots, ALL, estimate));
  return {
    id: 'invocation-gap',
    title: 'IR vs TPR disagreement',
    description: 'Passing slots whose test never calls the focal function, as a share of passing slots (the paper\'s §5.4): they pass without testing it.',
    rows,
  };
}
