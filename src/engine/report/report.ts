import { environmentReasons, type ResultRecord } from '../store/results';
import { DEFAULT_LEVEL, DEFAULT_RESAMPLES, DEFAULT_SEED } from './bootstrap';
import { compareRuns, harnessCounts, type Comparison } from './compare';
import { createEstimator, type EstimateOptions } from './metrics';
import type { ReleaseSummaryInput } from './release-summary';
import { comparisonDifferences, harnessDifferences, releaseNote, type HarnessDifference } from './harness-notes';
import { groupBy, toSlot, type Harness, type Slot } from './slots';
import {
  failureTable,
  improvementTable,
  invocationGapTable,
  languageTable,
  modelModeTable,
  modeTable,
  repositoryTable,
  type FailureTable,
  type InvocationGapTable,
  type MetricTable,
} from './tables';

export interface ReportOptions {
  /** Shown as the report's title and in comparisons. */
  label?: string;
  /** The release's summary.json files read with the rows, each checked against its rows (release-summary.ts). */
  releaseSummaries?: ReleaseSummaryInput[];
  resamples?: number;
  seed?: number;
  level?: number;
}

/** Slots the harness or the machine could not score: left out of every table's N, listed here (METRICS.md). */
export interface EnvironmentSection {
  slots: number;
  /** Per language and repository: how many of its slots, and why. */
  rows: Array<{ language: string; repository: string; count: number; of: number; reasons: Array<{ cause: string; reason: string; count: number }> }>;
}

export interface StatisticsNote {
  resamples: number;
  seed: number;
  level: number;
  method: string;
}

/** Everything the renderers (Markdown, HTML, JSON) show, computed once. */
export interface Report {
  label: string;
  /** Sentences every rendering must carry (the baseline's lower-bound label). */
  notes: string[];
  statistics: StatisticsNote;
  totals: {
    slots: number;
    tasks: number;
    passing: number;
    languages: string[];
    modes: string[];
    models: string[];
    repositories: number;
    baselineSlots: number;
    /** Slots in N per harness that scored them: ours, or the release's (its detailed_results.jsonl). */
    harnesses: Record<Harness, number>;
    /** Whether any slot carries a mutation result; MS is "not run" otherwise. */
    mutationRan: boolean;
    /** Whether any slot carries an improved suite (improvement rounds); the improved metrics are "not run" otherwise. */
    improvementRan: boolean;
    /** Slots whose suite kept at least one test of an improvement round, and the tests kept in all. */
    improvedSlots: number;
    keptTests: number;
  };
  tables: {
    languages: MetricTable;
    modes: MetricTable;
    /** Only when the input mixes several (model, mode) pairs. */
    models: MetricTable | null;
    repositories: MetricTable;
    failures: FailureTable;
    invocationGap: InvocationGapTable;
    /** One-shot vs improved (TPR, Cov, MS) per language; only when improvement rounds ran. */
    improvement: MetricTable | null;
  };
  environment: EnvironmentSection;
  /** Where these numbers differ from the release's harness (METRICS.md), each with the number it touches. */
  differences: HarnessDifference[];
  releaseSummaries: ReleaseSummaryInput[];
}

function statistics(opts: ReportOptions): StatisticsNote {
  return {
    resamples: opts.resamples ?? DEFAULT_RESAMPLES,
    seed: opts.seed ?? DEFAULT_SEED,
    level: opts.level ?? DEFAULT_LEVEL,
    method: 'percentile bootstrap, slots resampled with replacement within each group, seeded per group',
  };
}

const distinct = (xs: Iterable<string>): string[] => [...new Set(xs)].sort();

/** A canonical order, so the report (resamples included) does not depend on the order of the input. */
export function canonicalOrder(slots: readonly Slot[]): Slot[] {
  const key = (s: Slot): string => [s.language, s.repository, s.taskId ?? s.languageTaskId, s.mode, s.model].join('\u0000');
  return [...slots].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    return ka < kb ? -1 : ka > kb ? 1 : a.sample - b.sample || a.round - b.round;
  });
}

function environmentSection(all: readonly Slot[]): EnvironmentSection {
  const rows: EnvironmentSection['rows'] = [];
  for (const [, members] of groupBy(all, (s) => `${s.language}\u0000${s.repository}`)) {
    const failed = members.filter((s) => s.environment);
    if (!failed.length) continue;
    const { language, repository } = members[0];
    rows.push({ language, repository, count: failed.length, of: members.length, reasons: environmentReasons(failed.map((s) => s.environment!)) });
  }
  return { slots: all.filter((s) => s.environment).length, rows };
}

export function buildReportFromSlots(input: readonly Slot[], opts: ReportOptions = {}): Report {
  const everything = canonicalOrder(input);
  // Environment failures are not the test's: out of N everywhere, reported on their own (METRICS.md).
  const slots = everything.filter((s) => !s.environment);
  const environment = environmentSection(everything);
  const notes: string[] = [];
  if (environment.slots) {
    notes.push(`${environment.slots} of ${everything.length} slots are environment failures (the harness or the machine could not build or run the project): left out of N, listed under "Environment failures".`);
  }
  const stats = statistics(opts);
  const mutationRan = slots.some((s) => s.mutationRan);
  const improvementRan = slots.some((s) => s.suite !== null);
  const est: EstimateOptions = { resamples: stats.resamples, seed: stats.seed, level: stats.level, mutation: mutationRan, improvement: improvementRan };
  const estimate = createEstimator(slots, est);
  const modelModes = new Set(slots.map((s) => `${s.model}\u0000${s.mode}`));
  const baselineSlots = slots.filter((s) => s.baseline).length;
  const harnesses = harnessCounts(slots);
  if (harnesses.release) notes.push(releaseNote(harnesses.release, slots.length));
  return {
    label: opts.label ?? 'XRepoTest results',
    notes: [
      ...notes,
      ...(baselineSlots ? [`${baselineSlots} of ${slots.length} slots come from the offline baseline provider: a lower bound, not a model's result. Rows with baseline = "all" or "some" hold them.`] : []),
    ],
    statistics: stats,
    totals: {
      slots: slots.length,
      tasks: new Set(slots.map((s) => s.taskId ?? s.languageTaskId)).size,
      passing: slots.filter((s) => s.passed).length,
      languages: distinct(slots.map((s) => s.language)),
      modes: distinct(slots.map((s) => s.mode)),
      models: distinct(slots.map((s) => s.model)),
      repositories: new Set(slots.map((s) => `${s.language}/${s.repository}`)).size,
      baselineSlots,
      harnesses,
      mutationRan,
      improvementRan,
      improvedSlots: slots.filter((s) => (s.suite?.tests ?? 1) > 1).length,
      keptTests: slots.reduce((n, s) => n + Math.max(0, (s.suite?.tests ?? 1) - 1), 0),
    },
    tables: {
      languages: languageTable(slots, estimate),
      modes: modeTable(slots, estimate),
      models: modelModes.size > 1 ? modelModeTable(slots, estimate) : null,
      repositories: repositoryTable(slots, estimate),
      failures: failureTable(slots),
      invocationGap: invocationGapTable(slots, estimate),
      improvement: improvementRan ? improvementTable(slots, estimate) : null,
    },
    environment,
    differences: harnessDifferences({ languages: distinct(slots.map((s) => s.language)), harnesses, mutation: mutationRan }),
    releaseSummaries: opts.releaseSummaries ?? [],
  };
}

export function buildReport(results: readonly ResultRecord[], opts: ReportOptions = {}): Report {
  return buildReportFromSlots(results.map(toSlot), opts);
}

/** Two runs side by side: each run's own report, and the paired test between them. */
export interface ComparisonReport {
  comparison: Comparison;
  runs: [Report, Report];
  /** The paired test's difference from the release's code, and whether the runs were scored by different harnesses. */
  differences: HarnessDifference[];
}

export function buildComparisonReport(
  a: { label: string; slots: readonly Slot[] },
  b: { label: string; slots: readonly Slot[] },
  opts: Omit<ReportOptions, 'label'> & { alpha?: number } = {},
): ComparisonReport {
  const stats = statistics(opts);
  const runs: [Report, Report] = [buildReportFromSlots(a.slots, { ...opts, label: a.label }), buildReportFromSlots(b.slots, { ...opts, label: b.label })];
  return {
    differences: comparisonDifferences(runs[0].totals.harnesses, runs[1].totals.harnesses, [a.label, b.label]),
    comparison: compareRuns(a.slots, b.slots, { labelA: a.label, labelB: b.label, alpha: opts.alpha, resamples: stats.resamples, seed: stats.seed, level: stats.level }),
    runs,
  };
}
