import type { LineHits } from '../types';
import { isSameFile } from './paths';

type Json = Record<string, unknown>;

/** A file's entry: `{"lines": [...]}` (Coverage.start(lines: true), SimpleCov ≥ 0.18) or a bare array (older). */
function lineArray(entry: unknown): unknown[] | undefined {
  if (Array.isArray(entry)) return entry;
  if (entry && typeof entry === 'object' && Array.isArray((entry as Json).lines)) return (entry as Json).lines as unknown[];
  return undefined;
}

/** Adds one run's array (index i = line i + 1; null = not code) into `hits`. */
function addLines(hits: LineHits, lines: unknown[]): void {
  lines.forEach((v, i) => {
    if (typeof v === 'number' && Number.isFinite(v)) hits.set(i + 1, (hits.get(i + 1) ?? 0) + v);
  });
}

function addMatching(hits: LineHits, byPath: Json, absFile: string): void {
  for (const [file, entry] of Object.entries(byPath)) {
    if (!isSameFile(file, absFile)) continue;
    const lines = lineArray(entry);
    if (lines) addLines(hits, lines);
  }
}

/**
 * Ruby line coverage for `absFile`, from `Coverage.result` as JSON (`{"/abs": {"lines": [...]}}` or the
 * old `{"/abs": [...]}`) or SimpleCov's `.resultset.json` (`{"RSpec": {"coverage": {"/abs": ...}}}`;
 * several commands' results are summed, as SimpleCov merges them).
 */
export function parseRubyCoverage(json: string, absFile: string): LineHits {
  const hits: LineHits = new Map();
  let doc: unknown;
  try {
    doc = JSON.parse(json);
  } catch {
    return hits;
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return hits;
  for (const [key, value] of Object.entries(doc as Json)) {
    const coverage = value && typeof value === 'object' && !Array.isArray(value) ? (value as Json).coverage : undefined;
    if (coverage && typeof coverage === 'object' && !Array.isArray(coverage)) addMatching(hits, coverage as Json, absFile);
    else addMatching(hits, { [key]: value }, absFile);
  }
  return hits;
}
