import { defineTool } from './definition';
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
}

/** The focal coverage of the function's latest kept scoring (by an agent, the editor, or generate), without running anything. */
export const COVERAGE = defineTool<FunctionSelector, FocalCoverage>({
  id: 'coverage',
  title: "A function's last known coverage",
  description: (nameOf) =>
    "Returns the focal line coverage of the function's latest scored test, with the executable lines it ran and those it did not, without running anything. " +
    `Scorings come from ${nameOf('scoreTest')} and ${nameOf('generateTests')}; when the function's code has changed since, the result says it is stale.`,
  inputSchema: { type: 'object', additionalProperties: false, required: [...SELECTOR_REQUIRED], properties: { ...SELECTOR_PROPERTIES } },
  runsCode: false,
  callsModel: false,
  async run(services, args) {
    const { fn, relPath, focalCode } = await findFunction(services, args);
    const where = { function: fn.name, file: relPath, startLine: fn.startLine, endLine: fn.endLine };
    const known = latestScoring(scoringsOfFile(services, relPath), { name: fn.name, focalCode });
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
    ].join('\n');
  },
});
