import { stars, type Comparison } from './compare';
import { BASELINE_LEGEND, baselineMark, columnLabel, fmt, fmtEstimate, fmtP, fmtStatistic, groupLabel, titleCase } from './format';
import { IMPROVEMENT_TABLE, METRIC_DESCRIPTIONS, METRIC_LABELS, metricRan, metricsShown as shownFor, type MetricId } from './metrics';
import { differenceFor, itemRef, releaseNote, scoredBy } from './harness-notes';
import type { ComparisonReport, Report } from './report';
import { escapeHtml as h, groupedBarChart, stackedBarChart, type Series } from './svg';
import { ALL, FAILURE_ROW_LABELS, type FailureTable, type InvocationGapTable, type MetricTable } from './tables';

/**
 * One self-contained HTML file: inline CSS and inline SVG, no script, font or image from anywhere,
 * so it opens offline, in a CI artifact viewer, or attached to a mail. Light and dark follow the
 * reader's setting.
 */

const CSS = `
:root { color-scheme: light dark;
  --bg: #ffffff; --fg: #1b1f24; --muted: #57606a; --border: #d0d7de; --stripe: #f6f8fa; --grid: #e4e8ec; --accent: #0969da;
  --warn-bg: #fff8c5; --warn-fg: #4d3800; --warn-border: #d4a72c;
  --s0: #0072b2; --s1: #e69f00; --s2: #009e73; --s3: #cc79a7;
  --c-syn: #d55e00; --c-type: #cc79a7; --c-api: #e69f00; --c-logic: #0072b2; --c-design: #56b4e9; --c-none: #009e73; --c-unk: #8c959f; --c-tamper: #000000; --c-env: #bdbdbd; }
@media (prefers-color-scheme: dark) { :root {
  --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --border: #3d444d; --stripe: #151b23; --grid: #262c36; --accent: #4493f8;
  --warn-bg: #2e2a14; --warn-fg: #f2cc60; --warn-border: #9e6a03;
  --s0: #56b4e9; --s1: #f0b429; --s2: #2fc79a; --s3: #e39ccb;
  --c-syn: #f07a3a; --c-type: #e39ccb; --c-api: #f0b429; --c-logic: #4a9fe0; --c-design: #8fd0f5; --c-none: #2fc79a; --c-unk: #768390; --c-tamper: #f0f0f0; --c-env: #5a5a5a; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 1200px; margin: 0 auto; padding: 24px; }
h1 { font-size: 26px; margin: 0 0 8px; } h2 { font-size: 20px; margin: 36px 0 8px; border-bottom: 1px solid var(--border); padding-bottom: 4px; }
p, li { color: var(--fg); } .muted, .ci { color: var(--muted); } .ci { font-size: 12px; white-space: nowrap; }
.notice { background: var(--warn-bg); color: var(--warn-fg); border: 1px solid var(--warn-border); border-radius: 6px; padding: 8px 12px; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; margin: 16px 0; }
.card { border: 1px solid var(--border); border-radius: 8px; padding: 10px 14px; min-width: 130px; }
.card .big { font-size: 22px; font-weight: 600; } .card .small { font-size: 12px; color: var(--muted); }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 8px 0 16px; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid var(--border); padding: 4px 8px; text-align: right; vertical-align: top; white-space: nowrap; }
th { background: var(--stripe); } td.name, th.name { text-align: left; white-space: nowrap; }
tr.pooled td { font-weight: 600; } tbody tr:nth-child(even) { background: var(--stripe); }
figure { margin: 12px 0; } figcaption { color: var(--muted); font-size: 12px; }
svg.chart { max-width: 100%; height: auto; } svg .grid { stroke: var(--grid); } svg .axis { stroke: var(--muted); }
svg text { fill: var(--fg); font: 12px system-ui, sans-serif; } svg .tick { fill: var(--muted); font-size: 11px; }
svg .whisker line { stroke: var(--fg); stroke-width: 1.4; }
.s0 { fill: var(--s0); } .s1 { fill: var(--s1); } .s2 { fill: var(--s2); } .s3 { fill: var(--s3); }
.cat-syntactic-compilation { fill: var(--c-syn); } .cat-type-system-memory { fill: var(--c-type); } .cat-api-hallucination { fill: var(--c-api); }
.cat-logic-assertion { fill: var(--c-logic); } .cat-test-design-mocking { fill: var(--c-design); } .cat-none { fill: var(--c-none); } .cat-unclassified { fill: var(--c-unk); } .cat-tampering { fill: var(--c-tamper); } .cat-environment { fill: var(--c-env); }
.sig { font-weight: 600; color: var(--accent); }
`;

const metricsShown = (report: Report): MetricId[] => shownFor(report.totals);

const dataAttrs = (group: Record<string, string>): string =>
  Object.entries(group)
    .map(([k, v]) => ` data-${k}="${h(v)}"`)
    .join('');

function metricTableHtml(t: MetricTable, metrics: readonly MetricId[], id = t.id): string {
  const head = `<tr>${t.groupBy.map((f) => `<th class="name" scope="col">${h(titleCase(f))}</th>`).join('')}<th scope="col">N</th>${metrics
    .map((m) => `<th scope="col" title="${h(METRIC_DESCRIPTIONS[m])}">${h(METRIC_LABELS[m])}</th>`)
    .join('')}</tr>`;
  const body = t.rows
    .map((r) => {
      const names = groupLabel(r.group, t.groupBy);
      const pooled = r.group[t.groupBy[t.groupBy.length - 1]] === ALL;
      const cells = names.map((n, i) => `<td class="name">${h(n)}${i === names.length - 1 ? h(baselineMark(r.baseline)) : ''}</td>`).join('');
      const values = metrics
        .map((m) => {
          const e = fmtEstimate(r.metrics[m]);
          return `<td data-metric="${m}">${h(e.value)}${e.ci ? ` <span class="ci">${h(e.ci)}</span>` : ''}</td>`;
        })
        .join('');
      return `<tr${pooled ? ' class="pooled"' : ''}${dataAttrs(r.group)}${r.baseline !== 'none' ? ` data-baseline="${r.baseline}"` : ''}>${cells}<td>${r.slots}</td>${values}</tr>`;
    })
    .join('\n');
  return `<div class="scroll"><table id="table-${h(id)}"><thead>${head}</thead><tbody>\n${body}\n</tbody></table></div>`;
}

const METRIC_SERIES: Series[] = [
  { id: 'tpr', label: 'TPR', className: 's0' },
  { id: 'cov', label: 'Cov', className: 's1' },
  { id: 'ir', label: 'IR', className: 's2' },
];

function languageChart(t: MetricTable, id: string, title: string): string {
  const groups = t.rows.map((r) => ({
    label: r.group.language + baselineMark(r.baseline),
    key: r.group.language,
    bars: METRIC_SERIES.map((s) => {
      const e = r.metrics[s.id as MetricId];
      return { series: s.id, value: e?.value ?? null, low: e?.low ?? null, high: e?.high ?? null };
    }),
  }));
  return `<figure>${groupedBarChart({ id, title, groups, series: METRIC_SERIES })}<figcaption>${h(title)}; whiskers: 95% bootstrap intervals.</figcaption></figure>`;
}

function failureChart(t: FailureTable, id: string): string {
  const series: Series[] = t.rows.map((r) => ({ id: r.category, label: FAILURE_ROW_LABELS[r.category], className: `cat-${r.category}` }));
  const fields = Object.keys(t.columns[0]?.group ?? {});
  const bars = t.columns.map((c, i) => ({
    label: columnLabel(c.group, fields) + baselineMark(c.baseline),
    segments: t.rows.map((r) => ({ series: r.category, value: r.shares[i], count: r.counts[i] })),
  }));
  return `<figure>${stackedBarChart({ id, title: t.title, bars, series })}<figcaption>Share of all slots per failure category; each bar sums to 100%.</figcaption></figure>`;
}

function failureTableHtml(t: FailureTable): string {
  const fields = Object.keys(t.columns[0]?.group ?? {});
  const head = `<tr><th class="name">Category</th>${t.columns.map((c) => `<th${dataAttrs(c.group)}>${h(columnLabel(c.group, fields) + baselineMark(c.baseline))}</th>`).join('')}</tr>`;
  const body = t.rows
    .map((r) => `<tr data-category="${r.category}"><td class="name">${h(r.label)}</td>${r.shares.map((s, i) => `<td>${fmt(s)} <span class="ci">(${r.counts[i]})</span></td>`).join('')}</tr>`)
    .join('\n');
  const total = `<tr class="pooled"><td class="name">Slots</td>${t.columns.map((c) => `<td>${c.slots}</td>`).join('')}</tr>`;
  return `<div class="scroll"><table id="table-failures"><thead>${head}</thead><tbody>\n${body}\n${total}</tbody></table></div>`;
}

function invocationGapHtml(t: InvocationGapTable): string {
  const share = (s: InvocationGapTable['rows'][number]['notInvoked']): string =>
    s.value === null ? '—' : `${fmt(s.value)} <span class="ci">[${fmt(s.low)}, ${fmt(s.high)}] (${s.count})</span>`;
  const body = t.rows
    .map(
      (r) =>
        `<tr data-language="${h(r.language)}"${r.language === ALL ? ' class="pooled"' : ''}><td class="name">${h(r.language + baselineMark(r.baseline))}</td><td>${r.slots}</td><td>${r.passing}</td><td>${share(r.notInvoked)}</td><td>${share(r.notInvokedStrict)}</td></tr>`,
    )
    .join('\n');
  return `<div class="scroll"><table id="table-invocation-gap"><thead><tr><th class="name">Language</th><th>N</th><th>Passing</th><th>Passing, focal not called (%)</th><th>Passing, not called, strict (%)</th></tr></thead><tbody>\n${body}\n</tbody></table></div>`;
}

function section(id: string, title: string, description: string, ...content: string[]): string {
  return `<section id="${h(id)}"><h2>${h(title)}</h2><p class="muted">${h(description)}</p>${content.join('\n')}</section>`;
}

function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="generator" content="xrepotest report">
<title>${h(title)}</title>
<style>${CSS}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

/** Who scored the slots, what the release's harness does not record, and N's difference, before any number. */
function harnessNotice(report: Report): string {
  const t = report.totals;
  const lines = [`Scored by ${scoredBy(t.harnesses)}.${t.harnesses.release ? ` ${releaseNote(t.harnesses.release, t.slots)}` : ''}`];
  for (const d of differenceFor(report.differences, 'n')) lines.push(`Differs from the release's harness: ${d.text}${itemRef(d)}`);
  return `<div id="harness">${lines.map((l) => `<p class="muted">${h(l)}</p>`).join('')}</div>`;
}

function baselineNotice(slots: number, total: number): string {
  return slots ? `<p class="notice" role="note" id="baseline-notice"><strong>${slots} of ${total} slots come from the offline baseline provider: a lower bound, not a model's result.</strong> ${h(BASELINE_LEGEND)}</p>` : '';
}

/** Slots the harness could not score, before any rate: they are left out of N everywhere below. */
function environmentSectionHtml(report: Report): string {
  const e = report.environment;
  if (!e?.slots) return '';
  const body = e.rows
    .map(
      (r) =>
        `<tr data-language="${h(r.language)}"><td class="name">${h(r.language)}</td><td class="name">${h(r.repository)}</td><td>${r.count} of ${r.of}</td>` +
        `<td class="name">${r.reasons.map((x) => `${x.count}× <code>${h(x.cause)}</code>: ${h(x.reason)}`).join('<br>')}</td></tr>`,
    )
    .join('\n');
  return section(
    'environment',
    'Environment failures',
    `${e.slots} slots could not be scored: the harness or the machine could not build or run the project. They are not the test's fault and are left out of N in every table.`,
    `<div class="scroll"><table id="table-environment"><thead><tr><th class="name">Language</th><th class="name">Repository</th><th>Slots</th><th class="name">Cause and fix</th></tr></thead><tbody>\n${body}\n</tbody></table></div>`,
  );
}

function card(label: string, value: string, small = ''): string {
  return `<div class="card"><div class="small">${h(label)}</div><div class="big">${h(value)}</div>${small ? `<div class="small">${h(small)}</div>` : ''}</div>`;
}

function overview(report: Report): string {
  const t = report.totals;
  const pooled = report.tables.languages.rows[report.tables.languages.rows.length - 1];
  const e = (m: MetricId): string => fmtEstimate(pooled?.metrics[m] ?? null).value;
  const ci = (m: MetricId): string => fmtEstimate(pooled?.metrics[m] ?? null).ci;
  return `<div class="cards" id="overview">${[
    card('Slots (generated tests scored)', String(t.slots), `${t.tasks} tasks, ${t.repositories} repositories`),
    card('Languages', String(t.languages.length), t.languages.join(', ')),
    card('TPR % (all of a test\'s cases pass)', e('tpr'), ci('tpr')),
    card('Cov % (function lines run)', e('cov'), ci('cov')),
    card('IR % (the test calls the function)', e('ir'), ci('ir')),
    ...(t.mutationRan ? [card('MS % (mutants caught)', e('ms'), ci('ms'))] : []),
  ].join('')}</div>`;
}

function glossary(report: Report): string {
  const s = report.statistics;
  return `<section id="method"><h2>How to read this report</h2><ul>${metricsShown(report)
    .map(
      (m) =>
        `<li><strong>${h(METRIC_LABELS[m])}</strong>: ${h(METRIC_DESCRIPTIONS[m])}${differenceFor(report.differences, m)
          .map((d) => `. <em>Differs from the release's harness:</em> ${h(d.text + itemRef(d))}`)
          .join('')}</li>`,
    )
    .join('')}</ul><p class="muted">Every rate divides by all slots: a slot with no build counts as 0. Intervals: ${Math.round(s.level * 100)}% ${h(s.method)}; ${s.resamples} resamples, seed ${s.seed}.${
    report.totals.mutationRan ? '' : ' MS and MS@Pass are not shown: mutation testing did not run for any slot.'
  }</p></section>`;
}

/** Each release summary.json read with the rows, key for key against what its rows give. */
function releaseSummariesHtml(report: Report): string {
  if (!report.releaseSummaries.length) return '';
  const num = (x: number | null): string => (x === null ? '—' : Number.isInteger(x) ? String(x) : x.toFixed(4));
  const tables = report.releaseSummaries.map((s) => {
    if (!s.check) {
      const rows = Object.entries(s.summary).filter(([, v]) => typeof v === 'number').map(([k, v]) => `<tr><td class="name">${h(k)}</td><td>${num(v as number)}</td></tr>`);
      return `<p class="muted"><code>${h(s.file)}</code>: no detailed_results.jsonl beside it was loaded; shown as given.</p><table><thead><tr><th class="name">Key</th><th>summary.json</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
    }
    const bad = s.check.filter((c) => !c.agrees).length;
    const rows = s.check.map((c) => `<tr data-key="${h(c.key)}"${c.agrees ? '' : ' class="differs"'}><td class="name">${h(c.key)}</td><td>${num(c.summary)}</td><td>${num(c.rows)}</td><td class="name">${c.agrees ? 'agrees' : '<strong>differs</strong>'}</td></tr>`);
    return `<p class="muted"><code>${h(s.file)}</code> against its rows <code>${h(s.rowsFile ?? '')}</code>: <strong>${bad ? `${bad} key(s) differ` : 'every key agrees'}</strong>.</p><table><thead><tr><th class="name">Key</th><th>summary.json</th><th>From its rows</th><th class="name"></th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
  });
  return section(
    'release-summaries',
    "The release's summary.json, key for key",
    'What the harness wrote, and what its formulas give for the rows loaded here (total_samples counts tasks; rates are percent of tasks × responses; avg_mutation_score is its micro average, 0..1).',
    ...tables,
  );
}

function reportSections(report: Report): string[] {
  const metrics = metricsShown(report);
  const t = report.tables;
  const out = [
    section('languages', t.languages.title, t.languages.description, languageChart(t.languages, 'chart-languages', 'TPR, Cov and IR per language (%)'), metricTableHtml(t.languages, metrics)),
    section('modes', t.modes.title, t.modes.description, metricTableHtml(t.modes, metrics)),
  ];
  if (t.models) out.push(section('models', t.models.title, t.models.description, metricTableHtml(t.models, metrics)));
  out.push(
    section('failures', t.failures.title, t.failures.description, failureChart(t.failures, 'chart-failures'), failureTableHtml(t.failures)),
    ...(t.improvement
      ? [
          section(
            'improvement',
            t.improvement.title,
            `${t.improvement.description} ${report.totals.improvedSlots} of ${report.totals.slots} slots kept at least one test of an improvement round (${report.totals.keptTests} tests kept in all).`,
            metricTableHtml(t.improvement, IMPROVEMENT_TABLE.filter((m) => metricRan(m, report.totals))),
          ),
        ]
      : []),
    section('invocation-gap', t.invocationGap.title, t.invocationGap.description, invocationGapHtml(t.invocationGap)),
    section('repositories', t.repositories.title, t.repositories.description, metricTableHtml(t.repositories, metrics)),
    releaseSummariesHtml(report),
  );
  return out.filter(Boolean);
}

export function reportHtml(report: Report): string {
  const t = report.totals;
  const lede = `${t.slots} slots in ${t.languages.join(', ') || 'no language'}; modes: ${t.modes.join(', ') || '—'}; models: ${t.models.join(', ') || '—'}.`;
  const body = [`<header><h1>${h(report.label)}</h1><p class="muted">${h(lede)}</p>${harnessNotice(report)}${baselineNotice(t.baselineSlots, t.slots)}</header>`, overview(report), environmentSectionHtml(report), ...reportSections(report), glossary(report)].filter(Boolean);
  return page(report.label, body.join('\n'));
}

function comparisonTableHtml(c: Comparison): string {
  const method = (m: string): string => (m === 'exact-binomial' ? 'exact binomial' : m === 'chi-square-cc' ? 'χ² (cont. corr.)' : 'no discordant pairs');
  const body = c.rows
    .map(
      (r) =>
        `<tr data-language="${h(r.language)}"${r.language === ALL ? ' class="pooled"' : ''}><td class="name">${h(r.language)}</td><td>${r.pairs}</td><td>${fmt(r.tprA)}</td><td>${fmt(r.tprB)}</td>` +
        `<td>${fmt(r.delta.value)} <span class="ci">[${fmt(r.delta.low)}, ${fmt(r.delta.high)}]</span></td><td>${r.test.onlyA}</td><td>${r.test.onlyB}</td><td class="name">${method(r.test.method)}</td>` +
        `<td>${fmtStatistic(r.test)}</td><td>${fmtP(r.test.p)}</td><td data-p-holm="${r.pHolm}">${fmtP(r.pHolm)}</td><td${r.significant ? ' class="sig"' : ''}>${stars(r.pHolm)}</td></tr>`,
    )
    .join('\n');
  return `<div class="scroll"><table id="table-comparison"><thead><tr><th class="name">Language</th><th>Pairs</th><th>TPR ${h(c.labelA)}</th><th>TPR ${h(c.labelB)}</th><th>Δ (B − A)</th><th>Only A passes</th><th>Only B passes</th><th class="name">Test</th><th>Statistic</th><th>p</th><th>p (Holm)</th><th></th></tr></thead><tbody>\n${body}\n</tbody></table></div>`;
}

export function comparisonHtml(cmp: ComparisonReport): string {
  const c = cmp.comparison;
  const [a, b] = cmp.runs;
  const title = `Comparison: ${a.label} vs ${b.label}`;
  const series: Series[] = [
    { id: 'A', label: `TPR ${a.label}${c.baselineA ? ' †' : ''}`, className: 's0' },
    { id: 'B', label: `TPR ${b.label}${c.baselineB ? ' †' : ''}`, className: 's1' },
  ];
  const langs = [...new Set([...a.tables.languages.rows, ...b.tables.languages.rows].map((r) => r.group.language))];
  const tprOf = (r: Report, lang: string) => r.tables.languages.rows.find((x) => x.group.language === lang)?.metrics.tpr ?? null;
  const groups = langs.map((lang) => ({
    label: lang,
    bars: (
      [
        ['A', tprOf(a, lang)],
        ['B', tprOf(b, lang)],
      ] as const
    ).map(([id, e]) => ({ series: id, value: e?.value ?? null, low: e?.low ?? null, high: e?.high ?? null })),
  }));
  const notes = [
    `McNemar's test on paired pass/fail (exact binomial below 25 discordant pairs, else χ² with continuity correction); p-values Holm-Bonferroni adjusted over the ${c.rows.length} test(s) shown; α = ${c.alpha}. *** p < 0.001, ** p < 0.01, * p < 0.05, ns: not significant.`,
    `Paired by ${c.pairedBy === 'id' ? 'stable task id' : 'language and task_id'} + sample + round; unpaired slots: ${c.unpairedA} in ${a.label}, ${c.unpairedB} in ${b.label}.`,
    ...(c.duplicatesA || c.duplicatesB ? [`Repeated pairing keys (only the first slot used): ${c.duplicatesA} in ${a.label}, ${c.duplicatesB} in ${b.label}.`] : []),
    `A = ${a.label}, scored by ${c.scoredByA}; B = ${b.label}, scored by ${c.scoredByB}.`,
    ...cmp.differences.map((d) => `Differs from the release's harness: ${d.text}${itemRef(d)}`),
    ...cmp.runs.flatMap((run) => (run.totals.harnesses.release ? [`${run.label}: ${releaseNote(run.totals.harnesses.release, run.totals.slots)}`] : [])),
  ];
  const body = [
    `<header><h1>${h(title)}</h1>${baselineNotice(a.totals.baselineSlots, a.totals.slots)}${baselineNotice(b.totals.baselineSlots, b.totals.slots)}</header>`,
    section(
      'comparison',
      'Paired comparison',
      `${a.label} (A) against ${b.label} (B), slot by slot.`,
      `<figure>${groupedBarChart({ id: 'chart-comparison', title: 'TPR per language (%)', groups, series })}<figcaption>TPR of each run over all its slots; whiskers: 95% bootstrap intervals.</figcaption></figure>`,
      comparisonTableHtml(c),
      notes.map((n) => `<p class="muted">${h(n)}</p>`).join(''),
    ),
    ...cmp.runs.map((run, i) =>
      section(`run-${i === 0 ? 'a' : 'b'}`, `${run.label}: per language`, run.tables.languages.description, metricTableHtml(run.tables.languages, metricsShown(run), `languages-${i === 0 ? 'a' : 'b'}`)),
    ),
    glossary(a),
  ];
  return page(title, body.join('\n'));
}
