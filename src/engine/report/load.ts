import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ResultRecord } from '../store/results';
import { readJsonl, type JsonlProblem } from '../tasks/jsonl';
import { dedupeLast, slotKey } from './dedupe';
import { checkResultRecord, looksLikeOurRow } from './our-rows';
import { checkSummaryAgainstRows, harnessSummaryOf, readReleaseSummary, type ReleaseSummaryInput } from './release-summary';
import { looksLikeReleaseRow, readReleaseRow, releaseSlots, RELEASE_MISSING_FIELDS, type ReleaseRow } from './release-rows';
import { toSlotChecked, type Harness, type Slot } from './slots';

export { isResultRecord } from './our-rows';

function filesUnder(dir: string, wanted: (name: string) => boolean): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p, wanted));
    else if (e.isFile() && wanted(e.name)) out.push(p);
  }
  return out;
}

const isJsonl = (name: string): boolean => name.endsWith('.jsonl');
/** The release's pipeline writes summary.json beside detailed_results.jsonl (notes §1). */
const SUMMARY = 'summary.json';

/** One file the slots came from, and which harness scored them. */
export interface ResultSource {
  file: string;
  harness: Harness;
  rows: number;
  slots: number;
  /** The release's: slots per task (its longest test[]); ours: 1 (a row is a slot). */
  perTask: number;
  /** What the harness did not record for these rows (the release's: failure category, timings …). */
  missing: string[];
}

export interface LoadedResults {
  /** Our rows, one per slot. */
  results: ResultRecord[];
  /** Every slot: our rows' and the release's. */
  slots: Slot[];
  sources: ResultSource[];
  problems: JsonlProblem[];
  /** Files in a folder that hold no result records (tasks, generations): left out, not errors. */
  skipped: string[];
  /** Rows dropped because a later row had the same slot (dedupe.ts). */
  duplicates: number;
  /** The release's summary.json files read: named, found in a folder, or beside its detailed_results.jsonl. */
  summaries: ReleaseSummaryInput[];
}

/**
 * The same defect in many rows is said once per file, with how many rows and the first line, so a
 * file of 3,642 damaged rows gives one line, not 3,642.
 */
export class FieldTally {
  private readonly seen = new Map<string, { line: number; rows: number }>();

  add(line: number, problems: readonly string[]): void {
    for (const p of problems) {
      const t = this.seen.get(p);
      if (t) t.rows++;
      else this.seen.set(p, { line, rows: 1 });
    }
  }

  problems(file: string): JsonlProblem[] {
    return [...this.seen].map(([p, t]) => ({
      file,
      line: t.line,
      message: `${p}: counted as missing (not compiled, not passed, no coverage, no mutation score as it applies) in ${t.rows} row${t.rows === 1 ? '' : 's'}${t.rows > 1 ? ', this the first' : ''}`,
    }));
  }
}

/**
 * Result rows from files, or from every `.jsonl` under a folder (a run directory also holds tasks
 * and generations: a file there whose records are not results is skipped, while a named file is
 * held to account line by line). Rows of ours and rows of the release's `detailed_results.jsonl`
 * (release-rows.ts) are both read, as they are, into slots that say which harness scored them.
 */
export async function loadResults(inputs: readonly string[]): Promise<LoadedResults> {
  const ours: Array<{ record: ResultRecord; slot: Slot }> = [];
  const theirs: Array<{ file: string; rows: ReleaseRow[] }> = [];
  const sources: ResultSource[] = [];
  const problems: JsonlProblem[] = [];
  const skipped: string[] = [];
  // Named summary files are held to account; ones found in folders or beside rows only when they are the release's.
  const summaryFiles: Array<{ file: string; named: boolean }> = [];
  for (const input of inputs) {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(input);
    } catch {
      problems.push({ file: input, line: 0, message: 'no such file or folder' });
      continue;
    }
    const fromFolder = stat.isDirectory();
    if (fromFolder) summaryFiles.push(...filesUnder(input, (n) => n === SUMMARY).map((file) => ({ file, named: false })));
    else if (input.endsWith('.json')) {
      summaryFiles.push({ file: input, named: true });
      continue;
    }
    for (const file of fromFolder ? filesUnder(input, isJsonl) : [input]) {
      const own: JsonlProblem[] = [];
      const found: Array<{ record: ResultRecord; slot: Slot }> = [];
      const release: ReleaseRow[] = [];
      const tally = new FieldTally();
      let others = 0;
      let refused = 0;
      for await (const { line, value } of readJsonl(file, own)) {
        const checked = checkResultRecord(value);
        if ('record' in checked) {
          const { slot, problems: missing } = toSlotChecked(checked.record);
          tally.add(line, missing);
          found.push({ record: checked.record, slot });
        } else if (looksLikeReleaseRow(value)) {
          const read = readReleaseRow(value, file);
          if ('problem' in read) {
            refused++;
            own.push({ file, line, message: read.problem });
          } else {
            tally.add(line, read.problems);
            release.push(read.row);
          }
        } else if (looksLikeOurRow(value)) {
          refused++;
          own.push({ file, line, message: checked.problem });
        } else {
          others++;
          own.push({ file, line, message: 'not a result record (run `xrepotest run` to make them)' });
        }
      }
      if (fromFolder && found.length === 0 && release.length === 0 && refused === 0 && others > 0) {
        skipped.push(file);
        continue;
      }
      ours.push(...found);
      problems.push(...own, ...tally.problems(file));
      if (found.length) sources.push({ file, harness: 'xrepotest', rows: found.length, slots: found.length, perTask: 1, missing: [] });
      if (release.length) {
        theirs.push({ file, rows: release });
        if (!fromFolder) summaryFiles.push({ file: path.join(path.dirname(file), SUMMARY), named: false });
      }
    }
  }
  const deduped = dedupeLast(ours, (o) => slotKey(o.record));
  // A file given twice is one run: its rows count once (the same row of another file is another run's).
  const files = dedupeLast(theirs, (t) => path.resolve(t.file));
  const releaseSlotsAll: Slot[] = [];
  const slotsOfFile = new Map<string, Slot[]>();
  const rowsOf = (ts: ReadonlyArray<{ rows: readonly ReleaseRow[] }>): number => ts.reduce((n, t) => n + t.rows.length, 0);
  let releaseDuplicates = rowsOf(theirs) - rowsOf(files.kept);
  for (const { file, rows } of files.kept) {
    // The release writes one row per task; a repeated task_id (files joined by hand) keeps the last.
    const unique = dedupeLast(rows, (r) => r.languageTaskId);
    releaseDuplicates += unique.dropped;
    const { slots, perTask } = releaseSlots(unique.kept);
    releaseSlotsAll.push(...slots);
    slotsOfFile.set(path.resolve(file), slots);
    const missing: string[] = [...RELEASE_MISSING_FIELDS];
    if (unique.kept.some((r) => !r.experimentKnown)) missing.push('mode and model (the file is not at results/<lang>/<mode>/<model>/detailed_results.jsonl)');
    if (!unique.kept.some((r) => r.mutationEnabled)) missing.push('mutation scores (run without --enable_mutation)');
    sources.push({ file, harness: 'release', rows: unique.kept.length, slots: slots.length, perTask, missing });
  }
  const summaries = readSummaries(summaryFiles, slotsOfFile, problems);
  return {
    summaries,
    results: deduped.kept.map((o) => o.record),
    slots: [...deduped.kept.map((o) => o.slot), ...releaseSlotsAll],
    sources,
    problems,
    skipped,
    duplicates: deduped.dropped + releaseDuplicates,
  };
}

/**
 * Each release summary.json, checked key for key against the rows of the detailed_results.jsonl in
 * its folder when those were loaded (the harness writes the two side by side).
 */
function readSummaries(candidates: ReadonlyArray<{ file: string; named: boolean }>, slotsOfFile: ReadonlyMap<string, Slot[]>, problems: JsonlProblem[]): ReleaseSummaryInput[] {
  const out: ReleaseSummaryInput[] = [];
  const seen = new Set<string>();
  for (const { file, named } of candidates) {
    const key = path.resolve(file);
    if (seen.has(key)) continue;
    seen.add(key);
    if (!named && !fs.existsSync(file)) continue;
    const read = readReleaseSummary(file);
    if ('problem' in read) {
      if (named) problems.push({ file, line: 0, message: read.problem });
      continue;
    }
    const dir = path.dirname(key);
    const beside = [...slotsOfFile.keys()].filter((f) => path.dirname(f) === dir);
    const rowsFile = beside.find((f) => path.basename(f) === 'detailed_results.jsonl') ?? (beside.length === 1 ? beside[0] : null);
    const rows = rowsFile ? slotsOfFile.get(rowsFile)! : null;
    out.push({ file, summary: read.summary, rowsFile, check: rows ? checkSummaryAgainstRows(read.summary, harnessSummaryOf(rows)) : null });
  }
  return out;
}
