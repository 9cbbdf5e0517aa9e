/**
 * The Testing view's decisions that need no editor: labels, states, and the coverage a run shows.
 * No `vscode` import, so plain Node unit tests cover it.
 */
import type { CandidatePhase, FocalLine, ScoreFunctionResult } from '../shared/scoring-protocol';

export type ItemState = 'passed' | 'failed' | 'errored' | 'skipped';

/** `offline baseline test 1`, `claude-sonnet-4-5 test 2 (repair 1)`: who wrote the test, its number under the function, its repair. */
export function candidateLabel(model: string, seq: number, round: number, suiteTests = 1): string {
  const author = model === 'baseline' ? 'offline baseline' : model;
  // "Improve"'s suite: the first test and the kept ones, merged into one file.
  if (suiteTests > 1) return `${author} suite ${seq} (${suiteTests} tests)`;
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

/**
 * What ends a message the Testing peek shows with a button (package.json `testing/message/content`):
 * VS Code 1.100 sizes the message's area to its text and floats the button over its bottom right
 * (`.floating-click-widget`, 10 px from the bottom), so the button covered the text's last line, or
 * was cut off below a one-line message. Empty lines after the text are the room it takes.
 */
export const ROOM_FOR_THE_BUTTON = '\n\n\n';

/** A peek message's text (trailing blank space trimmed), then room for its button. */
export function withRoomForTheButton(text: string): string {
  return text.replace(/\s+$/, '') + ROOM_FOR_THE_BUTTON;
}

/**
 * The Test Coverage view's entry for a scored function. VS Code computes its figure from the statements
 * inside its range, which are the focal function's executable lines: the score's coverage, the lens's
 * number. The file's entry above it is VS Code's own total for the file (those statements plus one per
 * function), so the function's entry is the one that says it is the score's.
 */
export function focalDeclarationName(functionName: string): string {
  return `${functionName} (focal function)`;
}

/**
 * One phase in Test Results: a header, then the runner's text as the engine decoded it (`go test -json`
 * events -> what `go test -v` prints), with the terminal's line endings.
 */
export function phaseOutput(candidate: string, p: Pick<CandidatePhase, 'phase' | 'exitCode' | 'timedOut' | 'output'> & { text?: string }): string {
  const text = (p.text ?? p.output).replace(/\r?\n/g, '\r\n');
  const header = `── ${candidate}: ${p.phase} (exit ${p.exitCode ?? 'killed'}${p.timedOut ? ', timed out' : ''})`;
  return `${header}\r\n${text}${text.endsWith('\r\n') || !text ? '' : '\r\n'}`;
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

/**
 * Whether "Repair with model" can do anything with this provider: the offline baseline reads no
 * prompt (a repair would be the same test again) and replay only plays back what was recorded, so
 * neither is offered Repair; the server refuses the baseline with the reason if it is invoked anyway.
 */
export function canRepair(provider: string): boolean {
  return provider !== 'baseline' && provider !== 'replay';
}

/** A candidate as the quick pick of "Accept into project" / "Open as editable" lists it. */
export interface CandidateSummary {
  /** The Testing view's label, `baseline #1`. */
  label: string;
  result: Pick<ScoreFunctionResult, 'functionName' | 'summary' | 'passed' | 'compiled' | 'provider' | 'model' | 'sample' | 'round' | 'focalFile'>;
}

export interface CandidatePick {
  label: string;
  description: string;
  detail: string;
}

/** Who wrote a test, in plain words: the model (or the baseline, or a hand-written run) and which attempt. */
export function writtenBy(r: Pick<ScoreFunctionResult, 'provider' | 'model' | 'sample' | 'round'>): string {
  const who = r.provider === 'baseline' ? 'the offline baseline (no model)' : r.provider === 'manual' ? 'hand' : r.model && r.model !== r.provider ? `${r.model} (${r.provider})` : r.provider;
  const attempt = `attempt ${r.sample + 1}${r.round > 0 ? `, repair ${r.round}` : ''}`;
  return `written by ${who} · ${attempt}`;
}

/**
 * The palette's list of this session's candidates: newest first, passing ones before the rest (the
 * ones worth keeping), each with its function and score as the description and its author as the detail.
 */
export function candidatePicks(candidates: readonly CandidateSummary[], baseName: (file: string) => string): Array<CandidatePick & { index: number }> {
  const mark = (r: CandidateSummary['result']): string => (r.passed ? '$(pass)' : r.compiled ? '$(error)' : '$(warning)');
  return candidates
    .map((c, index) => ({ c, index }))
    .sort((a, b) => Number(b.c.result.passed) - Number(a.c.result.passed) || b.index - a.index)
    .map(({ c, index }) => ({
      index,
      label: `${mark(c.result)} ${c.result.functionName} — ${c.label}`,
      description: `${baseName(c.result.focalFile)} · ${c.result.summary}`,
      detail: writtenBy(c.result),
    }));
}
