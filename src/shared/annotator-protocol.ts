/**
 * The annotator view: requests from the extension to the engine server (which reads the run folder,
 * so the extension host never parses a big results.jsonl), and the messages between the extension
 * and the webview (media/annotator.js mirrors them).
 */
import type { JSONSchemaType } from 'ajv';
import type { CandidatePhase } from './scoring-protocol';
import { ClientRequest, optional, ServerNotification, str } from './wire';
import {
  WIRE_ANNOTATION_LABELS,
  type WireAnnotation,
  type WireAnnotationLabel,
  type WireExportOutcome,
  type WireFocalSource,
  type WireResultRecord,
  type WireResultRow,
} from './wire-types';

export type AnnotationLabel = WireAnnotationLabel;
export type ResultRow = WireResultRow;

/** Streams a run's results: rows arrive as ANNOTATOR_ROWS notifications of the same session. */
export interface OpenRunParams {
  runDir: string;
  session: string;
}
export interface OpenRunResult {
  rows: number;
  /** Lines that are not result records. */
  skipped: number;
  labels: readonly AnnotationLabel[];
}
export const ANNOTATOR_OPEN_RUN = new ClientRequest<OpenRunParams, OpenRunResult>('xrepotest/annotator/openRun', {
  type: 'object',
  required: ['runDir', 'session'],
  properties: { runDir: str, session: str },
});

export interface RowsNotification {
  session: string;
  rows: ResultRow[];
}
export const ANNOTATOR_ROWS = new ServerNotification<RowsNotification>('xrepotest/annotator/rows');

/** One whole result (test, logs, coverage lines, task). */
export interface ResultParams {
  runDir: string;
  key: string;
}
export type ResultResult = WireResultRecord;
const RESULT_PARAMS_SCHEMA: JSONSchemaType<ResultParams> = { type: 'object', required: ['runDir', 'key'], properties: { runDir: str, key: str } };
export const ANNOTATOR_RESULT = new ClientRequest<ResultParams, ResultResult>('xrepotest/annotator/result', RESULT_PARAMS_SCHEMA);

/**
 * "Open transcript": a result's phases, each with its command, exit, duration and its part of the log
 * (sandbox paths mapped to the checkout where it is known, each output's tail kept), for the transcript
 * the extension shows (src/extension/transcript-model.ts).
 */
export interface AnnotatorTranscript {
  /** Empty when the log cannot be cut into phases (the release's rows record none): `log` holds it whole. */
  phases: CandidatePhase[];
  /** The whole log (its tail), when `phases` is empty. */
  log: string | null;
  executor: { kind: string; engine: string } | null;
  /** The checkout the paths were mapped to; null when none is known (paths stay as the run printed them). */
  root: string | null;
}
export const ANNOTATOR_TRANSCRIPT = new ClientRequest<ResultParams, AnnotatorTranscript>('xrepotest/annotator/transcript', RESULT_PARAMS_SCHEMA);

/** Where a result's focal file is: the checkout, the task's own copy, or the repository to ask the user for. */
export type LocateResult = WireFocalSource | { kind: 'ask'; repository: string };
export const ANNOTATOR_LOCATE = new ClientRequest<ResultParams, LocateResult>('xrepotest/annotator/locate', RESULT_PARAMS_SCHEMA);

export interface RememberCheckoutParams {
  runDir: string;
  repository: string;
  checkout: string;
}
export const ANNOTATOR_REMEMBER_CHECKOUT = new ClientRequest<RememberCheckoutParams, void>(
  'xrepotest/annotator/rememberCheckout',
  { type: 'object', required: ['runDir', 'repository', 'checkout'], properties: { runDir: str, repository: str, checkout: str } },
);

export interface SaveParams {
  runDir: string;
  key: string;
  /** null clears the annotation. */
  label: AnnotationLabel | null;
  note: string;
}
export type SaveResult = WireAnnotation;
export const ANNOTATOR_SAVE = new ClientRequest<SaveParams, SaveResult>(
  'xrepotest/annotator/save',
  {
    type: 'object',
    required: ['runDir', 'key', 'label', 'note'],
    // null clears the annotation (JSONSchemaType types a required `X | null` as an anyOf, not as `nullable`).
    properties: { runDir: str, key: str, label: { anyOf: [{ type: 'string', enum: WIRE_ANNOTATION_LABELS }, { type: 'null', nullable: true }] }, note: str },
  },
);

export interface ExportParams {
  runDir: string;
  /** Default: next to the run folder (defaultExportFile). */
  out?: string;
}
export interface ExportResult extends WireExportOutcome {
  file: string;
  bytes: number;
}
export const ANNOTATOR_EXPORT = new ClientRequest<ExportParams, ExportResult>('xrepotest/annotator/export', {
  type: 'object',
  required: ['runDir'],
  properties: { runDir: str, out: optional(str) },
});

export type OpenWhat = 'function' | 'test' | 'logs' | 'coverage' | 'transcript';
export type Filters = Partial<Record<'language' | 'repository' | 'outcome' | 'category', string>>;

/** Extension → webview. */
export type HostMessage =
  | { type: 'run'; runDir: string; title: string; labels: readonly string[] }
  | { type: 'rows'; rows: ResultRow[]; done: boolean; total: number; skipped?: number }
  | { type: 'annotation'; key: string; annotation: ResultRow['annotation'] }
  | { type: 'exported'; file: string; records: number; annotated: number }
  | { type: 'error'; message: string }
  | { type: 'setFilters'; filters: Filters }
  | { type: 'select'; key: string }
  /** The suite cannot reach the webview's DOM: it presses the view's own controls through this. */
  | { type: 'automation'; action: 'click' | 'set'; selector: string; value?: string };

/** What the webview rendered, posted after every render (tests read it, the view restores from it). */
export interface RenderedReport {
  filters: Filters;
  /** Per filter, per value: how many results of the whole run have it. */
  counts: Record<'language' | 'repository' | 'outcome' | 'category', Record<string, number>>;
  total: number;
  matching: number;
  shown: Array<Pick<ResultRow, 'key' | 'outcome' | 'language' | 'repository' | 'functionName' | 'category' | 'suite'> & { label: string | null }>;
  selected: string | null;
  loading: boolean;
  /** The body's theme class (vscode-dark, vscode-light, vscode-high-contrast). */
  theme: string;
}

/** Webview → extension. */
export type ViewMessage =
  | { type: 'ready' }
  | { type: 'rendered'; report: RenderedReport }
  | { type: 'open'; key: string; what: OpenWhat }
  | { type: 'annotate'; key: string; label: AnnotationLabel | null; note: string }
  | { type: 'export' };
