import type { MetricId } from './metrics';
import { RELEASE_MISSING_FIELDS } from './release-rows';
import type { Harness } from './slots';

/**
 * Where our numbers differ from the release's harness on purpose (METRICS.md, "Where we differ from
 * the paper's harness"), said next to the number they touch: a reader comparing with the paper's
 * tables or its summary.json sees which differences apply to the slots in front of them. A difference
 * of measurement (a denominator, a compile step) applies only to slots we scored; one of aggregation
 * (MS, total_samples, the test's correction) applies to every slot, whoever scored it.
 */
export interface HarnessDifference {
  /** The number it touches: a metric, N, a summary key, or the paired test. */
  on: MetricId | 'n' | 'total_samples' | 'mcnemar';
  /** The item of METRICS.md's list. */
  item: number | null;
  text: string;
}

export interface DifferenceContext {
  languages: readonly string[];
  harnesses: Record<Harness, number>;
  /** Whether MS is shown. */
  mutation: boolean;
}

export function harnessDifferences(ctx: DifferenceContext): HarnessDifference[] {
  const ours = ctx.harnesses.xrepotest > 0;
  const theirs = ctx.harnesses.release > 0;
  const has = (l: string): boolean => ctx.languages.includes(l);
  const out: HarnessDifference[] = [];
  if (ours) {
    out.push({
      on: 'n',
      item: null,
      text: "N leaves out environment failures (the harness or the machine could not build or run the project), listed apart; the release's harness counts them in N as failures.",
    });
    if (has('julia')) {
      out.push({
        on: 'csr',
        item: 10,
        text: "Julia compiles when the test file parses and loads; a Julia that cannot run at all is an environment failure. The release's harness counts a Julia batch as compiled when it ran at all (pass + fail + error > 0).",
      });
    }
    const loading = ['ruby', 'php'].filter(has);
    out.push({
      on: 'cov',
      item: 1,
      text:
        'Executable lines only, in every language' +
        (has('julia') ? " (the release's Julia denominator counts every line of the function)" : '') +
        "; the coverage report is matched to the focal file by exact path (the harness also accepts a file-name substring, item 3)" +
        (loading.length ? `; ${loading.map((l) => (l === 'ruby' ? 'Ruby' : 'PHP')).join(' and ')} focal code is loaded through the project's own entry point (the harness loads the focal file first, item 4)` : '') +
        '.',
    });
  }
  out.push({ on: 'covAtPass', item: 2, text: "Ours: the release reports Cov over all slots only (coverage from failing suites counts there and in Cov here)." });
  out.push({ on: 'irStrict', item: 7, text: "Ours: IR counts a call whose name matches the focal function, as the harness does; IR strict also checks the receiver or module where the language allows it." });
  if (ctx.mutation) {
    out.push({
      on: 'ms',
      item: 8,
      text:
        "The mean over N of per-slot mutation scores (0 where not run), and MS@Pass over passing slots, as the paper's App. D says; the release's summary.json avg_mutation_score is a micro average over mutants that also counts failed mutation runs (the JSON summary keeps it, with that meaning, under mutation_testing)." +
        (ours ? ' A mutant whose run times out counts as killed; mutants come from our operators on the focal function, in all five languages (item 6).' : '') +
        (theirs ? " Slots the release's harness scored keep its per-slot score (its Rust score counts a timed-out mutant as not killed)." : ''),
    });
  }
  out.push({ on: 'total_samples', item: 11, text: "total_samples counts tasks, as in the release's summary.json; total_tasks is the same number and total_slots is N (tasks × samples × rounds)." });
  return out;
}

/** The paired test's difference (item 9), and, when the two runs were scored by different harnesses, what that means for a pair. */
export function comparisonDifferences(a: Record<Harness, number>, b: Record<Harness, number>, labels: [string, string]): HarnessDifference[] {
  const out: HarnessDifference[] = [
    {
      on: 'mcnemar',
      item: 9,
      text: "McNemar's test is the exact binomial below 25 discordant pairs and χ² with continuity correction above; p-values are Holm–Bonferroni adjusted, as the paper's text says (the release's code uses plain Bonferroni).",
    },
  ];
  const by = (h: Record<Harness, number>): string => scoredBy(h);
  if (by(a) !== by(b)) {
    out.push({
      on: 'mcnemar',
      item: null,
      text: `${labels[0]} was scored by ${by(a)}, ${labels[1]} by ${by(b)}: their definitions differ (compile step, coverage lines, environment failures), so a pair that disagrees can come from the harnesses as well as from the tests.`,
    });
  }
  return out;
}

/** "xrepotest", "the release's harness", or both with their slot counts. */
export function scoredBy(h: Record<Harness, number>): string {
  if (h.release && h.xrepotest) return `xrepotest (${h.xrepotest} slots) and the release's harness (${h.release} slots)`;
  return h.release ? "the release's harness" : 'xrepotest';
}

/** What every rendering says of slots the release's harness scored: whose definitions, and what it does not record. */
export function releaseNote(release: number, of: number): string {
  return (
    `${release === of ? 'All' : `${release} of ${of}`} slots were scored by the release's harness (its detailed_results.jsonl): their CSR, TPR, Cov, IR and per-slot MS are its own, ` +
    `by its definitions. It records no ${RELEASE_MISSING_FIELDS.join(', ')}: their failures show as "category not recorded", strict IR as not recorded, ` +
    'and a project that could not build counts in N as a failure, as the harness counts it.'
  );
}

export function differenceFor(ds: readonly HarnessDifference[], on: HarnessDifference['on']): HarnessDifference[] {
  return ds.filter((d) => d.on === on);
}

/** "METRICS.md item 8" where the difference has one. */
export const itemRef = (d: HarnessDifference): string => (d.item === null ? '' : ` (METRICS.md item ${d.item})`);
