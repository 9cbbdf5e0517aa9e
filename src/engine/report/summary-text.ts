import { FAILURE_CATEGORY_LABELS, type FailureCategory } from '../score/types';
import { harnessDifferences, itemRef, releaseNote, scoredBy } from './harness-notes';
import { METRIC_LABELS, type MetricId } from './metrics';
import type { ReleaseSummaryInput } from './release-summary';
import type { Summary, SummaryBlock } from './summary';

const f = (n: number | null | undefined): string => (n === null || n === undefined ? '—' : n.toFixed(1)).padStart(6);

function row(name: string, s: SummaryBlock, mutation: boolean): string {
  const cells = [s.compiled_rate, s.test_pass_rate, s.line_coverage, s.coverage_at_pass, s.invocation_rate, s.strict_invocation_rate, ...(mutation ? [s.mutation_score] : [])];
  return `${name.padEnd(8)} ${String(s.total_tasks).padStart(5)} ${String(s.total_slots).padStart(5)} ${cells.map(f).join(' ')}`;
}

/** The quick summary: point estimates only; the Markdown and HTML reports have the intervals. */
export function formatSummaryText(s: Summary): string {
  const mutation = s.mutation_score !== undefined;
  const lines = [`language tasks slots    CSR    TPR    Cov  Cov@P     IR  IRstr${mutation ? '     MS' : ''}   (percent of the slots, N; Cov@P over passing slots)`];
  for (const [lang, block] of Object.entries(s.languages)) lines.push(row(lang, block, mutation));
  if (Object.keys(s.languages).length > 1) lines.push(row('all', s, mutation));
  if (s.baseline_samples) {
    lines.push(`${s.baseline_samples} of ${s.total_slots} slots come from the offline baseline provider: a lower bound, not a model's result`);
  }
  if (s.environment_samples) {
    lines.push(`environment failures: ${s.environment_samples} of ${s.total_slots + s.environment_samples} slots, not the test's fault and left out of N:`);
    for (const [lang, block] of Object.entries(s.languages)) {
      for (const r of block.environment_reasons) lines.push(`  ${lang} ${r.count}x [${r.cause}] ${r.reason}`);
    }
  }
  lines.push('failure categories (percent of N):');
  for (const [cat, share] of Object.entries(s.failure_categories)) {
    const label = cat === 'none' ? 'No error / pass' : cat === 'not_recorded' ? 'Failed, not recorded' : FAILURE_CATEGORY_LABELS[cat as FailureCategory];
    lines.push(`  ${label.padEnd(26)} ${share.toFixed(1).padStart(6)}`);
  }
  const harnesses = { xrepotest: s.scored_by.xrepotest, release: s.scored_by.release_harness };
  lines.push(`scored by ${scoredBy(harnesses)}`);
  if (harnesses.release) lines.push(releaseNote(harnesses.release, s.total_slots));
  // Where the numbers above differ from the release's harness (METRICS.md), each named by the number it touches.
  const shown = new Set<string>(['n', 'csr', 'cov', 'covAtPass', 'irStrict', 'ms', 'total_samples']);
  const names: Record<string, string> = { n: 'N', total_samples: 'total_samples' };
  const differences = harnessDifferences({ languages: Object.keys(s.languages), harnesses, mutation }).filter((d) => shown.has(d.on));
  for (const d of differences) lines.push(`differs from the release's harness, ${names[d.on] ?? METRIC_LABELS[d.on as MetricId]}: ${d.text}${itemRef(d)}`);
  return lines.join('\n');
}

const num = (x: number | null): string => (x === null ? '—' : Number.isInteger(x) ? String(x) : x.toFixed(4));

/** Each release summary.json: its keys as given and, where its rows were loaded, as the rows give them. */
export function formatReleaseSummaries(inputs: readonly ReleaseSummaryInput[]): string {
  const lines: string[] = [];
  for (const s of inputs) {
    if (!s.check) {
      lines.push(`the release's summary.json ${s.file} (no detailed_results.jsonl beside it was loaded: shown as given; total_samples counts tasks, rates are percent of tasks x responses):`);
      for (const [k, v] of Object.entries(s.summary)) if (typeof v === 'number') lines.push(`  ${k.padEnd(36)} ${num(v).padStart(12)}`);
      for (const [k, v] of Object.entries(s.summary.mutation_testing ?? {})) lines.push(`  ${`mutation_testing.${k}`.padEnd(36)} ${num(v).padStart(12)}`);
      continue;
    }
    const bad = s.check.filter((c) => !c.agrees);
    lines.push(`the release's summary.json ${s.file} against its rows ${s.rowsFile}: ${bad.length ? `${bad.length} key(s) DIFFER` : 'every key agrees'}`);
    lines.push(`  ${'key'.padEnd(36)} ${'summary.json'.padStart(12)} ${'from rows'.padStart(12)}`);
    for (const c of s.check) lines.push(`  ${c.key.padEnd(36)} ${num(c.summary).padStart(12)} ${num(c.rows).padStart(12)}${c.agrees ? '' : '   DIFFERS'}`);
  }
  return lines.join('\n');
}
