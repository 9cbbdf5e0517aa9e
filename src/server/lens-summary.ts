/**
 * The score as the code lens shows it (issue 30, "the lens fits"): short, so that the actions after it
 * stay on screen at 1400 px with the side bar open — `✓ 1/1 · 100 % · calls Commaf`; the plain-words
 * summary (candidates.ts `summaryOf`) is the lens's hover and the Testing view's description. Pure.
 */
import { detectedMutants } from '../engine/mutate/counts';
import type { ScoreFunctionResult } from '../shared/scoring-protocol';
import { linesRun } from './candidates';

type Scored = Pick<
  ScoreFunctionResult,
  'functionName' | 'compiled' | 'passed' | 'failureCategory' | 'testsRan' | 'testsPassed' | 'coveredLines' | 'executableLines' | 'invoked' | 'smoke' | 'mutation' | 'environment' | 'reruns' | 'suite'
>;

/** `✓ 1/1 · 100 % · calls Commaf`, `✗ 0/2 · 40 % · calls Find`, `◌ smoke · 30 %`, `⚠ can't run here`. */
export function lensSummaryOf(r: Scored): string {
  if (r.environment?.actions?.some((a) => a.kind === 'retry')) return '⏸ first build not finished';
  if (r.environment) return "⚠ can't run here";
  if (!r.compiled) return '✗ does not compile';
  if (r.failureCategory === 'tampering') return '✗ tampers with its result';
  const parts: string[] = [];
  if (r.suite && r.suite.tests > 1) parts.push(`suite of ${r.suite.tests}`);
  if (r.failureCategory === 'flaky' && r.reruns) parts.push(`⚠ flaky ${r.reruns.passed}/${r.reruns.runs}`);
  else if (r.passed && r.smoke) parts.push('◌ smoke');
  else if (r.testsRan === 0) parts.push('✗ no test ran');
  else parts.push(`${r.passed ? '✓' : '✗'} ${r.testsPassed}/${r.testsRan}`);
  parts.push(`${linesRun(r)} %`);
  if (!(r.passed && r.smoke)) parts.push(r.invoked ? `calls ${r.functionName}` : `no call to ${r.functionName}`);
  if (r.mutation && !r.mutation.error) parts.push(r.mutation.mutants === 0 ? 'no mutants' : `${detectedMutants(r.mutation)}/${r.mutation.viable} mutants`);
  return parts.join(' · ');
}
