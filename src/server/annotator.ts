import * as fs from 'node:fs';
import type { CancellationToken } from 'vscode-languageserver/node';
import { ANNOTATION_LABELS, AnnotationStore, defaultExportFile, exportAnnotatedResults, resultsFile } from '../engine/store/annotations';
import { focalSourceIn, readCheckouts, rememberCheckout } from '../engine/store/checkout-map';
import { repositoryLabelOf } from '../engine/tasks/task-path';
import { readResultAt, scanResultRows, type ResultAt } from '../engine/store/result-rows';
import { annotatedSourceOf, readReleaseResultAt, releaseLineRows, resultsOf, type ReleaseResultView } from '../engine/store/release-result-rows';
import { phaseLogsOf, type ResultRecord } from '../engine/store/results';
import { mapSandboxPaths } from '../engine/execute/sandbox-paths';
import { adapterFor, parseLanguageId } from '../engine/languages';
import { tailOf } from './candidate-mapping';
import { candidatePhaseOf, PHASE_LOG_CHARS } from './candidates';
import {
  ANNOTATOR_EXPORT,
  ANNOTATOR_LOCATE,
  ANNOTATOR_OPEN_RUN,
  ANNOTATOR_REMEMBER_CHECKOUT,
  ANNOTATOR_RESULT,
  ANNOTATOR_ROWS,
  ANNOTATOR_SAVE,
  ANNOTATOR_TRANSCRIPT,
  type AnnotatorTranscript,
  type ExportParams,
  type ExportResult,
  type LocateResult,
  type OpenRunParams,
  type OpenRunResult,
  type RememberCheckoutParams,
  type ResultParams,
  type ResultResult,
  type RowsNotification,
  type SaveParams,
  type SaveResult,
} from '../shared/annotator-protocol';
import type { ServerState } from './state';
import { onClientRequest } from './wire';
import { engineAnnotationLabel, wireAnnotation, wireExportOutcome, wireFocalSource, wireReleaseResult, wireResultRecord, wireResultRows } from './wire-mapping';

interface OpenRun {
  index: Map<string, ResultAt>;
  store: AnnotationStore;
  /** Our results.jsonl, or the release's detailed_results.jsonl (a folder of its pipeline). */
  results: { file: string; harness: 'xrepotest' | 'release' };
}

/** A folder's results, or the refusal naming both files it looks for. */
function resultsIn(runDir: string): NonNullable<ReturnType<typeof resultsOf>> {
  const found = resultsOf(runDir, resultsFile(runDir));
  if (!found) throw new Error(`${runDir} holds no results.jsonl nor the release's detailed_results.jsonl: pick a run folder made by "Run a benchmark" or \`xrepotest bench --run-dir\`, or a results/<lang>/<mode>/<model>/ folder of the release`);
  return found;
}

function signalOf(token: CancellationToken): AbortSignal {
  const controller = new AbortController();
  token.onCancellationRequested(() => controller.abort(new Error('cancelled')));
  return controller.signal;
}

/** The annotator view's reads and writes of a run folder, here so a big run never loads in the extension host. */
export function registerAnnotator({ connection }: ServerState): void {
  const runs = new Map<string, OpenRun>();
  const recordOf = (runDir: string, key: string): ResultRecord | ReleaseResultView => {
    const run = runs.get(runDir);
    const at = run?.index.get(key);
    if (!run || !at) throw new Error(`no result ${key} in ${runDir}: reopen the run`);
    return run.results.harness === 'release' ? readReleaseResultAt(run.results.file, at) : readResultAt(run.results.file, at);
  };

  onClientRequest(connection, ANNOTATOR_OPEN_RUN, async (p: OpenRunParams, token): Promise<OpenRunResult> => {
    const results = resultsIn(p.runDir);
    runs.get(p.runDir)?.store.close();
    runs.delete(p.runDir);
    const store = AnnotationStore.open(p.runDir);
    const scan = await scanResultRows(
      results.file,
      (key) => store.get(key),
      (rows) => connection.sendNotification(ANNOTATOR_ROWS, { session: p.session, rows: wireResultRows(rows) } satisfies RowsNotification),
      { signal: signalOf(token), ...(results.harness === 'release' ? { lineRows: releaseLineRows(results.file) } : {}) },
    );
    runs.set(p.runDir, { index: scan.index, store, results });
    return { rows: scan.rows, skipped: scan.skipped, labels: ANNOTATION_LABELS };
  });

  onClientRequest(connection, ANNOTATOR_RESULT, (p: ResultParams): ResultResult => {
    const r = recordOf(p.runDir, p.key);
    return 'harness' in r.xrt ? wireReleaseResult(r as ReleaseResultView) : wireResultRecord(r as ResultRecord);
  });

  /** The result's checkout: remembered in the run folder's checkouts.json, or where the task was extracted. */
  const checkoutOf = (runDir: string, r: ResultRecord | ReleaseResultView): { repository: string; checkout: string | undefined } => {
    const repository = repositoryLabelOf(r);
    const mapped = readCheckouts(runDir)[repository];
    // Where the task was extracted: ours only (the release's rows name no checkout).
    const extracted = 'repository' in r ? r.repository?.path : undefined;
    return { repository, checkout: [mapped, extracted].find((d) => d && fs.existsSync(d) && fs.statSync(d).isDirectory()) };
  };

  onClientRequest(connection, ANNOTATOR_LOCATE, (p: ResultParams): LocateResult => {
    const r = recordOf(p.runDir, p.key);
    const { repository, checkout } = checkoutOf(p.runDir, r);
    return checkout ? wireFocalSource(focalSourceIn(checkout, r)) : { kind: 'ask', repository };
  });

  onClientRequest(connection, ANNOTATOR_TRANSCRIPT, (p: ResultParams): AnnotatorTranscript => {
    const r = recordOf(p.runDir, p.key);
    const root = checkoutOf(p.runDir, r).checkout ?? null;
    const language = parseLanguageId(r.xrt.language);
    const adapter = language ? adapterFor(language) : undefined;
    const ours = 'harness' in r.xrt ? null : (r as ResultRecord);
    const phases = ours ? phaseLogsOf(ours) : null;
    const executor = ours?.xrt.executor ? { kind: ours.xrt.executor.kind, engine: ours.xrt.executor.engine } : null;
    if (!phases) {
      const log = r.logs[0] ?? '';
      return { phases: [], log: tailOf(root ? mapSandboxPaths(log, root) : log, PHASE_LOG_CHARS), executor, root };
    }
    const asRun = phases.map((x) => ({ ...x, exitCode: x.exit_code, timedOut: x.timed_out, outputTruncated: x.output_truncated, durationMs: x.duration_ms }));
    return { phases: asRun.map((x) => candidatePhaseOf(x, root, adapter)), log: null, executor, root };
  });

  onClientRequest(connection, ANNOTATOR_REMEMBER_CHECKOUT, (p: RememberCheckoutParams): void => {
    if (!fs.existsSync(p.checkout) || !fs.statSync(p.checkout).isDirectory()) throw new Error(`${p.checkout} is not a folder: pick the checkout of ${p.repository}`);
    rememberCheckout(p.runDir, p.repository, p.checkout);
  });

  onClientRequest(connection, ANNOTATOR_SAVE, (p: SaveParams): SaveResult => {
    const open = runs.get(p.runDir)?.store;
    const store = open ?? AnnotationStore.open(p.runDir);
    try {
      return wireAnnotation(store.save(p.key, p.label === null ? null : engineAnnotationLabel(p.label), p.note));
    } finally {
      if (!open) store.close();
    }
  });

  onClientRequest(connection, ANNOTATOR_EXPORT, async (p: ExportParams, token): Promise<ExportResult> => {
    const file = p.out ?? defaultExportFile(p.runDir);
    resultsIn(p.runDir);
    const outcome = await exportAnnotatedResults(p.runDir, file, signalOf(token), annotatedSourceOf(p.runDir));
    return { ...wireExportOutcome(outcome), file, bytes: fs.statSync(file).size };
  });
}
