import { stars, type Comparison } from './compare';
import { BASELINE_LEGEND, baselineMark, columnLabel, fmt, fmtEstimate, fmtP, fmtStatistic, groupLabel, titleCase } from './format';
import { IMPROVEMENT_TABLE, METRIC_DESCRIPTIONS, METRIC_LABELS, metricRan, metricsShown as shownFor, type MetricId } from './metrics';
import { differenceFor, itemRef, releaseNote, scoredBy, type HarnessDifference } from './harness-notes';
import type { ComparisonReport, Report } from './report';
import type { FailureTable, InvocationGapTable, MetricTable } from './tables';

/**
 * Text the report did not write itself (repository, model, mode and language names from result rows,
 * labels from file names) shown as text: no raw HTML (a renderer that allows it would run it), no
 * link, image, emphasis or code span, no table cell break, no new line.
 */
export function escapeMarkdown(s: unknown): string {
  return String(s)
    .replace(/[\u0000-\u001f\u007f\u0085\u2028\u2029]+/g, ' ')
    .replace(/[\\`*_[\]|~$]/g, '\\$&')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

const esc = escapeMarkdown;

function table(head: string[], rows: string[][], align: Array<'l' | 'r'> = []): string {
  const sep = head.map((_, i) => ((align[i] ?? (i === 0 ? 'l' : 'r')) === 'r' ? '---:' : '---'));
  return [head, sep, ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}

const metricsShown = (report: Report): MetricId[] => shownFor(report.totals);

export function metricTableMarkdown(t: MetricTable, metrics: readonly MetricId[]): string {
  const head = [...t.groupBy.map(titleCase), 'N', ...metrics.map((m) => METRIC_LABELS[m])];
  const rows = t.rows.map((r) => {
    const names = groupLabel(r.group, t.groupBy).map(esc);
    names[names.length - 1] += baselineMark(r.baseline);
    return [
      ...names,
      String(r.slots),
      ...metrics.map((m) => {
        const e = fmtEstimate(r.metrics[m]);
        return e.ci ? `${e.value} ${e.ci}` : e.value;
      }),
    ];
  });
  return `## ${t.title}\n\n${t.description} Values in percent with ${'95%'} bootstrap intervals.\n\n${table(head, rows, t.groupBy.map(() => 'l'))}`;
}

export function failureTableMarkdown(t: FailureTable): string {
  const fields = Object.keys(t.columns[0]?.group ?? { language: '' });
  const head = ['Category', ...t.columns.map((c) => esc(columnLabel(c.group, fields)) + baselineMark(c.baseline))];
  const rows = t.rows.map((r) => [r.label, ...r.shares.map((s, i) => `${fmt(s)} (${r.counts[i]})`)]);
  rows.push(['Slots', ...t.columns.map((c) => String(c.slots))]);
  return `## ${t.title}\n\n${t.description} Percent of slots (count).\n\n${table(head, rows)}`;
}

export function invocationGapMarkdown(t: InvocationGapTable): string {
  const share = (s: InvocationGapTable['rows'][number]['notInvoked']): string =>
    s.value === null ? '—' : `${fmt(s.value)} [${fmt(s.low)}, ${fmt(s.high)}] (${s.count})`;
  const rows = t.rows.map((r) => [esc(r.language) + baselineMark(r.baseline), String(r.slots), String(r.passing), share(r.notInvoked), share(r.notInvokedStrict)]);
  return `## ${t.title}\n\n${t.description}\n\n${table(['Language', 'N', 'Passing', 'Passing, focal not called (%)', 'Passing, not called (strict) (%)'], rows)}`;
}

/** The metrics of the one-shot vs improved table: each pair whose metrics ran. */
export function improvementMetrics(report: Report): MetricId[] {
  return IMPROVEMENT_TABLE.filter((m) => metricRan(m, report.totals));
}

function improvementMarkdown(report: Report, t: MetricTable): string {
  const kept = `${report.totals.improvedSlots} of ${report.totals.slots} slots kept at least one test of an improvement round (${report.totals.keptTests} tests kept in all).`;
  return `${metricTableMarkdown(t, improvementMetrics(report))}\n\n${kept}`;
}

function header(report: Report): string {
  const t = report.totals;
  const lines = [
    `# ${esc(report.label)}`,
    '',
    `${t.slots} slots (${t.tasks} tasks, ${t.passing} passing) in ${t.languages.length} language(s): ${t.languages.map(esc).join(', ') || '—'}; ` +
      `modes: ${t.modes.map(esc).join(', ') || '—'}; models: ${t.models.map(esc).join(', ') || '—'}; ${t.repositories} repositories.`,
    '',
    `Every rate divides by all slots (a slot that did not build counts as 0); Cov@Pass and MS@Pass divide by passing slots. ` +
      `Intervals: ${Math.round(report.statistics.level * 100)}% ${report.statistics.method}; ${report.statistics.resamples} resamples, seed ${report.statistics.seed}.`,
  ];
  lines.push('', `Scored by ${scoredBy(t.harnesses)}.${t.harnesses.release ? ` ${releaseNote(t.harnesses.release, t.slots)}` : ''}`);
  for (const d of differenceFor(report.differences, 'n')) lines.push('', `*Differs from the release's harness:* ${d.text}${itemRef(d)}`);
  if (!t.mutationRan) lines.push('', 'MS and MS@Pass are not shown: mutation testing did not run for any slot.');
  if (t.baselineSlots) lines.push('', `**${t.baselineSlots} of ${t.slots} slots come from the offline baseline provider: a lower bound, not a model's result.** ${BASELINE_LEGEND}`);
  return lines.join('\n');
}

/** Slots the harness could not score, up front: a run with environment failures says so before any rate. */
export function environmentMarkdown(report: Report): string | null {
  const e = report.environment;
  if (!e?.slots) return null;
  const rows = e.rows.map((r) => [esc(r.language), esc(r.repository), `${r.count} of ${r.of}`, r.reasons.map((x) => `${x.count}× \`${esc(x.cause)}\`: ${esc(x.reason)}`).join('<br>')]);
  return (
    `## Environment failures\n\n**${e.slots} slots could not be scored: the harness or the machine could not build or run the project.** ` +
    `They are not the test's fault and are left out of N in every table below.\n\n${table(['Language', 'Repository', 'Slots', 'Cause and fix'], rows)}`
  );
}

/** Each metric shown, what it is and, beside it, where it differs from the release's harness. */
function metricGlossary(metrics: readonly MetricId[], differences: readonly HarnessDifference[]): string {
  return metrics
    .map((m) => `- **${METRIC_LABELS[m]}**: ${METRIC_DESCRIPTIONS[m]}${differenceFor(differences, m).map((d) => `. *Differs from the release's harness:* ${d.text}${itemRef(d)}`).join('')}`)
    .join('\n');
}

/** Each release summary.json read with the rows, key for key against what its rows give. */
export function releaseSummariesMarkdown(report: Report): string | null {
  if (!report.releaseSummaries.length) return null;
  const num = (x: number | null): string => (x === null ? '—' : Number.isInteger(x) ? String(x) : x.toFixed(4));
  const parts = report.releaseSummaries.map((s) => {
    if (!s.check) return `\`${esc(s.file)}\`: no detailed_results.jsonl beside it was loaded; shown as given.\n\n${table(['Key', 'summary.json'], Object.entries(s.summary).filter(([, v]) => typeof v === 'number').map(([k, v]) => [esc(k), num(v as number)]))}`;
    const bad = s.check.filter((c) => !c.agrees).length;
    return (
      `\`${esc(s.file)}\` against its rows \`${esc(s.rowsFile ?? '')}\`: **${bad ? `${bad} key(s) differ` : 'every key agrees'}**.\n\n` +
      table(['Key', 'summary.json', 'From its rows', ''], s.check.map((c) => [esc(c.key), num(c.summary), num(c.rows), c.agrees ? 'agrees' : '**differs**']))
    );
  });
  return `## The release's summary.json, key for key\n\nWhat the harness wrote, and what its formulas give for the rows loaded here (total_samples counts tasks; rates are percent of tasks × responses; avg_mutation_score is its micro average, 0..1).\n\n${parts.join('\n\n')}`;
}

export function reportMarkdown(report: Report): string {
  const metrics = metricsShown(report);
  const t = report.tables;
  const environment = environmentMarkdown(report);
  const parts = [header(report), ...(environment ? [environment] : []), metricGlossary(metrics, report.differences), metricTableMarkdown(t.languages, metrics), metricTableMarkdown(t.modes, metrics)];
  if (t.models) parts.push(metricTableMarkdown(t.models, metrics));
  if (t.improvement) parts.push(improvementMarkdown(report, t.improvement));
  parts.push(failureTableMarkdown(t.failures), invocationGapMarkdown(t.invocationGap), metricTableMarkdown(t.repositories, metrics));
  const summaries = releaseSummariesMarkdown(report);
  if (summaries) parts.push(summaries);
  return parts.join('\n\n') + '\n';
}

export function comparisonTableMarkdown(c: Comparison, differences: readonly HarnessDifference[] = []): string {
  const head = ['Language', 'Pairs', `TPR ${esc(c.labelA)}`, `TPR ${esc(c.labelB)}`, 'Δ (B − A) [95% CI]', 'Only A passes', 'Only B passes', 'Test', 'Statistic', 'p', 'p (Holm)', ''];
  const rows = c.rows.map((r) => [
    esc(r.language),
    String(r.pairs),
    fmt(r.tprA),
    fmt(r.tprB),
    `${fmt(r.delta.value)} [${fmt(r.delta.low)}, ${fmt(r.delta.high)}]`,
    String(r.test.onlyA),
    String(r.test.onlyB),
    r.test.method === 'exact-binomial' ? 'exact binomial' : r.test.method === 'chi-square-cc' ? 'χ² (cont. corr.)' : 'no discordant pairs',
    fmtStatistic(r.test),
    fmtP(r.test.p),
    fmtP(r.pHolm),
    stars(r.pHolm),
  ]);
  const notes = [
    `McNemar's test on paired pass/fail (exact binomial below 25 discordant pairs, else χ² with continuity correction); p-values Holm-Bonferroni adjusted over the ${c.rows.length} test(s) shown; α = ${c.alpha}. *** p < 0.001, ** p < 0.01, * p < 0.05, ns: not significant.`,
    `Paired by ${c.pairedBy === 'id' ? 'stable task id' : 'language and task_id'} + sample + round; unpaired slots: ${c.unpairedA} in ${esc(c.labelA)}, ${c.unpairedB} in ${esc(c.labelB)}.`,
    `A = ${esc(c.labelA)}, scored by ${esc(c.scoredByA)}; B = ${esc(c.labelB)}, scored by ${esc(c.scoredByB)}.`,
    ...differences.map((d) => `*Differs from the release's harness:* ${esc(d.text)}${itemRef(d)}`),
  ];
  if (c.duplicatesA || c.duplicatesB) notes.push(`Repeated pairing keys (only the first slot used): ${c.duplicatesA} in ${esc(c.labelA)}, ${c.duplicatesB} in ${esc(c.labelB)}; compare one model and mode per run.`);
  for (const [flag, label] of [
    [c.baselineA, c.labelA],
    [c.baselineB, c.labelB],
  ] as const) {
    if (flag) notes.push(`**${esc(label)} contains offline baseline slots: a lower bound, not a model's result.**`);
  }
  return `## Paired comparison: ${esc(c.labelA)} vs ${esc(c.labelB)}\n\n${table(head, rows)}\n\n${notes.join('\n\n')}`;
}

export function comparisonMarkdown(cmp: ComparisonReport): string {
  const [a, b] = cmp.runs;
  const parts = [`# Comparison: ${esc(a.label)} vs ${esc(b.label)}`, comparisonTableMarkdown(cmp.comparison, cmp.differences)];
  for (const run of cmp.runs) {
    const t = { ...run.tables.languages, title: `${esc(run.label)}: per language` };
    parts.push(metricTableMarkdown(t, metricsShown(run)));
    if (run.totals.baselineSlots) parts.push(`${run.totals.baselineSlots} of ${run.totals.slots} slots come from the offline baseline provider. ${BASELINE_LEGEND}`);
    if (run.totals.harnesses.release) parts.push(esc(releaseNote(run.totals.harnesses.release, run.totals.slots)));
  }
  return parts.join('\n\n') + '\n';
}
