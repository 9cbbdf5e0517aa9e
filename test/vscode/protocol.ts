/**
 * What the suite (inside VS Code's extension host) and the runner (outside, driving the browser)
 * say to each other. The only channel out of the extension host is its log, which the workbench
 * forwards to the runner through VS Code's test-driver hook `codeAutomationLog`; the runner answers
 * through files, because nothing flows back into the extension host.
 */

/** A log line: the suite starts; the workbench's own log before it matters only when nothing runs. */
export const START_MARKER = '[xrepotest:start]';
/** A log line `<prefix><json ScreenshotRequest>`: the runner saves a screenshot of the workbench. */
export const SCREENSHOT_MARKER = '[xrepotest:screenshot] ';
/** A log line `<prefix><json SuiteCounts>`: the suite's own totals, for the runner's closing line. */
export const RESULT_MARKER = '[xrepotest:result] ';
/** Environment variable naming the gopls the test extension gopls-client starts (set when it exists). */
export const GOPLS_ENV = 'XREPOTEST_TEST_GOPLS';
/** Environment variable naming the folder the runner saves screenshots (and their receipts) in. */
export const SCREENSHOTS_ENV = 'XREPOTEST_VSCODE_SCREENSHOTS';

export interface ScreenshotRequest {
  /** File name without extension: `<name>.png`, and the receipt `<name>.json`. */
  name: string;
  /** Text the workbench must show first (the runner waits for it, then shoots either way). */
  waitForText?: string;
  /** Whether to measure the open Testing peek's message: its action button against the message's text. */
  peekActions?: boolean;
}

/** Written by the runner as `<name>.json` once `<name>.png` is complete: what the page showed. */
export interface ScreenshotReceipt {
  name: string;
  file: string;
  /** Whether `waitForText` appeared in the workbench (null when none was asked for). */
  textFound: boolean | null;
  /**
   * Whether the text, where it sits inside an editor (a code lens), ends within that editor's visible
   * width, not cut off at its right edge (null when not asked, not found, or not in an editor).
   */
  fitsEditor?: boolean | null;
  /**
   * With `peekActions`: the Testing peek's message and the action button VS Code draws over it
   * (`testing/message/content`), measured in the page (null: no peek message with a button showed).
   */
  peek?: PeekMeasure | null;
}

export interface PeekMeasure {
  /** The button lies whole inside the message's area (not cut off at its bottom). */
  buttonInside: boolean;
  /** Lines of the message's text that the button's box overlaps (their text). */
  covered: string[];
  /** The button's label. */
  button: string;
  /** The start of the message's text, to tell which message was measured. */
  text: string;
}

/** A log line `<prefix><json InputRequest>`: the runner types into the workbench, as a user would. */
export const INPUT_MARKER = '[xrepotest:input] ';

/** One step: wait until the workbench shows `waitForText`, click `click`, then type `type`, then press `press`. */
export interface InputStep {
  waitForText?: string;
  /** A CSS selector: its first visible match is clicked, as a user points at a row (a tree with no keyboard focus yet). */
  click?: string;
  type?: string;
  /** A key name playwright knows: `Enter`, `Escape`, `ArrowDown`… */
  press?: string;
}

export interface InputRequest {
  /** The receipt's file name: `<name>.json` in the screenshots folder. */
  name: string;
  steps: InputStep[];
}

/** Written by the runner as `<name>.json` when the steps are done or one could not be: how far it got. */
export interface InputReceipt {
  name: string;
  stepsDone: number;
  /** Why the next step could not be taken (its text never showed); absent when all were done. */
  error?: string;
}

export interface SuiteCounts {
  passed: number;
  failed: number;
  skipped: number;
}

/** The marker's payload if `line` carries one (log lines may have a prefix such as a timestamp). */
export function parseMarker<T>(line: string, marker: string): T | undefined {
  const at = line.indexOf(marker);
  if (at < 0) return undefined;
  try {
    return JSON.parse(line.slice(at + marker.length).trim()) as T;
  } catch {
    return undefined;
  }
}
