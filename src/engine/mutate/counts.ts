/**
 * How mutants count, one definition for the stored records, the report and the editor (METRICS.md
 * item 8): a mutant whose run times out counts as killed in the mutation score — mutation tools count
 * it so (PIT, Stryker) — and is kept apart (`timed_out`) so a reader can tell and it is stated next to MS.
 */
export interface MutantCounts {
  /** Killed by a failing test (timeouts not included). */
  killed: number;
  timedOut: number;
  viable: number;
}

/** Mutants the test detected: killed or timed out. */
export function detectedMutants(c: Pick<MutantCounts, 'killed' | 'timedOut'>): number {
  return c.killed + c.timedOut;
}

/** detected / viable, 0..1; 0 when no mutant is viable. */
export function mutationScoreOf(c: MutantCounts): number {
  return c.viable ? detectedMutants(c) / c.viable : 0;
}

/** `MS 7/9` or `MS 7/9 (2 timed out)`: the score as a fraction, the timed-out ones said beside it. */
export function mutationFraction(c: MutantCounts): string {
  return `MS ${detectedMutants(c)}/${c.viable}${c.timedOut ? ` (${c.timedOut} timed out)` : ''}`;
}
