import { readJsonl, formatProblem, type JsonlProblem } from '../engine/tasks/jsonl';
import { summarizeByLanguage, type ResultRecord, type Summary, type SummaryBlock } from '../engine/store/results';
import { FAILURE_CATEGORY_LABELS, type FailureCategory } from '../engine/score/types';

function row(name: string, s: SummaryBlock): string {
  const f = (n: number): string => n.toFixed(1).padStart(6);
  return `${name.padEnd(8)} ${String(s.total_samples).padStart(5)} ${f(s.compiled_rate)} ${f(s.test_pass_rate)} ${f(s.line_coverage)} ${f(s.coverage_at_pass)} ${f(s.invocation_rate)} ${f(s.strict_invocation_rate)}`;
}

export function formatSummaryText(s: Summary): string {
  const lines = ['language     N    CSR    TPR    Cov  Cov@P     IR  IRstr   (percent of N; Cov@P over passing slots)'];
  for (const [lang, block] of Object.entries(s.languages)) lines.push(row(lang, block));
  if (Object.keys(s.languages).length > 1) lines.push(row('all', s));
  lines.push('failure categories (percent of N):');
  for (const [cat, share] of Object.entries(s.failure_categories)) {
    const label = cat === 'none' ? 'No error / pass' : FAILURE_CATEGORY_LABELS[cat as FailureCategory];
    lines.push(`  ${label.padEnd(26)} ${share.toFixed(1).padStart(6)}`);
  }
  return lines.join('\n');
}

export async function runReport(files: string[], format: 'text' | 'json'): Promise<number> {
  const problems: JsonlProblem[] = [];
  const results: ResultRecord[] = [];
  for (const file of files) {
    for await (const { line, value } of readJsonl(file, problems)) {
      const r = value as ResultRecord;
      if (!r || !Array.isArray(r.checks) || !r.xrt) {
        problems.push({ file, line, message: 'not a result record (run `xrepotest run` to make them)' });
        continue;
      }
      results.push(r);
    }
  }
  for (const p of problems) process.stderr.write(formatProblem(p) + '\n');
  const summary = summarizeByLanguage(results);
  process.stdout.write(format === 'json' ? JSON.stringify(summary, null, 2) + '\n' : formatSummaryText(summary) + '\n');
  return results.length ? 0 : 1;
}
