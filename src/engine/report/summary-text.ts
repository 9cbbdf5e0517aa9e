import type { Summary, SummaryBlock } from '../store/results';
import { FAILURE_CATEGORY_LABELS, type FailureCategory } from '../score/types';

function row(name: string, s: SummaryBlock): string {
  const f = (n: number): string => n.toFixed(1).padStart(6);
  return `${name.padEnd(8)} ${String(s.total_samples).padStart(5)} ${f(s.compiled_rate)} ${f(s.test_pass_rate)} ${f(s.line_coverage)} ${f(s.coverage_at_pass)} ${f(s.invocation_rate)} ${f(s.strict_invocation_rate)}`;
}

/** The quick summary: point estimates only; the Markdown and HTML reports have the intervals. */
export function formatSummaryText(s: Summary): string {
  const lines = ['language     N    CSR    TPR    Cov  Cov@P     IR  IRstr   (percent of N; Cov@P over passing slots)'];
  for (const [lang, block] of Object.entries(s.languages)) lines.push(row(lang, block));
  if (Object.keys(s.languages).length > 1) lines.push(row('all', s));
  if (s.baseline_samples) {
    lines.push(`${s.baseline_samples} of ${s.total_samples} slots come from the offline baseline provider: a lower bound, not a model's result`);
  }
  if (s.environment_samples) {
    lines.push(`environment failures: ${s.environment_samples} of ${s.total_samples + s.environment_samples} slots, not the test's fault and left out of N:`);
    for (const [lang, block] of Object.entries(s.languages)) {
      for (const r of block.environment_reasons) lines.push(`  ${lang} ${r.count}x [${r.cause}] ${r.reason}`);
    }
  }
  lines.push('failure categories (percent of N):');
  for (const [cat, share] of Object.entries(s.failure_categories)) {
    const label = cat === 'none' ? 'No error / pass' : FAILURE_CATEGORY_LABELS[cat as FailureCategory];
    lines.push(`  ${label.padEnd(26)} ${share.toFixed(1).padStart(6)}`);
  }
  return lines.join('\n');
}

