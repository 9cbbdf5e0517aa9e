import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ResultRecord } from '../store/results';
import { readJsonl, type JsonlProblem } from '../tasks/jsonl';
import { dedupeSlots } from './dedupe';

export function isResultRecord(v: unknown): v is ResultRecord {
  const r = v as ResultRecord | null;
  return !!r && typeof r === 'object' && Array.isArray(r.checks) && r.checks.length > 0 && !!r.xrt && typeof r.xrt.language === 'string';
}

function jsonlUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...jsonlUnder(p));
    else if (e.isFile() && e.name.endsWith('.jsonl')) out.push(p);
  }
  return out;
}

export interface LoadedResults {
  results: ResultRecord[];
  problems: JsonlProblem[];
  /** Files in a folder that hold no result records (tasks, generations): left out, not errors. */
  skipped: string[];
  /** Rows dropped because a later row had the same slot (dedupe.ts). */
  duplicates: number;
}

/**
 * Result records from files, or from every `.jsonl` under a folder (a run directory also holds
 * tasks and generations: a file there whose records are not results is skipped, while a named
 * file is held to account line by line).
 */
export async function loadResults(inputs: readonly string[]): Promise<LoadedResults> {
  const results: ResultRecord[] = [];
  const problems: JsonlProblem[] = [];
  const skipped: string[] = [];
  for (const input of inputs) {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(input);
    } catch {
      problems.push({ file: input, line: 0, message: 'no such file or folder' });
      continue;
    }
    const fromFolder = stat.isDirectory();
    for (const file of fromFolder ? jsonlUnder(input) : [input]) {
      const own: JsonlProblem[] = [];
      const found: ResultRecord[] = [];
      let others = 0;
      for await (const { line, value } of readJsonl(file, own)) {
        if (isResultRecord(value)) found.push(value);
        else {
          others++;
          own.push({ file, line, message: 'not a result record (run `xrepotest run` to make them)' });
        }
      }
      if (fromFolder && found.length === 0 && others > 0) {
        skipped.push(file);
        continue;
      }
      results.push(...found);
      problems.push(...own);
    }
  }
  const deduped = dedupeSlots(results);
  return { results: deduped.results, problems, skipped, duplicates: deduped.dropped };
}
