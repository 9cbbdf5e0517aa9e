import { FOCAL_FUNCTIONS_SCHEMA } from './output-schemas';
import { classifyDocument } from '../extract/document';
import { outsideFilterNote, refusalOf } from '../extract/targeting';
import { lineStartOffsets, sliceLines } from '../parse/nodes';
import { defineTool } from './definition';
import { sourceFileOf } from './focal-target';
import { latestScoring, scoringsOfFile } from './known-scores';
import { SELECTOR_PROPERTIES } from './selector-schema';
import { lineRanges, toolScoreOf, type ToolScore } from './tool-score';

export interface FocalFunctionsArgs {
  file: string;
}

export interface FocalFunction {
  name: string;
  startLine: number;
  endLine: number;
  /** Non-comment lines, as the benchmark's filter counts them. */
  lines: number;
  /** A unit test can call it where it is (not test code, an entry point, a nested module…). */
  testable: boolean;
  /** The benchmark's filter keeps it (the paper's focal functions). */
  inBenchmark: boolean;
  /** Why it cannot be tested, or why the benchmark leaves it out (it can still be scored). */
  note?: string;
  /** Its latest kept scoring; `stale` when its code has changed since. */
  score?: ToolScore & { stale: boolean };
}

export interface FocalFunctions {
  file: string;
  language: string;
  functions: FocalFunction[];
}

/** A file's functions with the editor's verdicts (testable, in the benchmark) and their current scores. */
export const FOCAL_FUNCTIONS = defineTool<FocalFunctionsArgs, FocalFunctions>({
  id: 'focalFunctions',
  title: "A file's focal functions and their scores",
  description: (nameOf) =>
    'Lists the functions and methods of one source file of the workspace (Rust, Go, Julia, PHP or Ruby): their lines, whether a unit test can call them ' +
    "where they are, whether the XRepoTest benchmark's filter keeps them, and the latest score of each that has been tested (compiled, passed, " +
    `coverage with the lines not run, calls the function). Start here, then use ${nameOf('scoreTest')} or ${nameOf('generateTests')} on a function.`,
  inputSchema: { type: 'object', additionalProperties: false, required: ['file'], properties: { file: SELECTOR_PROPERTIES.file } },
  outputSchema: FOCAL_FUNCTIONS_SCHEMA,
  runsCode: false,
  callsModel: false,
  async run(services, args) {
    const source = sourceFileOf(services, args.file);
    const root = services.workspace.root;
    const fns = await classifyDocument(source.relPath, source.text, services.filters, root);
    const records = scoringsOfFile(services, source.relPath);
    const lineStarts = lineStartOffsets(source.text);
    return {
      file: source.relPath,
      language: source.adapter.id,
      functions: fns.map((f): FocalFunction => {
        const note = f.untestable !== null ? refusalOf(f, source.relPath, source.adapter.displayName) : outsideFilterNote(f);
        const known = f.untestable === null ? latestScoring(records, { name: f.name, focalCode: sliceLines(source.text, lineStarts, f.startLine, f.endLine) }) : null;
        return {
          name: f.name,
          startLine: f.startLine,
          endLine: f.endLine,
          lines: f.nonCommentLines,
          testable: f.untestable === null,
          inBenchmark: f.rule === null,
          ...(note ? { note } : {}),
          ...(known ? { score: { ...toolScoreOf(known.record, root, services.executorKind), stale: known.stale } } : {}),
        };
      }),
    };
  },
  text(r) {
    if (!r.functions.length) return `${r.file} (${r.language}) has no functions.`;
    const rows = r.functions.map((f) => {
      const tags = [f.testable ? (f.inBenchmark ? 'focal (in the benchmark)' : 'testable') : 'not testable', `lines ${f.startLine}-${f.endLine}`, `${f.lines} lines of code`];
      let line = `- ${f.name}: ${tags.join(', ')}`;
      if (f.score) {
        const s = f.score;
        const verdict = s.environment ? `could not run (${s.environment.cause})` : `${s.passed ? 'passed' : s.compiled ? 'failed' : 'did not compile'}, Cov ${s.coverage.percent}%`;
        line += `; last scored: ${verdict}${s.coverage.uncoveredLines.length ? `, lines not run ${lineRanges(s.coverage.uncoveredLines)}` : ''}, ${s.invoked ? 'calls it' : 'does not call it'}${s.stale ? ' (stale: the code changed since)' : ''}`;
      }
      if (f.note) line += `\n  ${f.note}`;
      return line;
    });
    return [`${r.file} (${r.language}): ${r.functions.length} functions.`, ...rows].join('\n');
  },
});
