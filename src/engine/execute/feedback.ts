import { redact } from '../util/redact';
import type { Evaluation } from './evaluate';

const LOG_BUDGET = 4000;

/**
 * The part of a failed run a model can act on: compile errors, or the failing tests' messages, then
 * the tail of the runner's output; trimmed (the paper trims too) so the repair prompt stays small.
 * Redacted of known secrets: this text goes to the provider, and the test that printed it could
 * read the host's files.
 */
export function feedbackOf(e: Evaluation): string {
  const phases = e.phases.filter((p) => p.phase !== 'warm-up');
  const compile = [...phases].reverse().find((p) => p.phase.startsWith('compile'));
  let log: string;
  if (compile && compile.exitCode !== 0) log = compile.output;
  else {
    const failures = e.testReport.cases.filter((c) => c.status === 'failed' || c.status === 'errored');
    const messages = failures.map((c) => `${c.name}: ${c.message ?? c.status}`).join('\n\n');
    const test = phases.find((p) => p.phase === 'test');
    log = [e.score.reason ?? '', messages, redact(test?.output ?? '').slice(-LOG_BUDGET)].filter(Boolean).join('\n\n');
  }
  // Redacted before trimming, so a secret cut in half by the trim is still recognised whole.
  const clean = redact(log);
  return clean.length > LOG_BUDGET ? `${clean.slice(0, LOG_BUDGET)}\n[… trimmed]` : clean;
}
