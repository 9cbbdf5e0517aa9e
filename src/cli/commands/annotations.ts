import type { Command } from 'commander';

/** `xrepotest annotations export`: a run's results with the annotators' labels and notes; annotations-command.ts does the work. */
export function registerAnnotationsCommand(program: Command): Command {
  const annotations = program.command('annotations').description("annotations made in the editor's annotator view (a run folder's annotations.jsonl)");
  annotations
    .command('export')
    .description("write the run's results.jsonl records, each with its annotation under xrt.annotation ({label, note, time}, or null); a folder of the release's detailed_results.jsonl: its rows, each with xrt_annotations (one per response)")
    .argument('<run-dir>', "the run folder (made by `xrepotest bench --run-dir`), or a results/<lang>/<mode>/<model>/ folder of the release")
    .option('--out <file>', 'write here (default: standard output)')
    .action(async (runDir: string, opts: { out?: string }) => {
      const { runAnnotationsExport } = await import('../annotations-command.js');
      await runAnnotationsExport(runDir, opts);
    });
  return annotations;
}
