import type { Summary } from './summary';
import type { ComparisonReport, Report } from './report';

/** Bumped when a key changes meaning, so consumers can tell. */
export const REPORT_SCHEMA = 'xrepotest-report/1';

/**
 * The release's summary.json keys (and ours) at the top level, as `report --format json` always
 * printed them, with the full report beside them under `report`.
 */
export function reportJson(summary: Summary, report: Report): Summary & { schema: string; report: Report } {
  return { schema: REPORT_SCHEMA, ...summary, report };
}

export function comparisonJson(cmp: ComparisonReport, summaries: [Summary, Summary]): object {
  return {
    schema: REPORT_SCHEMA,
    comparison: cmp.comparison,
    differences: cmp.differences,
    runs: cmp.runs.map((report, i) => ({ label: report.label, ...summaries[i], report })),
  };
}
