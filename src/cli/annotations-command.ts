import { exportAnnotatedResults, writeAnnotatedResults, type ExportOutcome } from '../engine/store/annotations';
import { annotatedSourceOf } from '../engine/store/release-result-rows';

function said(outcome: ExportOutcome, where: string): string {
  const orphaned = outcome.orphaned ? `; ${outcome.orphaned} annotation(s) name results no longer in results.jsonl and are left out` : '';
  return `exported ${outcome.records} results (${outcome.annotated} annotated) to ${where}${orphaned}\n`;
}

/** `xrepotest annotations export`: a run's results with the annotators' labels and notes (flags: commands/annotations.ts). */
export async function runAnnotationsExport(runDir: string, opts: { out?: string }): Promise<void> {
  if (opts.out) {
    process.stderr.write(said(await exportAnnotatedResults(runDir, opts.out, undefined, annotatedSourceOf(runDir)), opts.out));
  } else {
    try {
      process.stderr.write(said(await writeAnnotatedResults(runDir, process.stdout, undefined, annotatedSourceOf(runDir)), 'standard output'));
    } catch (e) {
      // The reader stopped reading (`| head`): what it wanted was written.
      if ((e as NodeJS.ErrnoException).code !== 'EPIPE') throw e;
    }
  }
}
