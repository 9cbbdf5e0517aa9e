import type { ResultRecord } from '../store/results';
import { defineTool } from './definition';
import { FOCAL_COVERAGE_SCHEMA } from './output-schemas';
import { findFunction, type FunctionSelector } from './focal-target';
import { latestScoring, scoringsOfFile } from './known-scores';
import { SELECTOR_PROPERTIES, SELECTOR_REQUIRED } from './selector-schema';
import { coverageOf, lineRanges, type ToolCoverage } from './tool-score';

export interface FocalCoverage {
  function: string;
  file: string;
  startLine: number;
  endLine: number;
  /** Whether any scoring of this function is kept. */
  known: boolean;
  /** The function's code changed since that scoring: the line numbers are of the older code. */
  stale?: boolean;
  coverage?: ToolCoverage;
  /** The scored test passed (coverage counts for failing tests too, as the paper's Cov). */
  passed?: boolean;
  author?: { provider: string | null; model: string | null };
  testHash?: string;
  /** The passing test of the current code that ran the most lines (absent: none passed). */
  best?: { passed: boolean; coverage: ToolCoverage; author: { provider: string | null; model: string | null }; testHash: string };
  /** The lines any passing test of the current code ran, joined (what the kept tests cover together). */
  union?: ToolCoverage & { tests: number };
}

/** The best passing test of the current code, and the union of what every passing one ran. */
function passingCoverage(records: readonly ResultRecord[], fn: { name: string; focalCode: string }): Pick<FocalCoverage, 'best' | 'union'> {
  const passing = records.filter((r) => r.function_name === fn.name && r.focal_code === fn.focalCode && r.checks[0].tests);
  if (!passing.length) return {};
  // Latest first among equals: the most recent of the tests that ran the most lines.
  const best = passing.reduce((a, b) => (b.coverage_stats[0].covered_line_numbers.length >= a.coverage_stats[0].covered_line_numbers.length ? b : a));
  const executable = best.coverage_stats[0].executable_line_numbers;
  const ran = new Set(passing.flatMap((r) => r.coverage_stats[0].covered_line_numbers));
  const coveredLines = executable.filter((l) => ran.has(l));
  return {
    best: { passed: true, coverage: coverageOf(best), author: { provider: best.xrt.provider, model: best.xrt.model }, testHash: best.xrt.test_hash },
    union: {
      percent: executable.length ? Math.round((10_000 * coveredLines.length) / executable.length) / 100 : 0,
      executableLines: executable,
      coveredLines,
      uncoveredLines: executable.filter((l) => !ran.has(l)),
      tests: passing.length,
    },
  };
}

/** The focal coverage of the function's latest kept scoring (by an agent, the editor, or generate), without running anything. */
export const COVERAGE = defineTool<FunctionSelector, FocalCoverage>({
  id: 'coverage',
  title: "A function's last known coverage",
  description: (nameOf) =>
    "Returns the focal line coverage of the function's latest scored test, with the executable lines it ran and those it did not, without running anything; " +
    'also the best passing test of the current code and the lines all passing tests ran together. ' +
    `Scorings come from ${nameOf('scoreTest')} and ${nameOf('generateTests')}; when the function's code has changed since, the result says it is stale.`,
  inputSchema: { type: 'object', additionalProperties: false, required: [...SELECTOR_REQUIRED], properties: { ...SELECTOR_PROPERTIES } },
  outputSchema: FOCAL_COVERAGE_SCHEMA,
  runsCode: false,
  callsModel: false,
  async run(services, args) {
    const { fn, relPath, focalCode } = await findFunction(services, args);
    const where = { function: fn.name, file: relPath, startLine: fn.startLine, endLine: fn.endLine };
    const records = scoringsOfFile(services, relPath);
    const known = latestScoring(records, { name: fn.name, focalCode });
    if (!known) return { ...where, known: false };
    const x = known.record.xrt;
    return {
      ...where,
      known: true,
      stale: known.stale,
      coverage: coverageOf(known.record),
      passed: known.record.checks[0].tests,
      author: { provider: x.provider, model: x.model },
      testHash: x.test_hash,
      ...passingCoverage(records, { name: fn.name, focalCode }),
    };
  },
  text(r) {
    const where = `${r.function} (${r.file}:${r.startLine}-${r.endLine})`;
    if (!r.known || !r.coverage) return `No test of ${where} has been scored yet: score one to know its coverage.`;
    const c = r.coverage;
    const by = [r.author?.provider, r.author?.model].filter(Boolean).join(' ') || 'unknown author';
    return [
      `Last known coverage of ${where}: ${c.percent}% (${c.coveredLines.length} of ${c.executableLines.length} executable lines), by a test that ${r.passed ? 'passed' : 'failed'} (${by}).`,
      c.uncoveredLines.length ? `Lines not run: ${lineRanges(c.uncoveredLines)}.` : 'Every executable line ran.',
      ...(r.stale ? ['Stale: the function has changed since; the line numbers are of the code that was scored.'] : []),
      ...(r.best && r.union && r.union.tests > 1
        ? [
            `Best passing test: ${r.best.coverage.percent}% (${r.best.coverage.coveredLines.length} lines); the ${r.union.tests} passing tests together: ${r.union.percent}% (${r.union.coveredLines.length} of ${r.union.executableLines.length})` +
              (r.union.uncoveredLines.length ? `, not run by any: ${lineRanges(r.union.uncoveredLines)}.` : ', every executable line.'),
          ]
        : []),
    ].join('\n');
  },
});
