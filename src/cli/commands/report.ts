import { type Command, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_RESAMPLES, DEFAULT_SEED } from '../../engine/report/bootstrap';
import type { ReportCommandOptions } from '../report-command';

/** `xrepotest report`: its flags; report-command.ts, loaded when it runs, does the work. */

export const REPORT_FORMATS = ['text', 'json', 'markdown', 'html'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive whole number');
  return n;
}

function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number');
  return n;
}

export function registerReportCommand(program: Command): Command {
  return program
    .command('report')
    .description('the benchmark report from result files: per language, mode, model and repository, failure categories, IR vs TPR, with bootstrap intervals; --compare tests two runs against each other')
    .argument('<results...>', "result files (JSONL) from `xrepotest run`, or the release's detailed_results.jsonl as they are, or folders of them (a release summary.json beside its rows is checked against them; one named alone is shown as given); with --compare exactly two runs")
    .addOption(new Option('--format <format>', 'text (quick summary), json (the release\'s summary.json keys plus the full report), markdown or html (one self-contained file with charts)').choices([...REPORT_FORMATS]).default('text'))
    .option('--out <file>', 'write the report to this file instead of standard output')
    .option('--compare', 'the two <results> are runs A and B: pair their slots (task, sample, round) and run McNemar\'s test per language, Holm-adjusted')
    .option('--label <title>', 'the report\'s title')
    .option('--seed <n>', 'seed of the bootstrap resampling', nonNegativeInt, DEFAULT_SEED)
    .option('--resamples <n>', 'bootstrap resamples', positiveInt, DEFAULT_RESAMPLES)
    .action(async (inputs: string[], opts: ReportCommandOptions) => {
      if (opts.compare && inputs.length !== 2) throw new InvalidArgumentError(`--compare takes exactly two runs (files or folders), got ${inputs.length}`);
      const { runReport } = await import('../report-command.js');
      process.exitCode = await runReport(inputs, opts);
    });
}
