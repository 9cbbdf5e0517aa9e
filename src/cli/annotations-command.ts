import type { Command } from 'commander';
import { exportAnnotatedResults, writeAnnotatedResults, type ExportOutcome } from '../engine/store/annotations';
import { annotatedSourceOf } from '../engine/store/release-result-rows';

function said(outcome: ExportOutcome, where: string): string {
  const orphaned = outcome.orphaned ? `; ${outcome.orphaned} annotation(s) name results no longer in results.jsonl and are left out` : '';
  return `exported ${outcome.records} results (${outcome.annotated} annotated) to ${where}${orphaned}\n`;
}

/** `xrepotest annotations export`: a run's results with the annotators' labels and notes. */
export function registerAnnotationsCommand(program: Command): Command {
  const annotations = program.command('annotations').description("annotations made in the editor's annotator view (a run folder's annotations.jsonl)");
  annotations
    .command('export')
    .description("write the run's results.jsonl records, each with its annotation under xrt.annotation ({label, note, time}, or null); a folder of the release's detailed_results.jsonl: its rows, each with xrt_annotations (one per response)")
    .argument('<run-dir>', "the run folder (made by `xrepotest bench --run-dir`), or a results/<lang>/<mode>/<model>/ folder of the release")
    .option('--out <file>', 'write here (default: standard output)')
    .action(async (runDir: string, opts: { out?: string }) => {
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
    });
  return annotations;
}
