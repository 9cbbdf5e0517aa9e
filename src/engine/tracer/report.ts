import type { Finding } from '../score/tampering-rules';

/**
 * What the line tracer (linetrace/main.go) wrote on the test phase's sealed channel: the focal lines
 * it saw trap (`hit`), the lines it could watch at all (`lines`: those with an address in a watched
 * executable's line table), and how many addresses it watched.
 */
export interface TraceReport {
  hit: number[];
  lines: number[];
  planted: number;
  problems: string[];
}

const intList = (v: unknown): v is number[] => Array.isArray(v) && v.every((n) => Number.isInteger(n));

/** The tracer's report, or null when the channel holds none (the tracer never finished: it was killed). */
export function parseTrace(sealed: string): TraceReport | null {
  const line = sealed.trim().split('\n').pop() ?? '';
  try {
    const r = JSON.parse(line) as Record<string, unknown>;
    if (!r || typeof r !== 'object' || !intList(r.hit) || !intList(r.lines) || !Number.isInteger(r.planted)) return null;
    const problems = Array.isArray(r.problems) ? r.problems.filter((p): p is string => typeof p === 'string') : [];
    return { hit: r.hit, lines: r.lines, planted: r.planted as number, problems };
  } catch {
    return null;
  }
}

/**
 * The cross-check, in the direction a forgery takes: a focal line the coverage profile says ran, that
 * has an address the tracer watched, but that never trapped. A line with no address in the line table
 * (folded into another, optimised away) cannot be checked and is left to the profile; a line the tracer
 * saw but the profile does not count is no forgery (the profile only undersells the test).
 * `rule`: the language's id for the verdict (`rust-coverage-rewritten`).
 */
export function traceDisagrees(sealed: string, covered: readonly number[], rule: string): Finding | null {
  const trace = parseTrace(sealed);
  if (!trace) {
    return {
      rule: 'tracer-ended',
      says: 'the line tracer watching the test from outside its process ended without its report (it was killed from inside the sandbox)',
    };
  }
  const watched = new Set(trace.lines);
  const hit = new Set(trace.hit);
  const unseen = covered.filter((l) => watched.has(l) && !hit.has(l));
  if (!unseen.length) return null;
  return {
    rule,
    says: `the coverage profile says focal line(s) ${unseen.slice(0, 8).join(', ')}${unseen.length > 8 ? ', …' : ''} ran, but the line tracer watching the test binary from outside its process never saw them run (the counters were written by the test)`,
    evidence: `lines ${unseen.join(',')} counted, never traced`,
  };
}
