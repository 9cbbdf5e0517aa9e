import * as fs from 'node:fs';
import * as path from 'node:path';
import { isResultRecord } from '../report/our-rows';
import { AppendLog } from './append-log';
import { scanJsonl } from './jsonl-scan';
import type { ResultRecord } from './results';

/** What an annotator says about a result: why a generated test failed (or that it is right). */
export const ANNOTATION_LABELS = ['correct', 'wrong-assertion', 'hallucinated-api', 'flaky', 'environment', 'other'] as const;
export type AnnotationLabel = (typeof ANNOTATION_LABELS)[number];

/** One line of annotations.jsonl; a null label clears the result's annotation. */
export interface Annotation {
  key: string;
  label: AnnotationLabel | null;
  note: string;
  /** ISO 8601. */
  time: string;
}

/** The longest note kept: a note is a sentence or two, not a log. */
export const MAX_NOTE_CHARS = 10_000;

export function annotationsFile(runDir: string): string {
  return path.join(runDir, 'annotations.jsonl');
}

export function resultsFile(runDir: string): string {
  return path.join(runDir, 'results.jsonl');
}

/**
 * A result's key, stable across reruns and machines: the task (stable id, else language and
 * task_id), sample, repair round and the generated test's hash — a new test is a new result.
 */
export function resultKey(r: Pick<ResultRecord, 'id' | 'task_id' | 'xrt'>): string {
  const task = r.id ?? `${r.xrt.language}:${r.task_id}`;
  return `${task}#${r.xrt.sample}#${r.xrt.round}#${r.xrt.test_hash}`;
}

/**
 * The key of a record's suite (improvement rounds kept tests, merged into one file and scored as one
 * test): a result of its own, beside the slot's first test. Null without a suite, or when no test was
 * kept (the suite is the first test).
 */
export function suiteKey(r: Pick<ResultRecord, 'id' | 'task_id' | 'xrt'>): string | null {
  const suite = r.xrt.suite;
  if (!suite || suite.tests < 2 || suite.test_hash === r.xrt.test_hash) return null;
  return resultKey({ ...r, xrt: { ...r.xrt, test_hash: suite.test_hash } });
}

export function isAnnotationLabel(v: unknown): v is AnnotationLabel {
  return typeof v === 'string' && (ANNOTATION_LABELS as readonly string[]).includes(v);
}

/**
 * A run folder's annotations: appended one record per save (crash-safe, see AppendLog) and read
 * back with the last record per key winning, so the file is also the history of every change.
 */
export class AnnotationStore {
  private readonly latest = new Map<string, Annotation>();
  private log: AppendLog<Annotation> | null = null;

  private constructor(readonly runDir: string) {}

  /** Reads what is there; the file is created on the first save only. */
  static open(runDir: string): AnnotationStore {
    const store = new AnnotationStore(runDir);
    if (fs.existsSync(annotationsFile(runDir))) {
      store.log = AppendLog.open<Annotation>(annotationsFile(runDir));
      for (const a of store.log.records) if (typeof a?.key === 'string') store.apply(a);
    }
    return store;
  }

  private apply(a: Annotation): void {
    if (a.label === null) this.latest.delete(a.key);
    else this.latest.set(a.key, a);
  }

  get(key: string): Annotation | undefined {
    return this.latest.get(key);
  }

  all(): Annotation[] {
    return [...this.latest.values()];
  }

  /** Saves (or, with a null label, clears) a result's annotation. */
  save(key: string, label: AnnotationLabel | null, note: string, now: Date = new Date()): Annotation {
    if (!key) throw new Error('an annotation needs the key of a result');
    if (label !== null && !isAnnotationLabel(label)) throw new Error(`unknown label ${JSON.stringify(label)}: use one of ${ANNOTATION_LABELS.join(', ')}`);
    if (note.length > MAX_NOTE_CHARS) throw new Error(`the note has ${note.length} characters; keep it under ${MAX_NOTE_CHARS}`);
    const record: Annotation = { key, label, note, time: now.toISOString() };
    this.log ??= AppendLog.open<Annotation>(annotationsFile(this.runDir));
    this.log.append(record);
    this.apply(record);
    return record;
  }

  close(): void {
    this.log?.close();
    this.log = null;
  }
}

export interface ExportOutcome {
  records: number;
  annotated: number;
  /** Annotations whose result is not in results.jsonl (a test regenerated since): not exported. */
  orphaned: number;
}

/** One line of a results file with its annotations, and the result keys it holds; null: not a result line. */
export type AnnotateLine = (value: unknown, store: AnnotationStore) => { text: string; keys: string[]; annotated: number } | null;

const annotationOf = (a: Annotation | undefined): Pick<Annotation, 'label' | 'note' | 'time'> | null => (a ? { label: a.label, note: a.note, time: a.time } : null);

/** Our results.jsonl: each record with `xrt.annotation` ({label, note, time}, or null). */
export const annotateOurLine: AnnotateLine = (value, store) => {
  if (!isResultRecord(value)) return null;
  const key = resultKey(value);
  const annotation = annotationOf(store.get(key));
  // A suite is a result of its own (the annotator's row): its annotation goes with it, `xrt.suite.annotation`.
  const ofSuite = suiteKey(value);
  if (!ofSuite) return { text: JSON.stringify({ ...value, xrt: { ...value.xrt, annotation } }), keys: [key], annotated: annotation ? 1 : 0 };
  const suiteAnnotation = annotationOf(store.get(ofSuite));
  const xrt = { ...value.xrt, annotation, suite: { ...value.xrt.suite!, annotation: suiteAnnotation } };
  return { text: JSON.stringify({ ...value, xrt }), keys: [key, ofSuite], annotated: (annotation ? 1 : 0) + (suiteAnnotation ? 1 : 0) };
};

export interface AnnotatedSource {
  file: string;
  annotate: AnnotateLine;
}

/**
 * The run's results as they are, each with its annotations (ours: `xrt.annotation`), streamed record
 * by record to `sink` (results.jsonl of a big run is hundreds of MB).
 */
export async function writeAnnotatedResults(
  runDir: string,
  sink: NodeJS.WritableStream,
  signal?: AbortSignal,
  source: AnnotatedSource = { file: resultsFile(runDir), annotate: annotateOurLine },
): Promise<ExportOutcome> {
  const file = source.file;
  if (!fs.existsSync(file)) throw new Error(`${runDir} holds no ${path.basename(file)}: give a run folder made by \`xrepotest bench --run-dir\``);
  const store = AnnotationStore.open(runDir);
  store.close();
  const seen = new Set<string>();
  const outcome: ExportOutcome = { records: 0, annotated: 0, orphaned: 0 };
  // A closed reader (`| head`) ends the export instead of crashing it.
  let broken: Error | null = null;
  const onError = (e: Error): void => {
    broken = e;
  };
  sink.on('error', onError);
  const write = async (text: string): Promise<void> => {
    if (broken) throw broken;
    if (sink.write(text)) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        sink.off('drain', done);
        sink.off('error', done);
        resolve();
      };
      sink.on('drain', done);
      sink.on('error', done);
    });
    if (broken) throw broken;
  };
  await scanJsonl(
    file,
    async (text) => {
      if (!text.trim()) return;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return; // a torn tail of an interrupted run: the run itself drops it on resume
      }
      const line = source.annotate(value, store);
      if (!line) return;
      for (const k of line.keys) seen.add(k);
      outcome.records += line.keys.length;
      outcome.annotated += line.annotated;
      await write(line.text + '\n');
    },
    signal,
  ).finally(() => sink.off('error', onError));
  outcome.orphaned = store.all().filter((a) => !seen.has(a.key)).length;
  return outcome;
}

/** Exports to a file, written aside and renamed so a reader never sees half of it. */
export async function exportAnnotatedResults(runDir: string, outFile: string, signal?: AbortSignal, source?: AnnotatedSource): Promise<ExportOutcome> {
  fs.mkdirSync(path.dirname(path.resolve(outFile)), { recursive: true });
  const tmp = `${outFile}.${process.pid}.tmp`;
  // Opened now, not by the stream later: a failure below removes the file for sure, and no open
  // still pending afterwards can recreate it (or fail unheard once its folder is gone).
  const out = fs.createWriteStream(tmp, { fd: fs.openSync(tmp, 'w') });
  try {
    const outcome = await writeAnnotatedResults(runDir, out, signal, source);
    await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
    fs.renameSync(tmp, outFile);
    return outcome;
  } catch (e) {
    out.destroy();
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}

/** Where the view exports by default: next to the run folder, not in it (a report over the folder would count the results twice). */
export function defaultExportFile(runDir: string): string {
  const dir = path.resolve(runDir);
  return path.join(path.dirname(dir), `${path.basename(dir)}.annotated.jsonl`);
}
