import * as fs from 'node:fs';
import * as path from 'node:path';
import { formatProblem } from '../engine/tasks/jsonl';
import { summarizeSlotsByLanguage } from '../engine/report/summary';
import { buildComparisonReport, buildReportFromSlots, type ComparisonReport } from '../engine/report/report';
import type { Slot } from '../engine/report/slots';
import { comparisonJson, reportJson, REPORT_SCHEMA } from '../engine/report/json';
import type { ReleaseSummaryInput } from '../engine/report/release-summary';
import { comparisonMarkdown, reportMarkdown } from '../engine/report/markdown';
import { comparisonHtml, reportHtml } from '../engine/report/html';
import { loadResults } from '../engine/report/load';
import { duplicatesNote } from '../engine/report/dedupe';
import { fmtP } from '../engine/report/format';
import { stars } from '../engine/report/compare';
import { itemRef, releaseNote } from '../engine/report/harness-notes';
import { formatReleaseSummaries, formatSummaryText } from '../engine/report/summary-text';
import { forTerminal } from '../engine/util/terminal';
import type { ReportFormat } from './commands/report';

/** `xrepotest report`'s work; its flags are commands/report.ts. */

export { formatSummaryText };

export interface ReportCommandOptions {
  format: ReportFormat;
  /** Write the report here instead of standard output. */
  out?: string;
  /** The two inputs are runs A and B: test them against each other. */
  compare?: boolean;
  /** The report's title (default: the input's name). */
  label?: string;
  seed?: number;
  resamples?: number;
}

export function formatComparisonText(cmp: ComparisonReport): string {
  const c = cmp.comparison;
  const lines = [
    `A = ${c.labelA}, B = ${c.labelB}; McNemar on paired pass/fail, Holm-adjusted`,
    'language  pairs  TPR A  TPR B   B-A  onlyA onlyB  p(Holm)',
  ];
  for (const r of c.rows) {
    lines.push(
      `${r.language.padEnd(8)} ${String(r.pairs).padStart(6)} ${r.tprA.toFixed(1).padStart(6)} ${r.tprB.toFixed(1).padStart(6)} ${r.delta.value.toFixed(1).padStart(5)} ${String(r.test.onlyA).padStart(6)} ${String(r.test.onlyB).padStart(5)}  ${fmtP(r.pHolm)} ${stars(r.pHolm)}`,
    );
  }
  lines.push(`unpaired slots: ${c.unpairedA} in A, ${c.unpairedB} in B`);
  lines.push(`A scored by ${c.scoredByA}; B scored by ${c.scoredByB}`);
  for (const run of cmp.runs) if (run.totals.harnesses.release) lines.push(`${run.label}: ${releaseNote(run.totals.harnesses.release, run.totals.slots)}`);
  for (const d of cmp.differences) lines.push(`differs from the release's harness: ${d.text}${itemRef(d)}`);
  if (c.baselineA || c.baselineB) lines.push(`${[c.baselineA ? 'A' : '', c.baselineB ? 'B' : ''].filter(Boolean).join(' and ')} holds offline baseline slots: a lower bound, not a model's result`);
  return lines.join('\n');
}

function writeOutput(text: string, out: string | undefined): void {
  if (!out) {
    // On a terminal, names and reasons from the results cannot drive it (files keep the text as is).
    const shown = process.stdout.isTTY ? forTerminal(text) : text;
    process.stdout.write(shown.endsWith('\n') ? shown : shown + '\n');
    return;
  }
  // Through a temporary file, so a browser or CI viewer never opens half a report.
  fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
  const tmp = `${out}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text.endsWith('\n') ? text : text + '\n');
  fs.renameSync(tmp, out);
  process.stderr.write(`xrepotest: wrote ${out}\n`);
}

async function load(inputs: string[]): Promise<{ slots: Slot[]; summaries: ReleaseSummaryInput[] }> {
  const { slots, problems, skipped, duplicates, sources, summaries } = await loadResults(inputs);
  for (const p of problems) process.stderr.write(formatProblem(p) + '\n');
  for (const f of skipped) process.stderr.write(`${f}: no result records, skipped\n`);
  if (duplicates) process.stderr.write(`${inputs.join(', ')}: ${duplicatesNote(duplicates)}\n`);
  for (const s of sources.filter((x) => x.harness === 'release')) {
    process.stderr.write(`${s.file}: ${s.rows} rows of the release's harness, ${s.perTask} response slot(s) per task (${s.slots} slots); not recorded there: ${s.missing.join(', ')}\n`);
  }
  return { slots, summaries };
}

const inputLabel = (input: string): string => path.basename(path.resolve(input)).replace(/\.jsonl$/, '');

/** `xrepotest report`; a bare format is the older call (text or json over result files). */
export async function runReport(inputs: string[], options: ReportFormat | ReportCommandOptions): Promise<number> {
  const opts: ReportCommandOptions = typeof options === 'string' ? { format: options } : options;
  const stats = { seed: opts.seed, resamples: opts.resamples };
  if (opts.compare) {
    if (inputs.length !== 2) throw new Error(`--compare takes two runs (files or folders), got ${inputs.length}`);
    const [a, b] = await Promise.all(inputs.map((input) => load([input])));
    for (const [side, input] of [[a, inputs[0]], [b, inputs[1]]] as const) {
      if (!side.slots.length && side.summaries.length) throw new Error(`${input} holds only a summary.json: a paired comparison needs each slot's verdict, in the detailed_results.jsonl beside it`);
    }
    const labels = inputLabel(inputs[0]) === inputLabel(inputs[1]) ? inputs : inputs.map(inputLabel);
    const cmp = buildComparisonReport({ label: labels[0], slots: a.slots }, { label: labels[1], slots: b.slots }, stats);
    const text =
      opts.format === 'json'
        ? JSON.stringify(comparisonJson(cmp, [summarizeSlotsByLanguage(a.slots), summarizeSlotsByLanguage(b.slots)]), null, 2)
        : opts.format === 'markdown'
          ? comparisonMarkdown(cmp)
          : opts.format === 'html'
            ? comparisonHtml(cmp)
            : formatComparisonText(cmp);
    writeOutput(text, opts.out);
    return cmp.comparison.rows.length ? 0 : 1;
  }
  const { slots, summaries } = await load(inputs);
  if (!slots.length && summaries.length) return summariesOnly(summaries, opts);
  const summary = summarizeSlotsByLanguage(slots);
  if (opts.format === 'text') {
    writeOutput([formatSummaryText(summary), ...(summaries.length ? [formatReleaseSummaries(summaries)] : [])].join('\n'), opts.out);
  } else {
    const report = buildReportFromSlots(slots, { ...stats, releaseSummaries: summaries, label: opts.label ?? (inputs.length === 1 ? `XRepoTest report: ${inputLabel(inputs[0])}` : 'XRepoTest report') });
    const text = opts.format === 'json' ? JSON.stringify(reportJson(summary, report), null, 2) : opts.format === 'markdown' ? reportMarkdown(report) : reportHtml(report);
    writeOutput(text, opts.out);
  }
  return slots.length ? 0 : 1;
}

/** Only the release's summary.json files, without rows: their keys as given (no tables or intervals without per-slot rows). */
function summariesOnly(summaries: ReleaseSummaryInput[], opts: ReportCommandOptions): number {
  if (opts.format === 'markdown' || opts.format === 'html') {
    throw new Error(`a summary.json alone has no per-slot rows to build ${opts.format} tables from: give the detailed_results.jsonl beside it, or use --format text or json`);
  }
  writeOutput(opts.format === 'json' ? JSON.stringify({ schema: REPORT_SCHEMA, release_summaries: summaries }, null, 2) : formatReleaseSummaries(summaries), opts.out);
  return 0;
}



/** Adds `report` to the program. */
