import { FAILURE_CATEGORY_LABELS, type FailureCategory } from '../score/types';
import { environmentReasons, type ResultRecord } from '../store/results';
import { groupBy, toSlot, type Slot } from './slots';

/** The release's `mutation_testing` block, with its meaning (METRICS.md item 8): a micro average over mutants. */
export interface ReleaseMutationBlock {
  /** Slots whose mutation testing gave a score (the release: `checks[i].mutation` true). */
  mutation_tests_run: number;
  /** Summed over every slot with a mutation result, failed runs included, as the release's summary sums them. */
  total_mutants_killed: number;
  total_mutants_count: number;
  /** total_mutants_killed / total_mutants_count, 0..1 (not a percentage, as in the release). */
  avg_mutation_score: number;
  /** mutation_tests_run over passing slots, percent. */
  mutation_run_rate: number;
}

export interface SummaryBlock {
  /**
   * The release's summary.json keys with the release's meanings, so a summary compares with the
   * paper's key for key (METRICS.md item 11): `total_samples` counts tasks (rows of its
   * detailed_results.jsonl: one task of one run); the rates are percent of N, the slots.
   */
  total_samples: number;
  compiled_rate: number;
  test_pass_rate: number;
  line_coverage: number;
  invocation_rate: number;
  /** Present where some slot's mutation testing gave a score, as in the release. */
  mutation_testing?: ReleaseMutationBlock;
  /** Ours. Tasks (= total_samples) and slots (tasks x samples x repair rounds): N, the denominator of every rate. */
  total_tasks: number;
  total_slots: number;
  /** MS as the paper's App. D defines it: mean over N of per-slot scores, 0 where not run, percent; present where mutation testing ran. */
  mutation_score?: number;
  /** Mean over passing slots with at least one viable mutant; null when there is none. */
  mutation_score_at_pass?: number | null;
  coverage_at_pass: number;
  /** Passing slots (as `baseline_samples` and `environment_samples`, these count slots). */
  passing_samples: number;
  /** Null where some slot's harness does not record the strict check (the release's). */
  strict_invocation_rate: number | null;
  /** Percent of N per category; `not_recorded` only where some slot's harness records none (the release's). */
  failure_categories: Record<ScoredCategory | 'none', number> & { not_recorded?: number };
  /** Slots whose test came from the offline baseline: a lower bound, not a model. */
  baseline_samples: number;
  /** Ours: slots the harness or the machine could not score, left out of every rate above (METRICS.md). */
  environment_samples: number;
  /** Their causes, most frequent first. */
  environment_reasons: Array<{ cause: string; reason: string; count: number }>;
  /** Which harness scored the slots in N. */
  scored_by: { xrepotest: number; release_harness: number };
}

export interface Summary extends SummaryBlock {
  languages: Record<string, SummaryBlock>;
}

/** Every category but 'environment', whose slots are not in N. */
export type ScoredCategory = Exclude<FailureCategory, 'environment'>;

const pct = (n: number, d: number): number => (d ? Math.round((n / d) * 10000) / 100 : 0);
const sum = (xs: readonly Slot[], f: (s: Slot) => number): number => xs.reduce((a, s) => a + f(s), 0);

function mutationBlock(slots: readonly Slot[], passing: number): ReleaseMutationBlock | undefined {
  const run = slots.filter((s) => s.mutationScore !== null).length;
  if (!run) return undefined;
  const killed = sum(slots, (s) => s.mutationCounts?.killed ?? 0);
  const total = sum(slots, (s) => s.mutationCounts?.total ?? 0);
  return {
    mutation_tests_run: run,
    total_mutants_killed: killed,
    total_mutants_count: total,
    avg_mutation_score: total ? Math.round((killed / total) * 1e6) / 1e6 : 0,
    mutation_run_rate: pct(run, passing),
  };
}

/**
 * Every rate divides by N = all evaluated slots (METRICS.md): a slot with no build still counts as zero.
 * Environment failures are not the test's: they are left out of N and counted beside it.
 */
export function summarizeSlots(all: readonly Slot[]): SummaryBlock {
  const slots = all.filter((s) => !s.environment);
  const environment = all.filter((s) => s.environment);
  const n = slots.length;
  const passing = slots.filter((s) => s.passed);
  const tasks = new Set(slots.map((s) => s.row)).size;
  const scored = Object.keys(FAILURE_CATEGORY_LABELS).filter((k) => k !== 'environment');
  const categories = Object.fromEntries([...scored, 'none'].map((k) => [k, 0])) as SummaryBlock['failure_categories'];
  let notRecorded = 0;
  for (const s of slots) {
    if (s.failure) categories[s.failure as ScoredCategory]++;
    else if (s.passed) categories.none++;
    // A failing slot without a category: ours counts it as "none" as it always has; the release's cannot say.
    else if (!s.failureRecorded) notRecorded++;
    else categories.none++;
  }
  for (const k of Object.keys(categories) as Array<keyof typeof categories>) categories[k] = pct(categories[k] ?? 0, n);
  if (notRecorded) categories.not_recorded = pct(notRecorded, n);
  const mutationRan = slots.some((s) => s.mutationRan);
  const withMutants = passing.filter((s) => s.mutationScore !== null);
  const mutation = mutationBlock(slots, passing.length);
  return {
    total_samples: tasks,
    compiled_rate: pct(slots.filter((s) => s.compiled).length, n),
    test_pass_rate: pct(passing.length, n),
    line_coverage: pct(sum(slots, (s) => s.coverage), n),
    invocation_rate: pct(slots.filter((s) => s.invoked).length, n),
    ...(mutation ? { mutation_testing: mutation } : {}),
    total_tasks: tasks,
    total_slots: n,
    ...(mutationRan
      ? {
          mutation_score: pct(sum(slots, (s) => s.mutationScore ?? 0), n),
          mutation_score_at_pass: withMutants.length ? pct(sum(withMutants, (s) => s.mutationScore as number), withMutants.length) : null,
        }
      : {}),
    coverage_at_pass: pct(sum(passing, (s) => s.coverage), passing.length),
    passing_samples: passing.length,
    strict_invocation_rate: slots.some((s) => s.invokedStrict === null) ? null : pct(slots.filter((s) => s.invokedStrict).length, n),
    failure_categories: categories,
    baseline_samples: slots.filter((s) => s.baseline).length,
    environment_samples: environment.length,
    environment_reasons: environmentReasons(environment.map((s) => s.environment!)),
    scored_by: { xrepotest: slots.filter((s) => s.harness === 'xrepotest').length, release_harness: slots.filter((s) => s.harness === 'release').length },
  };
}

export function summarizeSlotsByLanguage(slots: readonly Slot[]): Summary {
  return { ...summarizeSlots(slots), languages: Object.fromEntries(groupBy(slots, (s) => s.language).map(([l, members]) => [l, summarizeSlots(members)])) };
}

/** The summary of result records as `xrepotest run` and `bench` write them. */
export function summarizeByLanguage(results: readonly ResultRecord[]): Summary {
  return summarizeSlotsByLanguage(results.map(toSlot));
}
