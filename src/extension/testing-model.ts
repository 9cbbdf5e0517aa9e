/**
 * The Testing view's decisions that need no editor: labels, states, and the coverage a run shows.
 * No `vscode` import, so plain Node unit tests cover it.
 */
import type { FocalLine, ScoreFunctionResult } from '../shared/scoring-protocol';

export type ItemState = 'passed' | 'failed' | 'errored' | 'skipped';

/** `offline baseline test 1`, `claude-sonnet-4-5 test 2 (repair 1)`: who wrote the test, its number under the function, its repair. */
export function candidateLabel(model: string, seq: number, round: number): string {
  const author = model === 'baseline' ? 'offline baseline' : model;
  return `${author} test ${seq}${round > 0 ? ` (repair ${round})` : ''}`;
}

/**
 * A candidate's own state: a compile failure is an error (no test ran), a failing assertion is a
 * failure, anything else that did not pass (no test ran, a crash outside the tests) is an error.
 */
export function candidateState(r: Pick<ScoreFunctionResult, 'compiled' | 'passed' | 'cases'>): ItemState {
  if (!r.compiled) return 'errored';
  if (r.passed) return 'passed';
  return r.cases.some((c) => c.status === 'failed') ? 'failed' : 'errored';
}

/** Which menu a message gets: assertion failures can be repaired; errors only regenerated or accepted. */
export function messageContext(state: ItemState): 'xrepotest.failed' | 'xrepotest.errored' {
  return state === 'failed' ? 'xrepotest.failed' : 'xrepotest.errored';
}

/** Per focal file: each executable line, covered when any candidate of the run covered it. */
export class CoverageAccumulator {
  private readonly files = new Map<string, { lines: Map<number, boolean>; functions: Map<string, { name: string; startLine: number; endLine: number; covered: boolean }> }>();

  add(r: Pick<ScoreFunctionResult, 'focalFile' | 'focalLines' | 'functionName' | 'startLine' | 'endLine'>): void {
    if (!r.focalLines.length) return; // no report: nothing measured, not "nothing covered"
    let file = this.files.get(r.focalFile);
    if (!file) this.files.set(r.focalFile, (file = { lines: new Map(), functions: new Map() }));
    for (const l of r.focalLines) file.lines.set(l.line, (file.lines.get(l.line) ?? false) || l.covered);
    const key = `${r.startLine}:${r.functionName}`;
    const covered = r.focalLines.some((l) => l.covered) || (file.functions.get(key)?.covered ?? false);
    file.functions.set(key, { name: r.functionName, startLine: r.startLine, endLine: r.endLine, covered });
  }

  /** Files in a stable order, lines ascending. */
  result(): Array<{ file: string; lines: FocalLine[]; functions: Array<{ name: string; startLine: number; endLine: number; covered: boolean }> }> {
    return [...this.files.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([file, f]) => ({
        file,
        lines: [...f.lines.entries()].sort(([a], [b]) => a - b).map(([line, covered]) => ({ line, covered })),
        functions: [...f.functions.values()].sort((a, b) => a.startLine - b.startLine),
      }));
  }
}
